/*
 * perf.h - counter sweeps: fabricd's PerfMgt client.
 *
 * Every perf.interval seconds a master reads every active port's counters
 * (LID-routed, through the SMPs' MAD window but never more than
 * perf.window at once, and never while a heavy sweep runs), resets the
 * error counters it read, keeps 64-bit totals and stores one sample per
 * port per sweep (db/perf.c). The totals it holds serve fabricctl (through
 * the database) and Prometheus (sm/metrics.c).
 */
#ifndef SM_PERF_PERF_H
#define SM_PERF_PERF_H

#include <stdbool.h>
#include <stddef.h>

#include "db/db.h"

struct sm;
struct perf;

/* One port as the last perf sweep left it. */
struct perf_port {
	struct db_port_counters c;
	double gbps;		/* the link's data rate when read, for the BER estimate */
	bool have_raw;		/* c.raw holds a reading: the next one makes a sample */
	bool fresh;		/* the last sweep made a sample of it: c.last is that interval */
};

/* Figures of the counter sweeps, for the log, status and metrics. */
struct perf_stats {
	unsigned sweeps;		/* finished */
	double last_unix;		/* when the last one finished; 0: none yet */
	double last_seconds;		/* how long it took */
	unsigned ports, unanswered;	/* ports read, ports whose agent did not answer, last sweep */
	unsigned store_failures;	/* sweeps whose samples waited for the next (database busy) */
};

/* Arms the first counter sweep (a master's, perf_interval from now); NULL if it cannot. */
struct perf *perf_new(struct sm *sm);
void perf_free(struct perf *p);
/* The interval changed (a reload): rearm. */
void perf_reconfigure(struct perf *p);
/* The ports the last sweeps read, by (node GUID, port). */
const struct perf_port *perf_ports(const struct perf *p, size_t *n);
const struct perf_stats *perf_get_stats(const struct perf *p);

#endif
