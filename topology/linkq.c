/*
 * DOC: link quality
 *
 * iblinkinfo's "Could be", from the PortInfo fields the sweep stores:
 * LinkWidthSupported of both ends (best of 12X, 8X, 4X, 2X, 1X, in that
 * order: 2X came last to the standard), LinkSpeedSupported (or, when both
 * nodes have IsExtendedSpeedsSupported, LinkSpeedExtSupported first).
 */
#include "topology/linkq.h"

#include <stdio.h>

static uint8_t best_width(uint8_t bits)
{
	static const uint8_t order[] = { 8, 4, 2, 16, 1 };	/* 12X 8X 4X 2X 1X */
	for (size_t i = 0; i < sizeof(order); i++)
		if (bits & order[i])
			return order[i];
	return 0;
}

static uint8_t highest_bit(uint8_t bits)
{
	uint8_t b = 0;
	for (unsigned i = 0; i < 8; i++)
		if (bits & (1u << i))
			b = (uint8_t)(1u << i);
	return b;
}

bool link_could_be(const struct node *n, uint8_t port, struct link_could_be *out)
{
	const struct port *a = &n->ports[port];
	*out = (struct link_could_be){ 0 };
	if (!a->remote || !a->width_supported)
		return false;
	const struct port *b = &a->remote->ports[a->remote_port];
	if (!b->width_supported)
		return false;
	out->width = best_width(a->width_supported & b->width_supported);
	out->narrower = out->width && !(out->width & a->width_active);
	uint8_t ext = a->ext_speeds && b->ext_speeds ? highest_bit(a->speed_ext_supported & b->speed_ext_supported) : 0;
	if (ext) {
		out->speed_ext = ext;
		out->slower = !(ext & a->speed_ext_active);
	} else {
		out->speed = highest_bit(a->speed_supported & b->speed_supported);
		out->slower = out->speed && !(out->speed & a->speed_active);
	}
	return true;
}

const char *link_width_text(uint8_t w)
{
	switch (w) {
	case 1: return "1X";
	case 2: return "4X";
	case 4: return "8X";
	case 8: return "12X";
	case 16: return "2X";
	default: return "?";
	}
}

const char *link_speed_text(uint8_t speed, uint8_t ext)
{
	switch (ext) {
	case 1: return "14.0625 Gbps";
	case 2: return "25.78125 Gbps";
	case 4: return "53.125 Gbps";
	case 8: return "106.25 Gbps";
	case 16: return "212.5 Gbps";
	default: break;
	}
	switch (speed) {
	case 1: return "2.5 Gbps";
	case 2: return "5.0 Gbps";
	case 4: return "10.0 Gbps";
	default: return "?";
	}
}

void link_could_be_text(const struct link_could_be *c, char *out, size_t len)
{
	snprintf(out, len, "%s%s%s%s%s", c->narrower ? "Could be " : "", c->narrower ? link_width_text(c->width) : "",
		 c->narrower && c->slower ? " " : "", c->slower ? "Could be " : "",
		 c->slower ? link_speed_text(c->speed, c->speed_ext) : "");
}
