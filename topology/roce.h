/*
 * roce.h - an Ethernet (RoCE v2) fabric as the planner reads it from YAML:
 * switches in tiers, their ports and links, the prefixes behind each
 * switch, and the lossless traffic classes. The file format is in
 * docs/roce.md and roce_yaml.c.
 */
#ifndef TOPOLOGY_ROCE_H
#define TOPOLOGY_ROCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ROCE_NAME_LEN 48
#define ROCE_ADDR_LEN 64	/* "2001:db8::/48" or "10.0.0.1" */
#define ROCE_PRIOS 8
#define ROCE_DSCPS 64
#define ROCE_NONE SIZE_MAX
#define ROCE_ERR_LEN 512

struct roce_port {
	char name[ROCE_NAME_LEN];
	double gbps;		/* line rate */
	double cable_m;
	bool host;		/* faces hosts, not a switch */
	size_t peer_sw, peer_port;	/* the other end, ROCE_NONE for host ports */
};

struct roce_switch {
	char name[ROCE_NAME_LEN];
	unsigned tier;		/* 0: leaves; higher tiers are further up */
	uint32_t asn;		/* 0: none given */
	char loopback[ROCE_ADDR_LEN];	/* "" when none given */
	char (*prefixes)[ROCE_ADDR_LEN];	/* host prefixes behind this switch */
	size_t nprefixes;
	struct roce_port *ports;
	size_t nports;
	unsigned line;		/* where the file describes it */
};

struct roce_link {
	size_t a, pa, b, pb;	/* switch and port indexes of both ends */
	unsigned line;
};

struct roce_qos {
	uint8_t lossless[ROCE_PRIOS];	/* the priorities PFC protects */
	unsigned nlossless;
	uint8_t prio_of_dscp[ROCE_DSCPS];
	uint8_t cnp_prio, cnp_dscp;
	/* ECN marking; 0 means the defaults scaled by port speed (docs/roce.md) */
	double ecn_min_kb, ecn_max_kb, ecn_probability;
};

struct roce_fabric {
	char name[ROCE_NAME_LEN];
	unsigned mtu;		/* bytes, the largest frame on any port */
	struct roce_qos qos;
	struct roce_switch *sw;
	size_t nsw;
	struct roce_link *links;
	size_t nlinks;
};

/* Reads and checks path; 0, or -1 with "file:line: what" in err. */
int roce_load(const char *path, struct roce_fabric *rf, char err[ROCE_ERR_LEN]);
void roce_free(struct roce_fabric *rf);
/* Makes room for element n (zeroed) of the array *arr of size-byte elements; -1 on allocation failure. */
int roce_grow(void **arr, size_t n, size_t size);
/* The index of the switch called name, or ROCE_NONE. */
size_t roce_find_switch(const struct roce_fabric *rf, const char *name);
/* The index of sw's port called name, or ROCE_NONE. */
size_t roce_find_port(const struct roce_switch *sw, const char *name);
/* Adds a port (unlinked, not a host port); its index, or ROCE_NONE on allocation failure. */
size_t roce_add_port(struct roce_switch *sw, const char *name, double gbps, double cable_m);
/* prefix ("2001:db8:0::/48") as inet_ntop writes it ("2001:db8::/48"); false if it is none. */
bool roce_canonical_prefix(const char *prefix, char *out, size_t len);
/* True if s is an IPv4 or IPv6 address, with a /length when want_len, without host bits. */
bool roce_valid_addr(const char *s, bool want_len, char *why, size_t len);

#endif
