/*
 * perf-day: a simulated day of counter samples in a fabricd database.
 *
 *   perf-day DB PORTS [INTERVAL_S [KEEP_HOURS [MAX_DB_MB]]]
 *
 * Stores 24 h of perf sweeps (one every INTERVAL_S, default 60) of PORTS
 * ports through db_save_perf, as fabricd does: every port moves data,
 * one in a hundred counts a few errors, one in twenty waits for credits.
 * Prints the database size at the end and the time a save took (mean and
 * worst): what docs/benchmarks.md quotes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "db/db.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: perf-day DB PORTS [INTERVAL_S [KEEP_HOURS [MAX_DB_MB]]]\n");
		return 2;
	}
	size_t n = strtoul(argv[2], NULL, 10);
	unsigned interval = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 60;
	unsigned keep = argc > 4 ? (unsigned)strtoul(argv[4], NULL, 10) : 24;
	unsigned max_mb = argc > 5 ? (unsigned)strtoul(argv[5], NULL, 10) : 512;
	char err[DB_ERR_LEN];
	struct db *db = db_open(argv[1], DB_READ_WRITE, err);
	if (!db || !n || !interval) {
		fprintf(stderr, "perf-day: %s\n", db ? "PORTS and INTERVAL_S must be positive" : err);
		return 1;
	}
	db_set_retention(db, &(struct db_retention){ .sweeps = 1000, .events = 10000, .days = 90,
						     .perf_hours = keep, .perf_max_mb = max_mb });
	struct db_port_counters *ports = calloc(n, sizeof(*ports));
	struct db_perf_sample *samples = calloc(n, sizeof(*samples));
	if (!ports || !samples)
		return 1;
	srand(1);
	double start = 1.8e9, worst = 0, sum = 0;
	unsigned sweeps = 86400 / interval;
	for (unsigned k = 0; k < sweeps; k++) {
		double t = start + (double)k * interval;
		for (size_t i = 0; i < n; i++) {
			struct db_perf_sample *s = &samples[i];
			*s = (struct db_perf_sample){ .node_guid = 0x200000 + i / 36, .port = (uint8_t)(1 + i % 36),
						      .seconds = interval };
			s->delta.v[PC_XMIT_DATA] = 1000000 + (uint64_t)(rand() % 1000000);
			s->delta.v[PC_RCV_DATA] = 1000000 + (uint64_t)(rand() % 1000000);
			s->delta.v[PC_XMIT_PKTS] = s->delta.v[PC_XMIT_DATA] / 1024;
			s->delta.v[PC_RCV_PKTS] = s->delta.v[PC_RCV_DATA] / 1024;
			if (i % 100 == 0)
				s->delta.v[PC_SYMBOL_ERRORS] = (uint64_t)(rand() % 5);
			if (i % 20 == 0)
				s->delta.v[PC_XMIT_WAIT] = (uint64_t)(rand() % 100000);
			ports[i].node_guid = s->node_guid;
			ports[i].port = s->port;
			ports[i].time = t;
			ports[i].seconds = interval;
			ports[i].last = s->delta;
			for (int c = 0; c < PC_COUNT; c++)
				ports[i].total.v[c] += s->delta.v[c];
		}
		double t0 = now_s();
		if (db_save_perf(db, t, ports, n, samples, n, NULL, 0) < 0) {
			fprintf(stderr, "perf-day: %s\n", db_last_error(db));
			return 1;
		}
		double took = now_s() - t0;
		sum += took;
		if (took > worst)
			worst = took;
	}
	db_close(db);
	struct stat st;
	if (stat(argv[1], &st) < 0)
		return 1;
	printf("ports %zu interval_s %u keep_hours %u max_db_mb %u sweeps %u db_mb %.1f save_mean_ms %.1f save_worst_ms %.1f\n",
	       n, interval, keep, max_mb, sweeps, (double)st.st_size / 1048576.0, 1000 * sum / sweeps, 1000 * worst);
	free(ports);
	free(samples);
	return 0;
}
