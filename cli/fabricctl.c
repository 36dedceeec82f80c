/*
 * DOC: fabricctl
 *
 * The admin CLI. It reads fabricd's database (read-only, so it never
 * disturbs the daemon) and prints tables, or JSON with --json:
 *
 *   fabricctl [-d DB] [--json] [-G] COMMAND [ARGS]
 *
 * Nodes are named by node description, by GUID (0x..., or any number with
 * -G), or by LID (decimal or 0x hex up to 0xbfff), as in infiniband-diags.
 */
#include "cli/fabricctl.h"
#include "cli/lftdump.h"
#include "topology/netfile.h"

#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_DB "/var/lib/fabricd/fabricd.db"
#define DEFAULT_SOCKET "/run/fabricd/fabricd.sock"

static const struct ctl_command commands[] = {
	{ "status", "", "the daemon (running?), then the last sweep and its result", cmd_status },
	{ "topology", "", "every switch and CA, then every link", cmd_topology },
	{ "node", "NAME|GUID|LID", "one node and its ports", cmd_node },
	{ "links", "[--down|--degraded]", "every link with width, speed and state (--degraded: below what both ends "
	  "support)", cmd_links },
	{ "counters", "[NODE[PORT]]", "port counters: totals since first read, and the last interval's rates",
	  cmd_counters },
	{ "errors", "[--since T] [--top N]", "ports ranked by error counts since T (default: a day), with BER",
	  cmd_errors },
	{ "congestion", "[--since T] [--top N]", "ports ranked by time waiting for credits (XmitWait), default the last 5 min",
	  cmd_congestion },
	{ "health", "[clear [NODE[PORT]]]", "unhealthy, isolated and degraded ports, and why; clear: declare healthy",
	  cmd_health },
	{ "route", "SRC DST", "the path the stored tables give, hop by hop", cmd_route },
	{ "sweeps", "[--last N]", "the sweep history (default: the last 20)", cmd_sweeps },
	{ "events", "[--since T]", "the event log (T: Unix seconds, or -SECONDS ago)", cmd_events },
	{ "export", "ibnetdiscover|opensm-subnet|opensm-fdbs|ibdmchk-sl|sl",
	  "the fabric as ibnetdiscover prints it, or it and its tables as OpenSM dumps them for ibdmchk", cmd_export },
	{ "check", "[--lfts F --topology F [--sl F]] [--sl2vl F] [--before F --after F --topology F [--sl F] "
	  "[--before-sl F]] [--ca-to-ca]",
	  "prove connectivity, no forwarding loop and deadlock freedom of the stored tables, any SM's, or a "
	  "transition", cmd_check },
	{ "credits", "[--cable-length M] [--latency NS] [--mtu B]",
	  "buffer credits per VL each link needs for full rate", cmd_credits },
	{ "quality", "[--lfts F --topology F] [--shifts N] [--random N] [--seed S]",
	  "link load under permutation traffic, from the stored tables or a dump_lfts file", cmd_quality },
	{ "partitions", "[PKEY|NAME]", "the partitions programmed, or one partition's members", cmd_partitions },
	{ "plan", "roce FILE.yaml --out DIR [--failures N] [--loopbacks] [--routing bgp|static] [--summary-only] "
		  "[--allow-unsafe] | check DIR | fib DIR FIBDIR [--down SW:PORT]... | wiring DIR",
	  "plan a RoCE fabric (loop-free, CBD-free ECMP, eBGP, PFC/ECN, SONiC QoS); prove installed FIBs", cmd_plan },
	{ "diff", "FILE", "compare the fabric with a planned net file", cmd_diff },
	{ "resweep", "[--rebalance]", "ask the running fabricd for a heavy sweep now (--rebalance: every route "
	  "re-balanced, not only those a change broke)", cmd_resweep },
	{ "audit", "", "ask the running fabricd to read every switch's LFT and every node's port tables (SL-to-VL, VL "
	  "arbitration, P_Key) back and compare them with the published sweep's; exit 1 if some block or table "
	  "differed or went unanswered", cmd_audit },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: fabricctl [-d DB] [-S SOCKET] [--json] [-G] COMMAND [ARGS]\n\n"
		     "  -d, --database PATH  fabricd's database (default %s)\n"
		     "  -S, --socket PATH    fabricd's control socket (default " DEFAULT_SOCKET ")\n"
		     "      --json           machine-readable output\n"
		     "  -G, --guid           node arguments are GUIDs\n"
		     "  -M, --node-name-map FILE  node names by GUID (infiniband-diags' format) over the descriptions\n"
		     "  -h, --help           this text; COMMAND --help for one command\n"
		     "  -V, --version        the version and build\n"
		     "The options may follow the command too.\n\ncommands:\n",
		DEFAULT_DB);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %-15s %s\n", commands[i].name, strlen(commands[i].args) > 15 ? "..." : commands[i].args,
			commands[i].help);
	fprintf(out, "\nexit codes: 0 ok, 1 not found or not healthy, 2 bad usage, 3 database problem,\n"
		     "            4 fabricd not running or not answering, 5 (status) fabricd stands by for another SM\n");
}

int ctl_open_db(struct ctl *c)
{
	char err[DB_ERR_LEN];
	/* unreadable, or in a directory we may not enter: both are root's doing */
	bool exists = access(c->db_path, F_OK) == 0;
	if ((exists && access(c->db_path, R_OK) != 0) || (!exists && errno == EACCES)) {
		fprintf(stderr, "fabricctl: %s: permission denied (the database is root's: run as root)\n",
			c->db_path);
		return EXIT_DB;
	}
	c->db = db_open(c->db_path, DB_READ_ONLY, err);
	if (!c->db) {
		fprintf(stderr, "fabricctl: %s\n", err);
		return EXIT_DB;
	}
	return EXIT_OK;
}

int ctl_load_fabric(struct ctl *c, struct fabric *f)
{
	if (db_load_fabric(c->db, f) < 0) {
		fprintf(stderr, "fabricctl: %s: %s\n", c->db_path, db_last_error(c->db));
		return -1;
	}
	namemap_apply(&c->names, f);
	return 0;
}

int ctl_load_routed(struct ctl *c, struct fabric *f, struct routing_tables *t)
{
	if (ctl_load_fabric(c, f) < 0)
		return -1;
	if (db_load_tables(c->db, f, t) < 0) {
		fprintf(stderr, "fabricctl: %s: %s\n", c->db_path, db_last_error(c->db));
		fabric_free(f);
		return -1;
	}
	return 0;
}

int ctl_load_tables(struct ctl *c, const char *topology, const char *lfts, struct fabric *f,
		    struct routing_tables *t)
{
	char err[NETFILE_ERR_LEN];
	if (!topology) {
		int rc = ctl_open_db(c);
		if (rc != EXIT_OK)
			return rc;
		return ctl_load_routed(c, f, t) < 0 ? EXIT_DB : EXIT_OK;
	}
	if (netfile_read(topology, f, err) < 0) {
		fprintf(stderr, "fabricctl: %s\n", err);
		return EXIT_USAGE;
	}
	namemap_apply(&c->names, f);
	if (lftdump_read(lfts, f, t, err, sizeof(err)) < 0) {
		fprintf(stderr, "fabricctl: %s\n", err);
		fabric_free(f);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static int parse_number(const char *s, unsigned long long *v)
{
	char *end;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return *s && *s != '-' && !*end && !errno ? 0 : -1;
}

const char *ctl_node_name(const struct fabric *f, uint64_t guid, char *buf, size_t len)
{
	const struct node *n = fabric_find_guid(f, guid);
	if (n)
		return n->desc;
	snprintf(buf, len, "0x%016" PRIx64, guid);
	return buf;
}

int ctl_node_port(const struct ctl *c, const struct fabric *f, const char *arg, uint64_t *guid, uint8_t *port)
{
	char key[256];
	snprintf(key, sizeof(key), "%s", arg);
	*port = 0;
	size_t len = strlen(key);
	char *open = strrchr(key, '[');
	if (len && key[len - 1] == ']' && open) {
		char *end;
		long p = strtol(open + 1, &end, 10);
		if (end != key + len - 1 || p < 1 || p > FABRIC_MAX_PORTS) {
			fprintf(stderr, "fabricctl: bad port in '%s' (expected NODE[PORT], PORT 1-254)\n", arg);
			return EXIT_USAGE;
		}
		*open = 0;
		*port = (uint8_t)p;
	}
	const struct node *n = ctl_find_node(c, f, key);
	if (!n) {
		fprintf(stderr, "fabricctl: no node '%s' in the fabric (by description, GUID or LID)\n", key);
		return EXIT_NOT_FOUND;
	}
	if (*port > n->nports) {
		fprintf(stderr, "fabricctl: %s has ports 1-%u, not %u\n", n->desc, n->nports, *port);
		return EXIT_NOT_FOUND;
	}
	*guid = n->guid;
	return EXIT_OK;
}

struct node *ctl_find_node(const struct ctl *c, const struct fabric *f, const char *key)
{
	unsigned long long v;
	if (parse_number(key, &v) == 0) {
		bool hex_guid = strncmp(key, "0x", 2) == 0 && strlen(key) > 6;
		if (c->by_guid || hex_guid || v > FABRIC_MAX_UCAST_LID)
			return fabric_find_guid(f, v);
		uint8_t port;
		return fabric_find_lid(f, (uint16_t)v, &port);	/* none for LID 0: no port has it */
	}
	return fabric_find_desc(f, key);
}

struct node *ctl_find_port(const struct ctl *c, const struct fabric *f, const char *key, uint8_t *port)
{
	struct node *n = ctl_find_node(c, f, key);
	unsigned long long v;
	*port = 0;
	if (!n || n->type == NODE_SWITCH)
		return n;
	bool is_lid = parse_number(key, &v) == 0 && !c->by_guid && v <= FABRIC_MAX_UCAST_LID &&
		      !(strncmp(key, "0x", 2) == 0 && strlen(key) > 6);
	for (unsigned p = 1; p <= n->nports; p++)
		if (is_lid ? n->ports[p].lid == v : n->ports[p].remote != NULL) {
			*port = (uint8_t)p;
			break;
		}
	return n;
}

const char *ctl_state_name(unsigned state)
{
	static const char *names[] = { "NOP", "Down", "Init", "Armed", "Active" };
	return state < 5 ? names[state] : "?";
}

/*
 * The global options may follow the command too ("fabricctl events
 * --json"): they are applied and taken out of the command's arguments.
 * Returns 1 when the command's help was asked for (--help, -h anywhere),
 * -1 when a global option lacks its value, else 0.
 */
static int take_global_options(struct ctl *c, int *argc, char **argv, const char **name_map)
{
	int out = 1;
	for (int i = 1; i < *argc; i++) {
		const char *a = argv[i];
		const char **value = strcmp(a, "-d") == 0 || strcmp(a, "--database") == 0 ? &c->db_path
				     : strcmp(a, "-S") == 0 || strcmp(a, "--socket") == 0 ? &c->socket_path
				     : strcmp(a, "-M") == 0 || strcmp(a, "--node-name-map") == 0 ? name_map : NULL;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
			return 1;
		if (strcmp(a, "--json") == 0) {
			c->json = true;
		} else if (strcmp(a, "-G") == 0 || strcmp(a, "--guid") == 0) {
			c->by_guid = true;
		} else if (value) {
			if (i + 1 >= *argc) {
				fprintf(stderr, "fabricctl: %s needs a value\n", a);
				return -1;
			}
			*value = argv[++i];
		} else {
			argv[out++] = argv[i];
		}
	}
	*argc = out;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "database", required_argument, NULL, 'd' },
		{ "socket", required_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "guid", no_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "node-name-map", required_argument, NULL, 'M' },
		{ 0 },
	};
	struct ctl c = {
		.db_path = getenv("FABRICD_DB") ? getenv("FABRICD_DB") : DEFAULT_DB,
		.socket_path = getenv("FABRICD_SOCKET") ? getenv("FABRICD_SOCKET") : DEFAULT_SOCKET,
	};
	int o;
	/* '+': options after the command belong to the command */
	const char *name_map = NULL;
	while ((o = getopt_long(argc, argv, "+d:S:GhVM:", opts, NULL)) != -1) {
		switch (o) {
		case 'd': c.db_path = optarg; break;
		case 'S': c.socket_path = optarg; break;
		case 'j': c.json = true; break;
		case 'G': c.by_guid = true; break;
		case 'M': name_map = optarg; break;
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': printf("fabricctl %s (%s)\n", FABRICD_VERSION, FABRICD_BUILD); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *name = argv[optind];
	const struct ctl_command *cmd = NULL;
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			cmd = &commands[i];
	if (!cmd) {
		fprintf(stderr, "fabricctl: unknown command '%s' (see fabricctl --help)\n", name);
		return EXIT_USAGE;
	}
	int cargc = argc - optind;
	char **cargv = argv + optind;
	int taken = take_global_options(&c, &cargc, cargv, &name_map);
	if (taken != 0) {
		if (taken > 0)
			printf("usage: fabricctl %s %s\n  %s\n", cmd->name, cmd->args, cmd->help);
		return taken > 0 ? EXIT_OK : EXIT_USAGE;
	}
	char nerr[NAMEMAP_ERR_LEN];
	if (name_map && namemap_load(name_map, &c.names, nerr) < 0) {
		fprintf(stderr, "fabricctl: %s\n", nerr);
		return EXIT_USAGE;
	}
	optind = 1;
	/* resweep and audit talk to the daemon; quality, check and export may read files instead of the database; plan
	 * uses files only */
	bool no_db = cmd->run == cmd_resweep || cmd->run == cmd_audit || cmd->run == cmd_quality || cmd->run == cmd_plan ||
		     cmd->run == cmd_check || cmd->run == cmd_export;
	int rc = no_db ? EXIT_OK : ctl_open_db(&c);
	if (rc == EXIT_OK)
		rc = cmd->run(&c, cargc, cargv);
	if (c.db)
		db_close(c.db);
	namemap_free(&c.names);
	return rc;
}
