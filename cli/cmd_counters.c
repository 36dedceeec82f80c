/*
 * DOC: fabricctl counters, errors, congestion
 *
 * What fabricd's counter sweeps stored (sm/perf/, db/perf.c), read from
 * the database: a running fabricd need not be asked.
 *   counters [NODE[PORT]]   each port's totals and its last interval's rates
 *   errors [--since T] [--top N]   ports ranked by the errors they counted
 *                           since T (Unix seconds, or -SECONDS ago; default
 *                           the last day), with the BER estimate
 *   congestion [--since T] [--top N]   ports ranked by their XmitWait share
 *                           since T (default the last 5 minutes): wait
 *                           ticks / (wait ticks + data words sent)
 * Data counters count 4-byte words; the output says bytes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/fabricctl.h"
#include "cli/output.h"

/* The stored counters, and the fabric to name their nodes. */
struct counters_view {
	struct fabric f;
	struct db_port_counters *rows;
	size_t n;
};

static int load_view(struct ctl *c, struct counters_view *v)
{
	memset(v, 0, sizeof(*v));
	if (ctl_load_fabric(c, &v->f) < 0)
		return EXIT_DB;
	if (db_load_port_counters(c->db, &v->rows, &v->n) < 0) {
		fprintf(stderr, "fabricctl: %s\n", db_last_error(c->db));
		fabric_free(&v->f);
		return EXIT_DB;
	}
	return EXIT_OK;
}

static void free_view(struct counters_view *v)
{
	free(v->rows);
	fabric_free(&v->f);
}

static double port_gbps(const struct fabric *f, uint64_t guid, uint8_t port)
{
	const struct node *n = fabric_find_guid(f, guid);
	return n && port <= n->nports ? fabric_port_data_gbps(&n->ports[port]) : 0;
}

static uint64_t error_sum(const struct pc_values *v)
{
	uint64_t s = 0;
	for (int c = 0; c < PC_FIRST_DATA; c++)
		s += v->v[c];
	return s;
}

static double rate(uint64_t delta, double seconds)
{
	return seconds > 0 ? (double)delta / seconds : 0;
}

static void json_values(const char *key, const struct pc_values *v)
{
	printf("\"%s\": {", key);
	for (int c = 0; c < PC_COUNT; c++)
		printf("%s\"%s\": %" PRIu64, c ? ", " : "", pc_name(c), v->v[c]);
	printf("}");
}

static void json_port_head(const struct fabric *f, const struct db_port_counters *r)
{
	char buf[24];
	printf("{\"node\": ");
	json_string(stdout, ctl_node_name(f, r->node_guid, buf, sizeof(buf)));
	printf(", \"node_guid\": \"0x%016" PRIx64 "\", \"port\": %u, \"lid\": %u", r->node_guid, r->port, r->lid);
}

static void print_one_port(const struct fabric *f, const struct db_port_counters *r)
{
	char buf[24];
	double ago = (double)time(NULL) - r->time;
	printf("%s port %u (LID %u), read %.0f s ago%s\n\n", ctl_node_name(f, r->node_guid, buf, sizeof(buf)), r->port,
	       r->lid, ago > 0 ? ago : 0, r->saturated ? "; a counter was saturated" : "");
	static const char *heads[] = { "COUNTER", "TOTAL", "LAST INTERVAL", "PER SECOND" };
	struct table t;
	table_init(&t, 4, heads);
	for (int c = 0; c < PC_COUNT; c++) {
		char tot[24], last[24], ps[24];
		snprintf(tot, sizeof(tot), "%" PRIu64, r->total.v[c]);
		snprintf(last, sizeof(last), "%" PRIu64, r->last.v[c]);
		snprintf(ps, sizeof(ps), "%.2f", rate(r->last.v[c], r->seconds));
		table_row(&t, pc_name(c), tot, last, ps);
	}
	table_print(&t, stdout);
	table_free(&t);
}

int cmd_counters(struct ctl *c, int argc, char **argv)
{
	if (argc > 2) {
		fprintf(stderr, "fabricctl counters: expected [NODE[PORT]]\n");
		return EXIT_USAGE;
	}
	struct counters_view v;
	int rc = load_view(c, &v);
	if (rc)
		return rc;
	uint64_t guid = 0;
	uint8_t port = 0;
	if (argc == 2 && (rc = ctl_node_port(c, &v.f, argv[1], &guid, &port)) != EXIT_OK) {
		free_view(&v);
		return rc;
	}
	static const char *heads[] = { "NODE", "PORT", "LID", "XMIT BYTES", "RCV BYTES", "XMIT PKTS", "RCV PKTS",
				       "ERRORS", "XMIT MB/s", "RCV MB/s", "XMIT WAIT" };
	struct table t;
	table_init(&t, 11, heads);
	size_t shown = 0;
	if (c->json)
		printf("[");
	for (size_t i = 0; i < v.n; i++) {
		const struct db_port_counters *r = &v.rows[i];
		if (argc == 2 && (r->node_guid != guid || (port && r->port != port)))
			continue;
		if (c->json) {
			printf("%s\n  ", shown ? "," : "");
			json_port_head(&v.f, r);
			printf(", \"time\": %.3f, \"seconds\": %.3f, \"saturated\": %s, ", r->time, r->seconds,
			       r->saturated ? "true" : "false");
			json_values("total", &r->total);
			printf(", ");
			json_values("last", &r->last);
			printf("}");
		} else if (argc == 2 && port) {
			print_one_port(&v.f, r);
		} else {
			char buf[24], ps[8], lid[8], xb[24], rb[24], xp[24], rp[24], er[24], xr[24], rr[24], xw[24];
			snprintf(ps, sizeof(ps), "%u", r->port);
			snprintf(lid, sizeof(lid), "%u", r->lid);
			snprintf(xb, sizeof(xb), "%" PRIu64, r->total.v[PC_XMIT_DATA] * 4);
			snprintf(rb, sizeof(rb), "%" PRIu64, r->total.v[PC_RCV_DATA] * 4);
			snprintf(xp, sizeof(xp), "%" PRIu64, r->total.v[PC_XMIT_PKTS]);
			snprintf(rp, sizeof(rp), "%" PRIu64, r->total.v[PC_RCV_PKTS]);
			snprintf(er, sizeof(er), "%" PRIu64, error_sum(&r->total));
			snprintf(xr, sizeof(xr), "%.3f", rate(r->last.v[PC_XMIT_DATA] * 4, r->seconds) / 1e6);
			snprintf(rr, sizeof(rr), "%.3f", rate(r->last.v[PC_RCV_DATA] * 4, r->seconds) / 1e6);
			snprintf(xw, sizeof(xw), "%" PRIu64, r->total.v[PC_XMIT_WAIT]);
			table_row(&t, ctl_node_name(&v.f, r->node_guid, buf, sizeof(buf)), ps, lid, xb, rb, xp, rp, er, xr,
				  rr, xw);
		}
		shown++;
	}
	if (c->json)
		printf("%s]\n", shown ? "\n" : "");
	else if (!(argc == 2 && port))
		table_print(&t, stdout);
	table_free(&t);
	free_view(&v);
	if (!shown && !c->json)
		fprintf(stderr, "fabricctl counters: no counters stored%s (is perf.interval 0?)\n",
			argc == 2 ? " for that port" : "");
	return shown ? EXIT_OK : EXIT_NOT_FOUND;
}

/* --top N: 1..100000, or the default. */
static int parse_top(const char *cmd, const char *arg, size_t *top)
{
	char *end;
	long n = strtol(arg, &end, 10);
	if (*end || n < 1 || n > 100000) {
		fprintf(stderr, "fabricctl %s: --top needs a number from 1 to 100000, not '%s'\n", cmd, arg);
		return EXIT_USAGE;
	}
	*top = (size_t)n;
	return EXIT_OK;
}

/* --since T (Unix seconds, or -SECONDS ago) into *since. */
static int parse_since(const char *cmd, const char *arg, double *since)
{
	char *end;
	*since = strtod(arg, &end);
	if (*end || end == arg) {
		fprintf(stderr, "fabricctl %s: --since needs Unix seconds (or -SECONDS ago), not '%s'\n", cmd, arg);
		return EXIT_USAGE;
	}
	if (*since < 0)
		*since += (double)time(NULL);
	return EXIT_OK;
}

struct error_row {
	uint64_t guid;
	uint8_t port;
	double seconds;
	struct pc_values sum;
};

struct error_rows {
	struct error_row *r;
	size_t n, cap;
	bool oom;
};

static void add_row(struct error_rows *rows, uint64_t guid, uint8_t port, double seconds, const struct pc_values *sum)
{
	if (rows->n == rows->cap) {
		size_t cap = rows->cap ? rows->cap * 2 : 64;
		struct error_row *more = realloc(rows->r, cap * sizeof(*more));
		if (!more) {
			rows->oom = true;
			return;
		}
		rows->r = more;
		rows->cap = cap;
	}
	rows->r[rows->n++] = (struct error_row){ guid, port, seconds, *sum };
}

static void collect_errors(void *arg, uint64_t guid, uint8_t port, double seconds, const struct pc_values *sum)
{
	if (error_sum(sum))
		add_row(arg, guid, port, seconds, sum);
}

static int by_errors(const void *a, const void *b)
{
	uint64_t x = error_sum(&((const struct error_row *)a)->sum), y = error_sum(&((const struct error_row *)b)->sum);
	return x < y ? 1 : x > y ? -1 : 0;
}

/* The error counters that moved, "symbol_errors 100, link_downed 2". */
static void error_text(const struct pc_values *v, char *out, size_t len)
{
	size_t at = 0;
	out[0] = 0;
	for (int c = 0; c < PC_FIRST_DATA && at < len; c++)
		if (v->v[c])
			at += (size_t)snprintf(out + at, len - at, "%s%s %" PRIu64, at ? ", " : "", pc_name(c), v->v[c]);
}

/* A ranking's options (--since T, --top N), the stored counters and the ranked ports. */
struct ranking {
	double since;
	size_t top;
	struct counters_view v;
	struct error_rows rows;
};

/*
 * Reads cmd's options (since defaults to default_ago seconds ago), the
 * stored counters, and the ports collect keeps from the sums since then,
 * ordered by cmp. EXIT_OK, or the exit code (with the error printed).
 */
static int rank(struct ctl *c, const char *cmd, int argc, char **argv, double default_ago,
		void (*collect)(void *, uint64_t, uint8_t, double, const struct pc_values *),
		int (*cmp)(const void *, const void *), struct ranking *r)
{
	memset(r, 0, sizeof(*r));
	r->since = (double)time(NULL) - default_ago;
	r->top = 20;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--since") == 0 && i + 1 < argc) {
			if (parse_since(cmd, argv[++i], &r->since) != EXIT_OK)
				return EXIT_USAGE;
		} else if (strcmp(argv[i], "--top") == 0 && i + 1 < argc) {
			if (parse_top(cmd, argv[++i], &r->top) != EXIT_OK)
				return EXIT_USAGE;
		} else {
			fprintf(stderr, "fabricctl %s: expected [--since T] [--top N], not '%s'\n", cmd, argv[i]);
			return EXIT_USAGE;
		}
	}
	int rc = load_view(c, &r->v);
	if (rc)
		return rc;
	if (db_perf_sums(c->db, r->since, collect, &r->rows) < 0 || r->rows.oom) {
		fprintf(stderr, "fabricctl: %s\n", r->rows.oom ? "out of memory" : db_last_error(c->db));
		free(r->rows.r);
		free_view(&r->v);
		return EXIT_DB;
	}
	if (r->rows.n)	/* qsort must not see the NULL of an empty array */
		qsort(r->rows.r, r->rows.n, sizeof(*r->rows.r), cmp);
	return EXIT_OK;
}

static void ranking_free(struct ranking *r)
{
	free(r->rows.r);
	free_view(&r->v);
}

int cmd_errors(struct ctl *c, int argc, char **argv)
{
	struct ranking r;
	int rc = rank(c, "errors", argc, argv, 86400, collect_errors, by_errors, &r);
	if (rc)
		return rc;
	static const char *heads[] = { "NODE", "PORT", "ERRORS", "BER (est.)", "WHICH" };
	struct table t;
	table_init(&t, 5, heads);
	if (c->json)
		printf("[");
	for (size_t i = 0; i < r.rows.n && i < r.top; i++) {
		const struct error_row *e = &r.rows.r[i];
		char buf[24];
		double ber = pc_ber(e->sum.v[PC_SYMBOL_ERRORS], port_gbps(&r.v.f, e->guid, e->port), e->seconds);
		if (c->json) {
			printf("%s\n  {\"node\": ", i ? "," : "");
			json_string(stdout, ctl_node_name(&r.v.f, e->guid, buf, sizeof(buf)));
			printf(", \"node_guid\": \"0x%016" PRIx64 "\", \"port\": %u, \"seconds\": %.3f, \"errors\": %" PRIu64
			       ", \"ber\": %.3e, ", e->guid, e->port, e->seconds, error_sum(&e->sum), ber);
			json_values("delta", &e->sum);
			printf("}");
		} else {
			char ps[8], es[24], bs[24], which[512];
			snprintf(ps, sizeof(ps), "%u", e->port);
			snprintf(es, sizeof(es), "%" PRIu64, error_sum(&e->sum));
			snprintf(bs, sizeof(bs), "%.1e", ber);
			error_text(&e->sum, which, sizeof(which));
			table_row(&t, ctl_node_name(&r.v.f, e->guid, buf, sizeof(buf)), ps, es, bs, which);
		}
	}
	if (c->json)
		printf("%s]\n", r.rows.n ? "\n" : "");
	else if (r.rows.n)
		table_print(&t, stdout);
	else
		printf("no port counted an error since %.0f\n", r.since);
	table_free(&t);
	ranking_free(&r);
	return EXIT_OK;
}

/* XmitWait share of a port's sums: wait ticks / (wait ticks + data words sent). */
static double wait_share(const struct pc_values *v)
{
	uint64_t w = v->v[PC_XMIT_WAIT], d = v->v[PC_XMIT_DATA];
	return w + d ? (double)w / (double)(w + d) : 0;
}

static int by_wait(const void *a, const void *b)
{
	double x = wait_share(&((const struct error_row *)a)->sum), y = wait_share(&((const struct error_row *)b)->sum);
	return x < y ? 1 : x > y ? -1 : 0;
}

static void collect_waits(void *arg, uint64_t guid, uint8_t port, double seconds, const struct pc_values *sum)
{
	struct error_rows *rows = arg;
	if (sum->v[PC_XMIT_WAIT])
		add_row(rows, guid, port, seconds, sum);
}

int cmd_congestion(struct ctl *c, int argc, char **argv)
{
	struct ranking rk;
	int rc = rank(c, "congestion", argc, argv, 300, collect_waits, by_wait, &rk);
	if (rc)
		return rc;
	static const char *heads[] = { "NODE", "PORT", "WAIT SHARE", "WAIT TICKS/s", "XMIT MB/s" };
	struct table t;
	table_init(&t, 5, heads);
	if (c->json)
		printf("[");
	for (size_t i = 0; i < rk.rows.n && i < rk.top; i++) {
		const struct error_row *r = &rk.rows.r[i];
		char buf[24];
		if (c->json) {
			printf("%s\n  {\"node\": ", i ? "," : "");
			json_string(stdout, ctl_node_name(&rk.v.f, r->guid, buf, sizeof(buf)));
			printf(", \"node_guid\": \"0x%016" PRIx64 "\", \"port\": %u, \"seconds\": %.3f, \"xmit_wait\": %" PRIu64
			       ", \"xmit_data\": %" PRIu64 ", \"wait_share\": %.6f}", r->guid, r->port, r->seconds,
			       r->sum.v[PC_XMIT_WAIT], r->sum.v[PC_XMIT_DATA], wait_share(&r->sum));
		} else {
			char ps[8], sh[16], wt[24], xr[24];
			snprintf(ps, sizeof(ps), "%u", r->port);
			snprintf(sh, sizeof(sh), "%.1f %%", 100 * wait_share(&r->sum));
			snprintf(wt, sizeof(wt), "%.0f", rate(r->sum.v[PC_XMIT_WAIT], r->seconds));
			snprintf(xr, sizeof(xr), "%.3f", rate(r->sum.v[PC_XMIT_DATA] * 4, r->seconds) / 1e6);
			table_row(&t, ctl_node_name(&rk.v.f, r->guid, buf, sizeof(buf)), ps, sh, wt, xr);
		}
	}
	if (c->json)
		printf("%s]\n", rk.rows.n ? "\n" : "");
	else if (rk.rows.n)
		table_print(&t, stdout);
	else
		printf("no port waited for credits since %.0f\n", rk.since);
	table_free(&t);
	ranking_free(&rk);
	return EXIT_OK;
}
