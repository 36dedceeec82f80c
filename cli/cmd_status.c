/*
 * DOC: fabricctl status
 *
 * The newest sweep from the database. Exit 0 if it brought the subnet up
 * cleanly; 1 if it was degraded, failed, or none has run.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/fabricctl.h"
#include "cli/output.h"

int cmd_status(struct ctl *c, int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "fabricctl status: unexpected argument '%s'\n", argv[1]);
		return EXIT_USAGE;
	}
	struct db_sweep s;
	int found = db_last_sweep(c->db, &s);
	if (found < 0) {
		fprintf(stderr, "fabricctl: %s: %s\n", c->db_path, db_last_error(c->db));
		return EXIT_DB;
	}
	if (!found) {
		fprintf(stderr, "fabricctl: no sweep recorded yet in %s\n", c->db_path);
		return EXIT_NOT_FOUND;
	}
	char daemon[256], why[256];
	bool running = ctl_ask_daemon(c, "status", daemon, sizeof(daemon), why, sizeof(why)) == 0;
	char when[32];
	time_t t = (time_t)s.started;
	struct tm tm;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", localtime_r(&t, &tm));
	bool ok = strcmp(s.result, "ok") == 0;
	bool up = ok || strncmp(s.result, "degraded", 8) == 0;
	if (c->json) {
		printf("{\"sweep\": %lld, \"kind\": ", (long long)s.id);
		json_string(stdout, s.kind);
		printf(", \"started\": \"%s\", \"duration_ms\": %.0f, \"result\": ", when,
		       (s.finished - s.started) * 1000);
		json_string(stdout, s.result);
		printf(", \"subnet_up\": %s, \"nodes\": %u, \"switches\": %u, \"cas\": %u, \"links\": %u, "
		       "\"mads\": %llu, \"routing\": ", up ? "true" : "false", s.nodes, s.switches,
		       s.nodes - s.switches, s.links, (unsigned long long)s.mads);
		json_string(stdout, s.routing);
		printf(", \"vlarb\": ");
		json_string(stdout, s.vlarb);
		printf(", \"daemon\": %s}\n", running ? daemon : "null");
	} else {
		printf("subnet:     %s\n", ok ? "UP" : up ? "UP (degraded)" : "NOT UP");
		int pid;
		char state[16], sweeping[8];
		if (running && sscanf(daemon, "{\"pid\": %d, \"state\": \"%15[A-Z]\", \"sweeping\": %7[a-z]",
				      &pid, state, sweeping) == 3)
			printf("daemon:     running, pid %d, %s%s\n", pid, state,
			       strcmp(sweeping, "true") == 0 ? ", sweeping now" : "");
		else
			printf("daemon:     %s\n", running ? daemon : why);
		printf("last sweep: #%lld %s at %s, %.0f ms, %llu MADs\n", (long long)s.id, s.kind, when,
		       (s.finished - s.started) * 1000, (unsigned long long)s.mads);
		printf("result:     %s\n", s.result);
		printf("fabric:     %u switches, %u CAs, %u links\n", s.switches, s.nodes - s.switches,
		       s.links);
		if (s.routing[0])
			printf("routing:    %s\n", s.routing);
		if (s.vlarb[0])
			printf("VL arb:     %s\n", s.vlarb);
	}
	return ok ? EXIT_OK : EXIT_NOT_FOUND;
}
