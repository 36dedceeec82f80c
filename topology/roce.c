/*
 * DOC: the RoCE fabric model
 *
 * Switches own their ports in an array; a link names both ends by
 * (switch index, port index), and each linked port points back at its
 * peer. Ports are created as the file names them. Lookups by name are
 * linear: plans are computed once, on fabrics of a few thousand switches.
 */
#include "topology/roce.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void roce_free(struct roce_fabric *rf)
{
	for (size_t i = 0; i < rf->nsw; i++) {
		free(rf->sw[i].ports);
		free(rf->sw[i].prefixes);
	}
	free(rf->sw);
	free(rf->links);
	memset(rf, 0, sizeof(*rf));
}

size_t roce_find_switch(const struct roce_fabric *rf, const char *name)
{
	for (size_t i = 0; i < rf->nsw; i++)
		if (strcmp(rf->sw[i].name, name) == 0)
			return i;
	return ROCE_NONE;
}

size_t roce_find_port(const struct roce_switch *sw, const char *name)
{
	for (size_t i = 0; i < sw->nports; i++)
		if (strcmp(sw->ports[i].name, name) == 0)
			return i;
	return ROCE_NONE;
}

size_t roce_add_port(struct roce_switch *sw, const char *name, double gbps, double cable_m)
{
	struct roce_port *more = realloc(sw->ports, (sw->nports + 1) * sizeof(*more));
	if (!more)
		return ROCE_NONE;
	sw->ports = more;
	struct roce_port *p = &sw->ports[sw->nports];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->gbps = gbps;
	p->cable_m = cable_m;
	p->peer_sw = p->peer_port = ROCE_NONE;
	return sw->nports++;
}

bool roce_valid_addr(const char *s, bool want_len, char *why, size_t len)
{
	char addr[ROCE_ADDR_LEN];
	unsigned char bytes[16];
	const char *slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	if (alen >= sizeof(addr)) {
		snprintf(why, len, "'%s' is too long for an address", s);
		return false;
	}
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	bool v6 = strchr(addr, ':') != NULL;
	unsigned bits = v6 ? 128 : 32;
	if (inet_pton(v6 ? AF_INET6 : AF_INET, addr, bytes) != 1) {
		snprintf(why, len, "'%s' is not an IPv4 or IPv6 address", addr);
		return false;
	}
	if (!want_len) {
		if (slash && strtoul(slash + 1, NULL, 10) != bits) {
			snprintf(why, len, "'%s': a loopback is one address, without a prefix length", s);
			return false;
		}
		return true;
	}
	char *end;
	unsigned long plen = slash ? strtoul(slash + 1, &end, 10) : bits + 1;
	if (!slash || !slash[1] || *end || plen > bits) {
		snprintf(why, len, "'%s' needs a prefix length /0../%u", s, bits);
		return false;
	}
	for (unsigned b = (unsigned)plen; b < bits; b++)
		if (bytes[b / 8] & (0x80 >> (b % 8))) {
			snprintf(why, len, "'%s' has host bits set beyond /%lu", s, plen);
			return false;
		}
	return true;
}

bool roce_canonical_prefix(const char *prefix, char *out, size_t len)
{
	char why[128], addr[ROCE_ADDR_LEN], text[INET6_ADDRSTRLEN];
	unsigned char bytes[16];
	const char *slash = strchr(prefix, '/');
	if (!roce_valid_addr(prefix, true, why, sizeof(why)))
		return false;
	snprintf(addr, sizeof(addr), "%.*s", (int)(slash - prefix), prefix);
	bool v6 = strchr(addr, ':') != NULL;
	if (inet_pton(v6 ? AF_INET6 : AF_INET, addr, bytes) != 1 || !inet_ntop(v6 ? AF_INET6 : AF_INET, bytes, text, sizeof(text)))
		return false;
	snprintf(out, len, "%s/%lu", text, strtoul(slash + 1, NULL, 10));
	return true;
}

int roce_grow(void **arr, size_t n, size_t size)
{
	void *more = realloc(*arr, (n + 1) * size);
	if (!more)
		return -1;
	*arr = more;
	memset((char *)more + n * size, 0, size);
	return 0;
}
