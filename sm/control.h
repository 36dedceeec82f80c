/*
 * control.h - the daemon's control socket (a root-only unix socket).
 *
 * One request line per connection, one answer line back:
 *   "status"  -> {"version": "0.2.0", "pid": N, "state": "MASTER", "sweeping": false, "sweeps": N, ...}
 *   "resweep" -> "ok: sweep requested"
 * Anything else gets "error: unknown command".
 */
#ifndef SM_CONTROL_H
#define SM_CONTROL_H

#include "sm/sm.h"

struct control;

/* Listens on path (replacing a stale socket); NULL with a reason in err. */
struct control *control_open(struct sm *sm, const char *path, char err[256]);
void control_close(struct control *c);

#endif
