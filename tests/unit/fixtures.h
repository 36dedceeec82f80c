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

#endif
