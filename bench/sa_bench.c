/*
 * sa-bench - PathRecord queries per second from one host port to the SM
 * it knows (the port's SM LID), with a window of queries in flight.
 * The same client for fabricd and for OpenSM, so the figures compare the
 * SAs, not the tools.
 *
 *   sa-bench [--queries N] [--window W] LID...
 *
 * Each query asks for the path between two of the given LIDs, cycling
 * through the pairs. Prints queries, answers, failures, seconds, answers
 * per second, and how long the answers took: the median, the 99th
 * percentile and the longest wait (an SA that stops answering while its
 * SM computes shows there).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/umad.h>
#include <iba/ib_types.h>

#include "sa_header.h"

#define QKEY 0x80010000	/* QP1's well-known Q_Key, host order */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int send_query(int fd, int agent, uint16_t sm_lid, uint64_t tid, uint16_t slid, uint16_t dlid)
{
	uint8_t buf[sizeof(struct ib_user_mad) + sizeof(ib_sa_mad_t)] = { 0 };
	struct ib_user_mad *umad = (struct ib_user_mad *)buf;
	ib_sa_mad_t *sa = (ib_sa_mad_t *)umad_get_mad(umad);
	sa_header(sa, IB_MAD_METHOD_GET, IB_MAD_ATTR_PATH_RECORD, tid);
	sa->comp_mask = IB_PR_COMPMASK_SLID | IB_PR_COMPMASK_DLID;
	ib_path_rec_t *pr = (ib_path_rec_t *)sa->data;
	pr->slid = cl_hton16(slid);
	pr->dlid = cl_hton16(dlid);
	umad_set_addr(umad, sm_lid, 1, 0, QKEY);
	return umad_send(fd, agent, umad, sizeof(ib_sa_mad_t), 0, 0);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "queries", required_argument, NULL, 'n' },
		{ "window", required_argument, NULL, 'w' },
		{ 0 },
	};
	unsigned long queries = 10000, window = 16;
	int o;
	while ((o = getopt_long(argc, argv, "n:w:", opts, NULL)) != -1) {
		if (o == 'n')
			queries = strtoul(optarg, NULL, 0);
		else if (o == 'w')
			window = strtoul(optarg, NULL, 0);
		else
			return 2;
	}
	int nlids = argc - optind;
	if (nlids < 2 || !queries || !window) {
		fprintf(stderr, "usage: sa-bench [--queries N] [--window W] LID LID...\n");
		return 2;
	}
	uint16_t *lids = calloc((size_t)nlids, sizeof(*lids));
	for (int i = 0; i < nlids; i++)
		lids[i] = (uint16_t)strtoul(argv[optind + i], NULL, 0);
	umad_port_t port;
	int fd, agent;
	if (umad_init() < 0 || umad_get_port(NULL, 0, &port) < 0 || (fd = umad_open_port(NULL, 0)) < 0 ||
	    (agent = umad_register(fd, IB_MCLASS_SUBN_ADM, 2, 0, NULL)) < 0) {
		fprintf(stderr, "sa-bench: cannot open a port with an SA agent\n");
		return 1;
	}
	uint16_t sm_lid = (uint16_t)port.sm_lid;
	unsigned long sent = 0, answered = 0, failed = 0, pair = 0, timed = 0;
	double *sent_at = calloc(queries + 1, sizeof(*sent_at)), *took = calloc(queries + 1, sizeof(*took));
	if (!sent_at || !took) {
		fprintf(stderr, "sa-bench: out of memory\n");
		return 1;
	}
	double t0 = now_s();
	while (answered + failed < queries) {
		while (sent < queries && sent - answered - failed < window) {
			uint16_t s = lids[pair % (unsigned long)nlids], d = lids[(pair / nlids + pair + 1) % (unsigned long)nlids];
			pair++;
			if (s == d)
				continue;
			sent_at[sent + 1] = now_s();
			if (send_query(fd, agent, sm_lid, sent + 1, s, d) < 0) {
				fprintf(stderr, "sa-bench: send failed\n");
				return 1;
			}
			sent++;
		}
		uint8_t buf[sizeof(struct ib_user_mad) + 2048];
		int len = sizeof(buf) - sizeof(struct ib_user_mad);
		if (umad_recv(fd, buf, &len, 5000) < 0) {
			fprintf(stderr, "sa-bench: no answer within 5 s (%lu of %lu answered)\n", answered, sent);
			return 1;
		}
		const ib_sa_mad_t *sa = umad_get_mad(buf);
		if (sa->mgmt_class != IB_MCLASS_SUBN_ADM || !(sa->method & IB_MAD_METHOD_RESP_MASK))
			continue;
		uint64_t tid = cl_ntoh64(sa->trans_id) & 0xffffffffu;	/* the agent's bits above: not ours */
		if (tid >= 1 && tid <= sent)
			took[timed++] = now_s() - sent_at[tid];
		if (sa->status)
			failed++;
		else
			answered++;
	}
	double s = now_s() - t0;
	qsort(took, timed, sizeof(*took), by_value);
	double median = timed ? took[timed / 2] : 0, p99 = timed ? took[timed * 99 / 100] : 0,
	       longest = timed ? took[timed - 1] : 0;
	printf("%lu queries, %lu answered, %lu failed, %.3f s, %.0f answers/s, answered in %.1f ms median, %.1f ms "
	       "p99, %.1f ms at most\n", sent, answered, failed, s, answered / s, median * 1e3, p99 * 1e3,
	       longest * 1e3);
	free(sent_at);
	free(took);
	return failed ? 1 : 0;
}
