/*
 * linkq.h - link quality: does a link run as wide and as fast as both
 * its ends can? The rule is iblinkinfo's "Could be": the widest width and
 * the fastest speed both ends support (extended speeds, FDR and up, when
 * both ends' nodes say they have them), against what the port runs.
 */
#ifndef TOPOLOGY_LINKQ_H
#define TOPOLOGY_LINKQ_H

#include <stdbool.h>
#include <stdint.h>

#include "topology/fabric.h"

struct link_could_be {
	uint8_t width;		/* PortInfo width bit both ends support at best; 0: unknown */
	uint8_t speed;		/* LinkSpeed bit, or 0 when ext_speed says */
	uint8_t speed_ext;	/* LinkSpeedExt bit both support at best; 0: none */
	bool narrower, slower;	/* the port runs below that */
};

/* (n, port)'s link against what both ends could do; false if it is not cabled or the ends' abilities are unknown. */
bool link_could_be(const struct node *n, uint8_t port, struct link_could_be *out);
/* "4X", "12X" */
const char *link_width_text(uint8_t width_bit);
/* "10.0 Gbps", "25.78125 Gbps": a lane's signalling rate, as iblinkinfo prints it */
const char *link_speed_text(uint8_t speed_bit, uint8_t speed_ext_bit);
/* "Could be 12X Could be 10.0 Gbps" (iblinkinfo's words), "" when neither. */
void link_could_be_text(const struct link_could_be *c, char *out, size_t len);

#endif
