/*
 * Fuzz target: everything fabricd does with a MAD a host sends its port.
 * Each input is a source LID (2 bytes), a directed-route flag (1 byte)
 * and the MAD (up to 256 bytes, zero-padded), handed to the handler the
 * MAD transport calls for every unsolicited MAD: SA queries and changes
 * (any attribute, method, component mask; RMPP control), SMInfo Get and
 * Set, traps. The fabric is a 2-level radix-8 fat tree routed by the real
 * engine, with fabricd its master and an SM_Key configured.
 *
 * The port is faked at link time (-Wl,--wrap=mad_..., see CMakeLists):
 * what fabricd would send is dropped, as if every answer were lost. The
 * timers (multicast programming, RMPP, HA polls) never fire: the event
 * loop does not run.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sm/log.h"
#include "fuzz_file.h"
#include "master.h"

/* --- the fake port: what the library calls instead of sm/mad/mad.c --- */

static mad_request_fn handler;
static void *handler_arg;
static const struct mad_stats no_stats;

void __wrap_mad_on_request(struct mad_port *mp, mad_request_fn fn, void *arg)
{
	(void)mp;
	handler = fn;
	handler_arg = arg;
}

void __wrap_mad_set_sl_lookup(struct mad_port *mp, uint8_t (*sl_of)(void *ctx, uint16_t dlid), void *ctx)
{
	(void)mp;
	(void)sl_of;
	(void)ctx;
}

uint64_t __wrap_mad_port_guid(const struct mad_port *mp)
{
	(void)mp;
	return 0x100000;	/* the first CA's port: fabricd runs there */
}

int __wrap_mad_port_num(const struct mad_port *mp)
{
	(void)mp;
	return 1;
}

const char *__wrap_mad_port_ca(const struct mad_port *mp)
{
	(void)mp;
	return "fuzz0";
}

const struct mad_stats *__wrap_mad_get_stats(const struct mad_port *mp)
{
	(void)mp;
	return &no_stats;
}

unsigned __wrap_mad_pending(const struct mad_port *mp)
{
	(void)mp;
	return 0;
}

int __wrap_mad_send_dr(struct mad_port *mp, uint8_t method, ib_net16_t attr, uint32_t mod, const uint8_t *path,
		       uint8_t hops, uint64_t mkey, const void *data, size_t len, mad_done_fn done, void *ctx)
{
	return -1;
}

int __wrap_mad_send_lid(struct mad_port *mp, uint8_t method, ib_net16_t attr, uint32_t mod, uint16_t dlid,
			uint64_t mkey, const void *data, size_t len, mad_done_fn done, void *ctx)
{
	return -1;
}

int __wrap_mad_send_gsi(struct mad_port *mp, const ib_sa_mad_t *mad, const struct mad_origin *to)
{
	return 0;
}

int __wrap_mad_respond(struct mad_port *mp, const ib_smp_t *req, const struct mad_origin *to, uint16_t status,
		       const void *data)
{
	return 0;
}

int __wrap_mad_send_report(struct mad_port *mp, uint16_t dlid, uint32_t qpn, const void *notice, size_t len,
			   mad_done_fn done, void *ctx)
{
	return -1;
}

int __wrap_mad_repress(struct mad_port *mp, const ib_smp_t *trap, const struct mad_origin *to)
{
	return 0;
}

/* --- the SM --- */

static struct sm *master(void)
{
	static struct sm sm;
	char err[DB_ERR_LEN];
	if (test_master_init(&sm) < 0)
		abort();
	sm.cfg.sm_key = 0x5eed;
	snprintf(sm.cfg.database, sizeof(sm.cfg.database), "%s", fuzz_file((const uint8_t *)"", 0, "fabricd.db"));
	unlink(sm.cfg.database);
	sm.db = db_open(sm.cfg.database, DB_READ_WRITE, err);
	if (!sm.db || ha_init(&sm) < 0)
		abort();
	mkeys_init(&sm.mkeys, &sm.cfg.mkey, NULL, 0);
	if (sched_init(&sm) < 0)	/* its timers never fire: the loop does not run */
		abort();
	budget_init(&sm.trap_budget, sm.cfg.trap_budget_per_minute);
	budget_init(&sm.sa.log_budget, 10);
	dispatch_attach(&sm);
	if (!handler)
		abort();
	return &sm;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	log_set_level(LOG_ERROR);	/* the refusals are the point, not the lines */
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sm *sm;
	if (!sm)
		sm = master();
	if (size < 3)
		return 0;
	struct mad_origin from = { .slid = (uint16_t)(data[0] << 8 | data[1]), .qpn = 1, .directed = data[2] & 1 };
	ib_smp_t mad;
	memset(&mad, 0, sizeof(mad));
	memcpy(&mad, data + 3, size - 3 < sizeof(mad) ? size - 3 : sizeof(mad));
	handler(handler_arg, &mad, &from);
	return 0;
}
