/*
 * DOC: OpenSM's partitions.conf
 *
 * Statements end with ';' and may span lines; '#' starts a comment:
 *
 *   Name[=PKey][,flag[=value]]... : member[=full|limited|both], ... ;
 *
 * "Default" without a P_Key is 0x7fff; another partition without one gets
 * the lowest P_Key the file leaves free, as OpenSM does. A P_Key's
 * membership bit (0x8000) is dropped, membership being per member.
 * Statements naming the same partition (and P_Key) add to its members. Flags: defmember=full|limited|
 * both (the members' default; without it, limited, as in OpenSM), and
 * ipoib, rate, mtu, sl, scope, Q_Key, TClass and indx0, which are accepted
 * (fabricd creates the default partition's IPoIB group on its own and
 * takes rate, MTU and SL from the fabric). Members: ALL and ALL_CAS (every
 * CA port), a port GUID, SELF (fabricd's port, a full member of every
 * partition anyway) and ALL_SWITCHES / ALL_ROUTERS (switch management
 * ports are no partition members in fabricd: accepted, no effect). "both"
 * is full. Multicast group lines (mgid=...) are refused: fabricd does not
 * predefine groups. Errors name the file, the line and what is wrong.
 */
#include "sm/partconf.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct reader {
	const char *path;
	char *err;
	unsigned line;		/* where the statement being read starts */
};

static int fail(struct reader *r, const char *fmt, ...)
{
	char what[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(r->err, PARTCONF_ERR_LEN, "%s:%u: %s", r->path, r->line, what);
	return -1;
}

/* s without leading and trailing blanks (in place). */
static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* 1 full, 0 limited, -1 unknown: "full", "limited", "both" (full). */
static int membership(const char *s)
{
	return strcmp(s, "full") == 0 || strcmp(s, "both") == 0 ? 1 : strcmp(s, "limited") == 0 ? 0 : -1;
}

static int parse_header(struct reader *r, char *head, struct partition *p, bool *def_full)
{
	char *save = NULL, *tok = strtok_r(head, ",", &save);
	char *name = tok ? trim(tok) : NULL, *eq = name ? strchr(name, '=') : NULL;
	if (!name || !*name)
		return fail(r, "a partition needs a name before ':'");
	if (eq) {
		*eq = '\0';
		char *end, *v = trim(eq + 1);
		errno = 0;
		unsigned long key = strtoul(v, &end, 0) & PART_DEFAULT_PKEY;	/* membership is per member */
		if (!*v || *trim(end) || errno || !key)
			return fail(r, "P_Key '%s' of partition %s is not a number 0x0001..0xffff", v, trim(name));
		p->pkey = (uint16_t)key;
	} else if (strcmp(trim(name), "Default") == 0) {
		p->pkey = PART_DEFAULT_PKEY;
	}	/* else 0: one is chosen at the end */
	snprintf(p->name, sizeof(p->name), "%s", trim(name));
	static const char *accepted[] = { "ipoib", "rate", "mtu", "sl", "scope", "Q_Key", "TClass", "indx0" };
	while ((tok = strtok_r(NULL, ",", &save))) {
		char *flag = trim(tok), *val = strchr(flag, '=');
		if (val)
			*val++ = '\0';
		flag = trim(flag);
		if (strcmp(flag, "defmember") == 0) {
			int m = val ? membership(trim(val)) : -1;
			if (m < 0)
				return fail(r, "defmember must be full, limited or both");
			*def_full = m == 1;
			continue;
		}
		bool known = false;
		for (size_t i = 0; i < sizeof(accepted) / sizeof(accepted[0]); i++)
			known |= strcmp(flag, accepted[i]) == 0;
		if (!known)
			return fail(r, "unknown flag '%s' of partition %s", flag, p->name);
	}
	return 0;
}

static int parse_member(struct reader *r, char *text, struct partition *p, bool def_full)
{
	char *type = strchr(text, '=');
	if (type)
		*type++ = '\0';
	char *who = trim(text);
	if (!*who)
		return 0;	/* "Name=0x8001 : ;" has none */
	if (strncmp(who, "mgid", 4) == 0)
		return fail(r, "multicast group definitions (mgid=...) are not supported");
	int full = type ? membership(trim(type)) : def_full;
	if (full < 0)
		return fail(r, "member %s: membership must be full, limited or both", who);
	if (strcmp(who, "SELF") == 0 || strcmp(who, "ALL_SWITCHES") == 0 || strcmp(who, "ALL_ROUTERS") == 0)
		return 0;	/* see the DOC block */
	if (p->nmembers == PART_MAX_MEMBERS)
		return fail(r, "partition %s has more than %d members", p->name, PART_MAX_MEMBERS);
	struct part_member *m = &p->members[p->nmembers];
	memset(m, 0, sizeof(*m));
	m->full = full == 1;
	m->line = r->line;
	if (strcmp(who, "ALL") == 0 || strcmp(who, "ALL_CAS") == 0) {
		m->all = true;
		snprintf(m->pattern, sizeof(m->pattern), "all");
	} else {
		char *end;
		errno = 0;
		m->guid = strtoull(who, &end, 0);
		if (*end || errno || !m->guid)
			return fail(r, "member '%s' is not ALL, ALL_CAS, ALL_SWITCHES, SELF or a port GUID", who);
		snprintf(m->pattern, sizeof(m->pattern), "0x%016llx", (unsigned long long)m->guid);
	}
	p->nmembers++;
	return 0;
}

/* One statement "header : members" (without its ';'). */
static int parse_statement(struct reader *r, char *st, struct partitions *ps)
{
	char *colon = strchr(st, ':');
	if (!colon)
		return fail(r, "expected 'Name=PKey[,flags] : members ;'");
	*colon = '\0';
	if (ps->n == PART_MAX)
		return fail(r, "more than %d partitions", PART_MAX);
	struct partition *p = &ps->p[ps->n];
	memset(p, 0, sizeof(*p));
	p->line = r->line;
	bool def_full = false;
	if (parse_header(r, st, p, &def_full) < 0)
		return -1;
	char *save = NULL;
	for (char *tok = strtok_r(colon + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (parse_member(r, tok, p, def_full) < 0)
			return -1;
	for (unsigned i = 0; i < ps->n; i++) {
		struct partition *q = &ps->p[i];
		if (strcmp(q->name, p->name) != 0 && (!p->pkey || q->pkey != p->pkey))
			continue;
		if (strcmp(q->name, p->name) != 0 || (p->pkey && q->pkey && q->pkey != p->pkey))
			return fail(r, "P_Key 0x%04x or name %s already used by partition %s (line %u)", p->pkey, p->name,
				    q->name, q->line);
		if (q->nmembers + p->nmembers > PART_MAX_MEMBERS)	/* the same partition again: more members */
			return fail(r, "partition %s has more than %d members", p->name, PART_MAX_MEMBERS);
		memcpy(&q->members[q->nmembers], p->members, p->nmembers * sizeof(*p->members));
		q->nmembers += p->nmembers;
		q->pkey = q->pkey ? q->pkey : p->pkey;
		return 0;
	}
	ps->n++;
	return 0;
}

/* Partitions the file gave no P_Key: the lowest ones no partition uses. */
static void choose_pkeys(struct partitions *ps)
{
	uint16_t next = 1;
	for (unsigned i = 0; i < ps->n; i++) {
		if (ps->p[i].pkey)
			continue;
		for (bool used = true; used; next++) {
			used = false;
			for (unsigned k = 0; k < ps->n; k++)
				used |= ps->p[k].pkey == next;
			if (!used)
				ps->p[i].pkey = next;
		}
	}
}

int partconf_load(const char *path, struct partitions *ps, char err[PARTCONF_ERR_LEN])
{
	struct reader r = { .path = path, .err = err };
	FILE *fp = fopen(path, "r");
	char line[1024], st[8192];
	size_t len = 0;
	unsigned lineno = 0;
	int rc = 0;
	memset(ps, 0, sizeof(*ps));
	if (!fp) {
		snprintf(err, PARTCONF_ERR_LEN, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof(line), fp)) {
		lineno++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		for (char *c = line; rc == 0 && *c; c++) {
			if (!len && isspace((unsigned char)*c))
				continue;
			if (!len)
				r.line = lineno;
			if (*c == ';') {
				st[len] = '\0';
				rc = parse_statement(&r, st, ps);
				len = 0;
			} else if (len + 2 < sizeof(st)) {
				st[len++] = *c == '\n' ? ' ' : *c;
			} else {
				rc = fail(&r, "a statement longer than %zu characters (a missing ';'?)", sizeof(st));
			}
		}
	}
	if (rc == 0 && len && *trim((st[len] = '\0', st)))
		rc = fail(&r, "the last statement has no ';'");
	if (rc == 0)
		choose_pkeys(ps);
	fclose(fp);
	if (rc < 0)
		memset(ps, 0, sizeof(*ps));
	return rc;
}
