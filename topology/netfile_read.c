/*
 * DOC: net-file reader
 *
 * A net file is a list of node records separated by blank lines:
 *
 *   sysimgguid=0x...            optional GUID lines (ibnetdiscover)
 *   switchguid=0x...(...)  or  caguid=0x...
 *   Switch 36 "id"  # "description" ...
 *   [1] "other-id"[3]  w=4      one line per connected port
 *
 * Records may name nodes defined later, so the reader keeps every port
 * line with its file line number and links them once all nodes are known.
 * Each error names the file and line.
 */
#include "topology/netfile.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct pending_link {
	size_t node;		/* index of the node the line belongs to */
	unsigned port, rport;
	char rid[128];
	unsigned line;
};

struct parser {
	const char *file;
	unsigned line;
	char *err;
	struct fabric *f;
	char **ids;		/* ids[i] is the quoted id of f->nodes[i] */
	size_t nids;
	struct pending_link *links;
	size_t nlinks, links_cap;
	uint64_t next_ca_guid, next_sw_guid;
	uint64_t guid_line, sys_guid_line;	/* from GUID lines before a header */
	struct node *cur;
};

static int fail(struct parser *ps, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(ps->err, NETFILE_ERR_LEN, "%s:%u: ", ps->file, line);
	va_start(ap, fmt);
	vsnprintf(ps->err + n, NETFILE_ERR_LEN - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static char *skip_ws(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Reads "text" at *s into out; advances *s past the closing quote. */
static int read_quoted(char **s, char *out, size_t outlen)
{
	char *p = skip_ws(*s);
	if (*p != '"')
		return -1;
	char *end = strchr(p + 1, '"');
	if (!end || (size_t)(end - p - 1) >= outlen)
		return -1;
	memcpy(out, p + 1, (size_t)(end - p - 1));
	out[end - p - 1] = '\0';
	*s = end + 1;
	return 0;
}

/* Reads [n] at *s. */
static int read_port(char **s, unsigned *port)
{
	char *p = skip_ws(*s), *end;
	if (*p != '[')
		return -1;
	errno = 0;
	unsigned long v = strtoul(p + 1, &end, 10);
	if (end == p + 1 || *end != ']' || errno || v > 255)
		return -1;
	*port = (unsigned)v;
	*s = end + 1;
	return 0;
}

/* Skips an optional "(guid)" right after a port number. */
static void skip_paren(char **s)
{
	if (**s == '(') {
		char *end = strchr(*s, ')');
		if (end)
			*s = end + 1;
	}
}

static int find_id(const struct parser *ps, const char *id, size_t *idx)
{
	for (size_t i = 0; i < ps->nids; i++)
		if (strcmp(ps->ids[i], id) == 0) {
			*idx = i;
			return 0;
		}
	return -1;
}

static int parse_guid_line(struct parser *ps, char *line)
{
	char *eq = strchr(line, '=');
	char *end;
	errno = 0;
	uint64_t v = strtoull(eq + 1, &end, 0);
	if (end == eq + 1 || errno)
		return fail(ps, ps->line, "bad GUID value in '%s'", line);
	if (strncmp(line, "sysimgguid", 10) == 0)
		ps->sys_guid_line = v;
	else if (strncmp(line, "switchguid", 10) == 0 || strncmp(line, "caguid", 6) == 0 ||
		 strncmp(line, "routerguid", 10) == 0)
		ps->guid_line = v;
	/* vendid= and devid= carry nothing the model keeps */
	return 0;
}

static int parse_header(struct parser *ps, char *line)
{
	enum node_type type;
	char *s = line;
	if (strncmp(s, "Switch", 6) == 0) {
		type = NODE_SWITCH;
		s += 6;
	} else if (strncmp(s, "Hca", 3) == 0) {
		type = NODE_CA;
		s += 3;
	} else if (strncmp(s, "Ca", 2) == 0) {
		type = NODE_CA;
		s += 2;
	} else if (strncmp(s, "Rt", 2) == 0) {
		type = NODE_ROUTER;
		s += 2;
	} else {
		return fail(ps, ps->line, "unknown node type in '%s' (expected Switch, Hca, Ca or Rt)",
			    line);
	}
	char *end;
	errno = 0;
	long nports = strtol(s, &end, 10);
	if (end == s || errno || nports < 1 || nports > FABRIC_MAX_PORTS)
		return fail(ps, ps->line, "port count must be 1..%d", FABRIC_MAX_PORTS);
	s = end;
	char id[128], desc[128];
	if (read_quoted(&s, id, sizeof(id)) < 0)
		return fail(ps, ps->line, "node id must be a quoted string");
	size_t dup;
	if (find_id(ps, id, &dup) == 0)
		return fail(ps, ps->line, "node \"%s\" is defined twice", id);
	/* ibnetdiscover puts the node description in the comment: # "desc" */
	char *hash = strchr(s, '#');
	if (!hash || read_quoted(&(char *){hash + 1}, desc, sizeof(desc)) < 0)
		strcpy(desc, id);

	uint64_t guid = ps->guid_line;
	if (!guid) {
		if (type == NODE_SWITCH) {
			guid = ps->next_sw_guid++;
		} else {
			guid = ps->next_ca_guid;
			ps->next_ca_guid += (uint64_t)nports + 1;
		}
	}
	if (fabric_find_guid(ps->f, guid))
		return fail(ps, ps->line, "GUID 0x%016llx is used by two nodes", (unsigned long long)guid);
	struct node *n = fabric_add_node(ps->f, type, guid, (uint8_t)nports, desc);
	char *idcopy = strdup(id);
	char **ids = realloc(ps->ids, ps->f->nnodes * sizeof(*ids));
	if (!n || !idcopy || !ids) {
		free(idcopy);
		return fail(ps, ps->line, "out of memory");
	}
	ps->ids = ids;
	ps->ids[ps->nids++] = idcopy;
	if (ps->sys_guid_line)
		n->sys_guid = ps->sys_guid_line;
	ps->guid_line = ps->sys_guid_line = 0;
	ps->cur = n;
	/* ibnetdiscover: # "desc" base port 0 lid N (or "enhanced port 0") */
	const char *base = hash ? strstr(hash, " port 0 lid ") : NULL;
	if (base && type == NODE_SWITCH)
		n->ports[0].lid = (uint16_t)strtoul(base + strlen(" port 0 lid "), NULL, 0);
	return 0;
}

/* ibnetdiscover ends a port line's comment with the link ("4xQDR"): the port's active width and speed. */
static void read_link_text(const char *comment, struct port *p)
{
	static const struct { const char *name; uint8_t speed, ext; } speeds[] = {
		{ "SDR", 1, 0 }, { "DDR", 2, 0 }, { "QDR", 4, 0 }, { "FDR", 0, 1 }, { "EDR", 0, 2 }, { "HDR", 0, 4 },
		{ "NDR", 0, 8 },
	};
	const char *last = strrchr(comment, ' ');
	char speed[8];
	unsigned lanes;
	if (sscanf(last ? last + 1 : comment, "%ux%7s", &lanes, speed) != 2)
		return;
	uint8_t width = lanes == 1 ? 1 : lanes == 4 ? 2 : lanes == 8 ? 4 : lanes == 12 ? 8 : lanes == 2 ? 16 : 0;
	for (size_t i = 0; width && i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (strcmp(speed, speeds[i].name) == 0) {
			p->width_active = width;
			p->speed_active = speeds[i].speed ? speeds[i].speed : 4;
			p->speed_ext_active = speeds[i].ext;
		}
}

static int parse_port_line(struct parser *ps, char *line)
{
	if (!ps->cur)
		return fail(ps, ps->line, "port line outside a node record");
	struct pending_link l = { .node = ps->cur->index, .line = ps->line };
	char *s = line;
	if (read_port(&s, &l.port) < 0)
		return fail(ps, ps->line, "bad local port, expected [number]");
	if (l.port < 1 || l.port > ps->cur->nports)
		return fail(ps, ps->line, "port %u out of range 1..%u for \"%s\"", l.port,
			    ps->cur->nports, ps->ids[ps->cur->index]);
	skip_paren(&s);
	if (read_quoted(&s, l.rid, sizeof(l.rid)) < 0)
		return fail(ps, ps->line, "remote node id must be a quoted string");
	if (read_port(&s, &l.rport) < 0)
		return fail(ps, ps->line, "bad remote port, expected \"id\"[number]");
	/* ibnetdiscover: a CA port line's comment starts with the port's own LID */
	char *hash = strchr(s, '#');
	if (hash)
		read_link_text(hash, &ps->cur->ports[l.port]);
	if (hash && ps->cur->type != NODE_SWITCH) {
		hash = skip_ws(hash + 1);
		if (strncmp(hash, "lid ", 4) == 0)
			ps->cur->ports[l.port].lid = (uint16_t)strtoul(hash + 4, NULL, 0);
	}
	for (size_t i = 0; i < ps->nlinks; i++)
		if (ps->links[i].node == l.node && ps->links[i].port == l.port)
			return fail(ps, ps->line, "port %u of \"%s\" is listed twice", l.port,
				    ps->ids[l.node]);
	if (ps->nlinks == ps->links_cap) {
		size_t cap = ps->links_cap ? ps->links_cap * 2 : 256;
		struct pending_link *nl = realloc(ps->links, cap * sizeof(*nl));
		if (!nl)
			return fail(ps, ps->line, "out of memory");
		ps->links = nl;
		ps->links_cap = cap;
	}
	ps->links[ps->nlinks++] = l;
	return 0;
}

static int resolve_links(struct parser *ps)
{
	for (size_t i = 0; i < ps->nlinks; i++) {
		struct pending_link *l = &ps->links[i];
		struct node *a = ps->f->nodes[l->node];
		size_t ri;
		if (find_id(ps, l->rid, &ri) < 0)
			return fail(ps, l->line, "unknown node \"%s\"", l->rid);
		struct node *b = ps->f->nodes[ri];
		if (l->rport < 1 || l->rport > b->nports)
			return fail(ps, l->line, "port %u out of range 1..%u for \"%s\"", l->rport,
				    b->nports, l->rid);
		if (a == b && l->port == l->rport)
			return fail(ps, l->line, "port %u is linked to itself", l->port);
		if (fabric_link(a, (uint8_t)l->port, b, (uint8_t)l->rport) < 0) {
			const struct port *pa = &a->ports[l->port];
			const struct port *pb = &b->ports[l->rport];
			if (pa->remote && (pa->remote != b || pa->remote_port != l->rport))
				return fail(ps, l->line, "link mismatch: \"%s\"[%u] is already linked to \"%s\"[%u]",
					    ps->ids[l->node], l->port, ps->ids[pa->remote->index],
					    pa->remote_port);
			return fail(ps, l->line, "link mismatch: \"%s\"[%u] is already linked to \"%s\"[%u]",
				    l->rid, l->rport, ps->ids[pb->remote->index], pb->remote_port);
		}
	}
	return 0;
}

static void strip(char *line)
{
	size_t n = strlen(line);
	while (n && isspace((unsigned char)line[n - 1]))
		line[--n] = '\0';
}

int netfile_read_stream(FILE *in, const char *name, struct fabric *f, char err[NETFILE_ERR_LEN])
{
	struct parser ps = {
		.file = name, .err = err, .f = f,
		.next_ca_guid = 0x100000, .next_sw_guid = 0x200000,
	};
	char buf[1024];
	int rc = 0;

	fabric_init(f);
	while (rc == 0 && fgets(buf, sizeof(buf), in)) {
		ps.line++;
		if (!strchr(buf, '\n') && !feof(in)) {
			rc = fail(&ps, ps.line, "line longer than %zu characters", sizeof(buf) - 2);
			break;
		}
		strip(buf);
		char *line = skip_ws(buf);
		if (*line == '\0') {
			ps.cur = NULL;	/* a blank line ends a record */
			continue;
		}
		if (*line == '#')
			continue;
		if (strncmp(line, "include", 7) == 0 || strncmp(line, "do ", 3) == 0)
			rc = fail(&ps, ps.line, "'%.7s' directives are ibsim console features, not topology",
				  line);
		else if (*line == '[')
			rc = parse_port_line(&ps, line);
		else if (strchr(line, '=') && !strchr(line, '"'))
			rc = parse_guid_line(&ps, line);
		else
			rc = parse_header(&ps, line);
	}
	if (rc == 0 && ferror(in))
		rc = fail(&ps, ps.line, "read error");
	if (rc == 0 && f->nnodes == 0)
		rc = fail(&ps, ps.line, "no nodes defined");
	if (rc == 0)
		rc = resolve_links(&ps);
	for (size_t i = 0; i < ps.nids; i++)
		free(ps.ids[i]);
	free(ps.ids);
	free(ps.links);
	if (rc < 0)
		fabric_free(f);
	return rc;
}

int netfile_read(const char *path, struct fabric *f, char err[NETFILE_ERR_LEN])
{
	FILE *in = fopen(path, "r");
	if (!in) {
		snprintf(err, NETFILE_ERR_LEN, "%s: %s", path, strerror(errno));
		fabric_init(f);
		return -1;
	}
	int rc = netfile_read_stream(in, path, f, err);
	fclose(in);
	return rc;
}
