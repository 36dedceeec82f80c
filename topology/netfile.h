/*
 * netfile.h - the ibnetdiscover / ibsim topology file format.
 *
 * Reads the node records ibsim takes and ibnetdiscover prints; writes
 * ibnetdiscover-style output that both tools (and this reader) accept.
 */
#ifndef NETFILE_H
#define NETFILE_H

#include <stdio.h>
#include "topology/fabric.h"

#define NETFILE_ERR_LEN 512

/*
 * Parses path into f (initialised here). Returns 0, or -1 with
 * "file:line: what is wrong" in err. Nodes without GUID lines get GUIDs
 * numbered the way ibsim numbers them (CAs from 0x100000, switches from
 * 0x200000) so a file and the simulated fabric agree. LIDs in
 * ibnetdiscover comments ("base port 0 lid N" on a switch, "# lid N" on a
 * CA port) are read into the ports.
 */
int netfile_read(const char *path, struct fabric *f, char err[NETFILE_ERR_LEN]);
int netfile_read_stream(FILE *in, const char *name, struct fabric *f, char err[NETFILE_ERR_LEN]);

enum netfile_style {
	NETFILE_IBNETDISCOVER,	/* ids "S-<guid>"/"H-<guid>", GUID lines, descs in comments */
	NETFILE_IBSIM,		/* ids are node descriptions, no GUID lines */
};

/* Writes f; returns 0 or -1 on a write error. */
int netfile_write(FILE *out, const struct fabric *f, enum netfile_style style);
/* "4x"-style text for a PortInfo LinkWidthActive. */
const char *netfile_width_text(uint8_t w);
/* "4xQDR"-style link text for a port. */
const char *netfile_link_text(const struct port *p, char buf[16]);

#endif
