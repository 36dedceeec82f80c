/*
 * DOC: management keys
 *
 * Every CA port gets its own M_Key, keyed by its port GUID; a switch has
 * one, on port 0, keyed by its node GUID. Derived keys are SipHash-2-4 of
 * that GUID under a 128-bit key that is itself the
 * SipHash of the configured secret: nothing to store, the same after any
 * restart, and no key reveals the secret or another node's key. Random
 * keys come from getrandom() and live in the database; fabricd stores a
 * new key before any port is given it (sweep.c), so a crash can never
 * leave a port locked with a key nobody knows.
 */
#include "sm/sweep/mkey.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static void sip_round(uint64_t v[4])
{
	v[0] += v[1]; v[1] = ROTL(v[1], 13); v[1] ^= v[0]; v[0] = ROTL(v[0], 32);
	v[2] += v[3]; v[3] = ROTL(v[3], 16); v[3] ^= v[2];
	v[0] += v[3]; v[3] = ROTL(v[3], 21); v[3] ^= v[0];
	v[2] += v[1]; v[1] = ROTL(v[1], 17); v[1] ^= v[2]; v[2] = ROTL(v[2], 32);
}

uint64_t mkey_siphash(uint64_t k0, uint64_t k1, const uint8_t *in, size_t len)
{
	uint64_t v[4] = { k0 ^ 0x736f6d6570736575ULL, k1 ^ 0x646f72616e646f6dULL, k0 ^ 0x6c7967656e657261ULL,
			  k1 ^ 0x7465646279746573ULL };
	size_t whole = len - len % 8;
	for (size_t i = 0; i < whole; i += 8) {
		uint64_t m = 0;
		for (unsigned b = 0; b < 8; b++)
			m |= (uint64_t)in[i + b] << (8 * b);
		v[3] ^= m;
		sip_round(v);
		sip_round(v);
		v[0] ^= m;
	}
	uint64_t last = (uint64_t)len << 56;
	for (size_t b = 0; b < len % 8; b++)
		last |= (uint64_t)in[whole + b] << (8 * b);
	v[3] ^= last;
	sip_round(v);
	sip_round(v);
	v[0] ^= last;
	v[2] ^= 0xff;
	for (unsigned r = 0; r < 4; r++)
		sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

uint64_t mkey_derive(const char *secret, uint64_t guid)
{
	size_t len = strlen(secret);
	uint64_t k0 = mkey_siphash(0x66616272696364ULL, 1, (const uint8_t *)secret, len);	/* "fabricd" */
	uint64_t k1 = mkey_siphash(0x66616272696364ULL, 2, (const uint8_t *)secret, len);
	uint8_t g[8];
	for (unsigned b = 0; b < 8; b++)
		g[b] = (uint8_t)(guid >> (8 * b));
	uint64_t key = mkey_siphash(k0, k1, g, sizeof(g));
	return key ? key : 1;
}

static int cmp_guid(const void *a, const void *b)
{
	uint64_t x = ((const struct db_mkey *)a)->guid, y = ((const struct db_mkey *)b)->guid;
	return x < y ? -1 : x > y;
}

int mkeys_init(struct mkeys *m, const struct mkey_config *cfg, const struct db_mkey *stored, size_t n)
{
	memset(m, 0, sizeof(*m));
	m->cfg = *cfg;
	if (!n)
		return 0;
	if (!(m->e = malloc(n * sizeof(*m->e))))
		return -1;
	memcpy(m->e, stored, n * sizeof(*m->e));
	m->n = m->cap = n;
	qsort(m->e, n, sizeof(*m->e), cmp_guid);
	return 0;
}

void mkeys_free(struct mkeys *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}

uint64_t mkeys_peek(const struct mkeys *m, uint64_t guid)
{
	if (!m->cfg.enabled)
		return 0;
	if (!m->cfg.random)
		return mkey_derive(m->cfg.secret, guid);
	struct db_mkey want = { guid, 0 };
	const struct db_mkey *have = m->n ? bsearch(&want, m->e, m->n, sizeof(*m->e), cmp_guid) : NULL;
	return have ? have->mkey : 0;
}

uint64_t mkeys_key(struct mkeys *m, uint64_t guid, bool *failed)
{
	uint64_t key = mkeys_peek(m, guid);
	if (key || !m->cfg.enabled || !m->cfg.random)
		return key;
	if (m->n == m->cap) {
		struct db_mkey *more = realloc(m->e, (m->cap = m->cap * 2 + 16) * sizeof(*more));
		if (!more) {
			*failed = true;
			return 0;
		}
		m->e = more;
	}
	if (getrandom(&key, sizeof(key), 0) != sizeof(key) || !key) {
		*failed = true;
		return 0;
	}
	/* keep the array sorted: shift the larger GUIDs up one */
	size_t at = m->n;
	while (at > 0 && m->e[at - 1].guid > guid) {
		m->e[at] = m->e[at - 1];
		at--;
	}
	m->e[at] = (struct db_mkey){ guid, key };
	m->n++;
	m->fresh++;
	return key;
}

int mkeys_take_fresh(struct mkeys *m, struct db_mkey **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!m->fresh)
		return 0;
	/* fresh keys are not marked: storing all of them again is harmless (INSERT OR REPLACE) */
	if (!(*out = malloc(m->n * sizeof(**out))))
		return -1;
	memcpy(*out, m->e, m->n * sizeof(**out));
	*n = m->n;
	m->fresh = 0;
	return 0;
}
