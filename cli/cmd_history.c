/*
 * DOC: fabricctl sweeps, events
 *
 * The sweep history and the event log, oldest first. Times are local.
 * `events --since` takes Unix seconds, or a negative number of seconds
 * before now (e.g. -3600 for the last hour).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/fabricctl.h"
#include "cli/output.h"

static void local_time(double t, char buf[32])
{
	time_t s = (time_t)t;
	struct tm tm;
	strftime(buf, 32, "%Y-%m-%dT%H:%M:%S", localtime_r(&s, &tm));
}

struct listing {
	struct table t;
	bool json;
	unsigned n;
};

/* A listing is a JSON array or a table, filled row by row by a callback. */
static void listing_begin(struct listing *l)
{
	if (l->json)
		printf("[");
}

static int listing_end(struct ctl *c, struct listing *l, int rc)
{
	if (l->json)
		printf("%s]\n", l->n ? "\n" : "");
	else
		table_print(&l->t, stdout);
	table_free(&l->t);
	if (rc < 0) {
		fprintf(stderr, "fabricctl: %s: %s\n", c->db_path, db_last_error(c->db));
		return EXIT_DB;
	}
	return EXIT_OK;
}

static void sweep_row(void *arg, const struct db_sweep *s)
{
	struct listing *l = arg;
	char id[24], when[32], ms[24], mads[24], nodes[16], links[16];
	local_time(s->started, when);
	if (l->json) {
		printf("%s\n  {\"sweep\": %lld, \"kind\": \"%s\", \"started\": \"%s\", \"duration_ms\": %.0f, "
		       "\"mads\": %llu, \"nodes\": %u, \"links\": %u, \"result\": ", l->n ? "," : "",
		       (long long)s->id, s->kind, when, (s->finished - s->started) * 1000,
		       (unsigned long long)s->mads, s->nodes, s->links);
		json_string(stdout, s->result);
		printf("}");
	} else {
		snprintf(id, sizeof(id), "%lld", (long long)s->id);
		snprintf(ms, sizeof(ms), "%.0f", (s->finished - s->started) * 1000);
		snprintf(mads, sizeof(mads), "%llu", (unsigned long long)s->mads);
		snprintf(nodes, sizeof(nodes), "%u", s->nodes);
		snprintf(links, sizeof(links), "%u", s->links);
		table_row(&l->t, id, s->kind, when, ms, mads, nodes, links, s->result);
	}
	l->n++;
}

int cmd_sweeps(struct ctl *c, int argc, char **argv)
{
	unsigned long limit = 20;
	if (argc == 3 && strcmp(argv[1], "--last") == 0) {
		char *end;
		errno = 0;
		limit = strtoul(argv[2], &end, 10);
		if (*end || errno || !limit || argv[2][0] == '-') {
			fprintf(stderr, "fabricctl sweeps: --last needs a positive number, not '%s'\n", argv[2]);
			return EXIT_USAGE;
		}
	} else if (argc != 1) {
		fprintf(stderr, "fabricctl sweeps: expected [--last N]\n");
		return EXIT_USAGE;
	}
	static const char *heads[] = { "SWEEP", "KIND", "STARTED", "MS", "MADS", "NODES", "LINKS", "RESULT" };
	struct listing l = { .json = c->json };
	table_init(&l.t, 8, heads);
	listing_begin(&l);
	return listing_end(c, &l, db_each_sweep(c->db, (unsigned)limit, sweep_row, &l));
}

static void event_row(void *arg, const struct db_event *ev)
{
	struct listing *l = arg;
	char when[32];
	local_time(ev->time, when);
	if (l->json) {
		printf("%s\n  {\"id\": %lld, \"time\": \"%s\", \"kind\": ", l->n ? "," : "", (long long)ev->id, when);
		json_string(stdout, ev->kind);
		printf(", \"detail\": ");
		json_string(stdout, ev->detail);
		printf("}");
	} else {
		table_row(&l->t, when, ev->kind, ev->detail);
	}
	l->n++;
}

int cmd_events(struct ctl *c, int argc, char **argv)
{
	double since = 0;
	if (argc == 3 && strcmp(argv[1], "--since") == 0) {
		char *end;
		errno = 0;
		since = strtod(argv[2], &end);
		if (*end || errno || argv[2][0] == '\0') {
			fprintf(stderr, "fabricctl events: --since needs Unix seconds (or -SECONDS ago), not '%s'\n",
				argv[2]);
			return EXIT_USAGE;
		}
		if (since < 0)
			since += (double)time(NULL);
	} else if (argc != 1) {
		fprintf(stderr, "fabricctl events: expected [--since T]\n");
		return EXIT_USAGE;
	}
	static const char *heads[] = { "TIME", "KIND", "DETAIL" };
	struct listing l = { .json = c->json };
	table_init(&l.t, 3, heads);
	listing_begin(&l);
	return listing_end(c, &l, db_each_event(c->db, since, event_row, &l));
}
