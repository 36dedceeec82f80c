/*
 * reregister.h - asking the hosts' SA clients to register again and to
 * forget the PathRecords they cached (PortInfo ClientReregister).
 */
#ifndef SM_REREGISTER_H
#define SM_REREGISTER_H

#include "sm/sweep/configure.h"

/*
 * Sets ClientReregister in the PortInfo of every active CA port whose
 * CapabilityMask offers it; done(arg, result) when all are answered.
 * -1 on allocation failure (done is not called).
 */
int rereg_clients(struct mad_port *mp, const struct fabric *f, const struct cfg_params *p, cfg_done_fn done,
		  void *arg);

/* Active CA ports whose CapabilityMask does not offer ClientReregister: they cannot be asked. */
unsigned rereg_unable(const struct fabric *f);

#endif
