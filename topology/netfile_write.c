/*
 * DOC: net-file writer
 *
 * Prints a fabric the way ibnetdiscover does (GUID lines, "S-<guid>" and
 * "H-<guid>" ids, descriptions and LIDs in comments), or in ibsim's plain
 * style where ids are node descriptions. Both read back with netfile_read().
 */
#include "topology/netfile.h"

#include <inttypes.h>

const char *netfile_width_text(uint8_t w)
{
	switch (w) {
	case 1: return "1x";
	case 2: return "4x";
	case 4: return "8x";
	case 8: return "12x";
	case 16: return "2x";
	}
	return "?x";
}

static const char *speed_text(const struct port *p)
{
	switch (p->speed_ext_active) {
	case 1: return "FDR";
	case 2: return "EDR";
	case 4: return "HDR";
	case 8: return "NDR";
	}
	switch (p->speed_active) {
	case 1: return "SDR";
	case 2: return "DDR";
	case 4: return "QDR";
	}
	return "";
}

const char *netfile_link_text(const struct port *p, char buf[16])
{
	snprintf(buf, 16, "%s%s", netfile_width_text(p->width_active), speed_text(p));
	return buf;
}

static void write_id(FILE *out, const struct node *n, enum netfile_style style)
{
	if (style == NETFILE_IBSIM)
		fprintf(out, "\"%s\"", n->desc);
	else
		fprintf(out, "\"%s-%016" PRIx64 "\"", n->type == NODE_SWITCH ? "S" : "H", n->guid);
}

/* ibsim knows CAs only as "Hca"; ibnetdiscover prints "Ca". */
static const char *header_word(enum node_type t, enum netfile_style style)
{
	if (t == NODE_SWITCH)
		return "Switch";
	if (t == NODE_ROUTER)
		return "Rt";
	return style == NETFILE_IBSIM ? "Hca" : "Ca";
}

static void write_node(FILE *out, const struct node *n, enum netfile_style style)
{
	char link[16];
	if (style == NETFILE_IBNETDISCOVER) {
		fprintf(out, "vendid=0x%" PRIx32 "\ndevid=0x%x\nsysimgguid=0x%" PRIx64 "\n", n->vendor_id,
			n->device_id, n->sys_guid);
		if (n->type == NODE_SWITCH)
			fprintf(out, "switchguid=0x%" PRIx64 "(%" PRIx64 ")\n", n->guid, n->guid);
		else
			fprintf(out, "caguid=0x%" PRIx64 "\n", n->guid);
	}
	fprintf(out, "%s\t%u ", header_word(n->type, style), n->nports);
	write_id(out, n, style);
	if (style == NETFILE_IBNETDISCOVER) {
		fprintf(out, "\t\t# \"%s\"", n->desc);
		if (n->type == NODE_SWITCH)
			fprintf(out, " base port 0 lid %u lmc %u", n->ports[0].lid, n->ports[0].lmc);
	}
	fputc('\n', out);
	for (unsigned p = 1; p <= n->nports; p++) {
		const struct port *pt = &n->ports[p];
		if (!pt->remote)
			continue;
		const struct node *r = pt->remote;
		fprintf(out, "[%u]", p);
		if (style == NETFILE_IBNETDISCOVER && n->type != NODE_SWITCH)
			fprintf(out, "(%" PRIx64 ")", pt->guid);
		fputc('\t', out);
		write_id(out, r, style);
		fprintf(out, "[%u]", pt->remote_port);
		if (style == NETFILE_IBNETDISCOVER) {
			if (r->type != NODE_SWITCH)
				fprintf(out, "(%" PRIx64 ")", r->ports[pt->remote_port].guid);
			fprintf(out, "\t\t# ");
			if (n->type != NODE_SWITCH)
				fprintf(out, "lid %u lmc %u ", pt->lid, pt->lmc);
			fprintf(out, "\"%s\" lid %u %s", r->desc, fabric_port_lid(r, pt->remote_port),
				netfile_link_text(pt, link));
		}
		fputc('\n', out);
	}
	fputc('\n', out);
}

int netfile_write(FILE *out, const struct fabric *f, enum netfile_style style)
{
	if (style == NETFILE_IBNETDISCOVER)
		fprintf(out, "#\n# Topology file: written by fabricd\n#\n\n");
	for (size_t i = 0; i < f->nnodes; i++)
		write_node(out, f->nodes[i], style);
	return ferror(out) ? -1 : 0;
}
