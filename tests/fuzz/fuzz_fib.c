/*
 * Fuzz target: fabricctl plan fib's FIB reader (topology/fibfile.c) and
 * proof (routing/roce_fib.c). Each input is both switches' FIB (what
 * `ip -j route show` would print) over a fixed two-leaf plan, once with
 * the link up and once with it down.
 */
#include "routing/roce_fib.h"
#include "fuzz_file.h"

#include <libgen.h>
#include <string.h>

/* A leaf's plan: its prefix connected, the other's through swp2 to the other leaf. */
static void write_leaf(const char *dir, int me)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/L%d.json", dir, me);
	FILE *f = fopen(path, "w");
	if (!f)
		abort();
	fprintf(f, "{\"format\": \"fabricd-roce-plan 1\", \"fabric\": \"two\", \"switch\": \"L%d\", \"tier\": 0, "
		   "\"asn\": %d, \"mtu\": 9216, \"ports\": ["
		   "{\"name\": \"swp1\", \"host\": true, \"speed_gbps\": 100, \"cable_m\": 2, "
		   "\"pfc\": {\"priorities\": [3], \"headroom_bytes\": 999999}},"
		   "{\"name\": \"swp2\", \"peer\": \"L%d\", \"peer_port\": \"swp2\", \"speed_gbps\": 100, \"cable_m\": 2, "
		   "\"pfc\": {\"priorities\": [3], \"headroom_bytes\": 999999}}],"
		   "\"qos\": {\"lossless_priorities\": [3]},"
		   "\"next_hop_groups\": [{\"id\": 0, \"next_hops\": [{\"port\": \"swp2\", \"neighbour\": \"L%d\"}]}],"
		   "\"routes\": [{\"prefix\": \"10.0.%d.0/24\", \"class\": \"hosts\", \"connected\": true},"
		   "{\"prefix\": \"10.0.%d.0/24\", \"class\": \"hosts\", \"group\": 0}]}\n",
		me, 65001 + me, !me, !me, me, !me);
	if (fclose(f) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char err[PLANFILE_ERR_LEN];
	static struct roce_fib_report r;
	struct roce_planfiles pf;
	struct fib_table fib[2] = { 0 };
	char dir[128];
	snprintf(dir, sizeof(dir), "%s", fuzz_file(data, size, "fib.routes"));
	dirname(dir);
	write_leaf(dir, 0);
	write_leaf(dir, 1);
	char path[256];
	snprintf(path, sizeof(path), "%s/fib.routes", dir);
	if (planfiles_load(dir, &pf, err) < 0)
		abort();	/* the fixed plan must load: the fuzz input is not part of it */
	for (int s = 0; s < 2; s++)
		fibfile_load(path, &fib[s], err, sizeof(err));
	for (int down = 0; down < 2; down++) {
		bool link_down[1] = { down };
		roce_fib_prove(&pf, fib, link_down, &r);
	}
	fibfile_free(&fib[0]);
	fibfile_free(&fib[1]);
	planfiles_free(&pf);
	return 0;
}
