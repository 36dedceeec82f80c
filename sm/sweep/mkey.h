/*
 * mkey.h - management keys: the M_Key fabricd gives each port, so that
 * SMPs carrying another key cannot change it, derived from a configured
 * secret or drawn at random and kept in the database.
 */
#ifndef SM_MKEY_H
#define SM_MKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/db.h"

#define MKEY_SECRET_LEN 128

struct mkey_config {
	bool enabled;
	bool random;		/* else derived from secret */
	char secret[MKEY_SECRET_LEN];
	unsigned protect;	/* M_KeyProtectBits, 1 or 2 (0: keys set, not enforced) */
	unsigned lease_s;	/* M_KeyLeasePeriod in seconds, 0: never expires */
};

struct mkeys {
	struct mkey_config cfg;
	struct db_mkey *e;	/* random keys by GUID, sorted */
	size_t n, cap;
	size_t fresh;		/* keys drawn since the last mkeys_take_fresh */
};

/* SipHash-2-4 (Aumasson and Bernstein) of len bytes under the 128-bit key (k0, k1). */
uint64_t mkey_siphash(uint64_t k0, uint64_t k1, const uint8_t *in, size_t len);
/* A port's key from secret: SipHash-2-4 of the GUID, keyed by the secret; never 0. */
uint64_t mkey_derive(const char *secret, uint64_t guid);
/* Starts m from cfg and the random keys stored (sorted by GUID or not); -1 on allocation failure. */
int mkeys_init(struct mkeys *m, const struct mkey_config *cfg, const struct db_mkey *stored, size_t n);
void mkeys_free(struct mkeys *m);
/*
 * The M_Key of port guid (a CA port's GUID, a switch's node GUID): 0 when keys are off; with random keys, the
 * stored one, or a new one drawn now (kept for mkeys_take_fresh). A draw
 * that fails gives 0 and *failed is set.
 */
uint64_t mkeys_key(struct mkeys *m, uint64_t guid, bool *failed);
/* The key of guid if there is one already; never draws. */
uint64_t mkeys_peek(const struct mkeys *m, uint64_t guid);
/* The keys drawn since the last call, in *out (malloc'ed; NULL when none); -1 on allocation failure. */
int mkeys_take_fresh(struct mkeys *m, struct db_mkey **out, size_t *n);

#endif
