/*
 * fixtures.h - small fabrics the unit tests share.
 */
#ifndef TESTS_FIXTURES_H
#define TESTS_FIXTURES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sm/config.h"
#include "topology/fabric.h"

/*
 * Loads text as a configuration file over the defaults; on error, err
 * names the file "f.yaml" so tests can compare whole messages.
 */
static inline int load_config_text(const char *text, struct fabricd_config *c, char err[CONFIG_ERR_LEN])
{
	char path[] = "/tmp/fabricd-test-cfg.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
	config_defaults(c);
	int rc = config_load(path, c, err);
	if (rc < 0) {
		char *colon = strchr(err, ':');
		char tail[CONFIG_ERR_LEN - 8];
		snprintf(tail, sizeof(tail), "%.*s", (int)sizeof(tail) - 1, colon ? colon : err);
		snprintf(err, CONFIG_ERR_LEN, "f.yaml%s", tail);
	}
	unlink(path);
	return rc;
}

/* LIDs 1, 2, ... in node order: a switch's port 0, a CA's port 1. */
static inline void number_lids(struct fabric *f)
{
	uint16_t lid = 1;
	for (size_t i = 0; i < f->nnodes; i++)
		f->nodes[i]->ports[f->nodes[i]->type == NODE_SWITCH ? 0 : 1].lid = lid++;
}

/* sw's first port that leads to another switch (a leaf's first up-link); sw must have one. */
static inline uint8_t first_uplink(const struct node *sw)
{
	uint8_t up = 1;
	while (!sw->ports[up].remote || sw->ports[up].remote->type != NODE_SWITCH)
		up++;
	return up;
}

/* Five switches in a ring (port 1 clockwise, port 2 counter-clockwise), a CA on port 3 of each. */
static inline void ring(struct fabric *f)
{
	fabric_init(f);
	struct node *sw[5];
	char name[8];
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "R%d", i);
		sw[i] = fabric_add_node(f, NODE_SWITCH, 0x200000 + i, 4, name);
	}
	for (int i = 0; i < 5; i++) {
		fabric_link(sw[i], 1, sw[(i + 1) % 5], 2);
		snprintf(name, sizeof(name), "H%d", i);
		fabric_link(sw[i], 3, fabric_add_node(f, NODE_CA, 0x100000 + 2 * i, 1, name), 1);
	}
	number_lids(f);
}

/*
 * CA A (port GUID 0xa1, LID 1) - S1 (LID 2) - S2 (LID 3) - CA B (port GUID
 * 0xb1, LID 4), cabled A.1-S1.1, S1.4-S2.2, S2.3-B.1: where SMPs come from.
 */
static inline void ca_switch_switch_ca(struct fabric *f)
{
	fabric_init(f);
	struct node *a = fabric_add_node(f, NODE_CA, 0xa, 1, "A");
	struct node *s1 = fabric_add_node(f, NODE_SWITCH, 0x51, 8, "S1");
	struct node *s2 = fabric_add_node(f, NODE_SWITCH, 0x52, 8, "S2");
	struct node *b = fabric_add_node(f, NODE_CA, 0xb, 1, "B");
	a->ports[1].guid = 0xa1;
	b->ports[1].guid = 0xb1;
	a->ports[1].lid = 1;
	s1->ports[0].lid = 2;
	s2->ports[0].lid = 3;
	b->ports[1].lid = 4;
	if (fabric_link(a, 1, s1, 1) < 0 || fabric_link(s1, 4, s2, 2) < 0 || fabric_link(s2, 3, b, 1) < 0)
		abort();
}

#endif
