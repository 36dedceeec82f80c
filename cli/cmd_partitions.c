/*
 * DOC: fabricctl partitions
 *
 *   fabricctl partitions [PKEY|NAME]
 *
 * Without an argument: every partition the last sweep programmed, with
 * its full and limited member counts. With one: that partition's members,
 * port by port. From the database, so it shows what the ports were given,
 * whatever the configuration file says now.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/fabricctl.h"
#include "cli/output.h"

/* The partition named by key (P_Key in hex or decimal, or name), or NULL. */
static const struct db_partition *find(const struct db_partition *p, size_t np, const char *key)
{
	char *end;
	unsigned long v = strtoul(key, &end, 0);
	for (size_t i = 0; i < np; i++)
		if (strcmp(p[i].name, key) == 0 || (!*end && (v & 0x7fff) == p[i].pkey))
			return &p[i];
	return NULL;
}

static const char *port_owner(const struct fabric *f, uint64_t guid)
{
	const struct node *n = fabric_find_guid(f, guid);
	return n ? n->desc : "?";
}

static void list_members(const struct ctl *c, const struct fabric *f, const struct db_partition *p,
			 const struct db_pkey_member *m, size_t nm)
{
	if (c->json) {
		printf("{\"pkey\": \"0x%04x\", \"name\": ", p->pkey);
		json_string(stdout, p->name);
		printf(", \"members\": [");
	}
	static const char *heads[] = { "NODE", "GUID", "PORT", "MEMBERSHIP" };
	struct table t;
	table_init(&t, 4, heads);
	bool first = true;
	for (size_t i = 0; i < nm; i++) {
		if (m[i].pkey != p->pkey)
			continue;
		char guid[24], port[8];
		snprintf(guid, sizeof(guid), "0x%016" PRIx64, m[i].guid);
		snprintf(port, sizeof(port), "%u", m[i].port);
		if (c->json) {
			printf("%s\n  {\"node\": ", first ? "" : ",");
			json_string(stdout, port_owner(f, m[i].guid));
			printf(", \"guid\": \"%s\", \"port\": %u, \"full\": %s}", guid, m[i].port, m[i].full ? "true" : "false");
		} else
			table_row(&t, port_owner(f, m[i].guid), guid, port, m[i].full ? "full" : "limited");
		first = false;
	}
	if (c->json)
		printf("\n]}\n");
	else {
		printf("partition %s, P_Key 0x%04x\n\n", p->name, p->pkey);
		table_print(&t, stdout);
	}
	table_free(&t);
}

static void list_partitions(const struct ctl *c, const struct db_partition *p, size_t np,
			    const struct db_pkey_member *m, size_t nm)
{
	static const char *heads[] = { "PKEY", "NAME", "FULL", "LIMITED" };
	struct table t;
	table_init(&t, 4, heads);
	if (c->json)
		printf("[");
	for (size_t i = 0; i < np; i++) {
		unsigned full = 0, limited = 0;
		for (size_t k = 0; k < nm; k++)
			if (m[k].pkey == p[i].pkey)
				m[k].full ? full++ : limited++;
		char pkey[8], nf[12], nl[12];
		snprintf(pkey, sizeof(pkey), "0x%04x", p[i].pkey);
		snprintf(nf, sizeof(nf), "%u", full);
		snprintf(nl, sizeof(nl), "%u", limited);
		if (c->json) {
			printf("%s\n  {\"pkey\": \"%s\", \"name\": ", i ? "," : "", pkey);
			json_string(stdout, p[i].name);
			printf(", \"full\": %u, \"limited\": %u}", full, limited);
		} else
			table_row(&t, pkey, p[i].name, nf, nl);
	}
	if (c->json)
		printf("\n]\n");
	else
		table_print(&t, stdout);
	table_free(&t);
}

int cmd_partitions(struct ctl *c, int argc, char **argv)
{
	if (argc > 2) {
		fprintf(stderr, "fabricctl partitions: unexpected argument '%s'\n", argv[2]);
		return EXIT_USAGE;
	}
	struct db_partition *p;
	struct db_pkey_member *m;
	size_t np, nm;
	struct fabric f;
	if (db_load_partitions(c->db, &p, &np, &m, &nm) < 0) {
		fprintf(stderr, "fabricctl: %s: %s\n", c->db_path, db_last_error(c->db));
		return EXIT_DB;
	}
	int rc = EXIT_OK;
	if (!np) {
		fprintf(stderr, "fabricctl: no partitions recorded yet in %s\n", c->db_path);
		rc = EXIT_NOT_FOUND;
	} else if (argc == 1) {
		list_partitions(c, p, np, m, nm);
	} else {
		const struct db_partition *one = find(p, np, argv[1]);
		if (!one) {
			fprintf(stderr, "fabricctl partitions: no partition '%s'\n", argv[1]);
			rc = EXIT_NOT_FOUND;
		} else if (ctl_load_fabric(c, &f) < 0) {
			rc = EXIT_DB;
		} else {
			list_members(c, &f, one, m, nm);
			fabric_free(&f);
		}
	}
	free(p);
	free(m);
	return rc;
}
