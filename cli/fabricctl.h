/*
 * fabricctl.h - what every fabricctl command gets: the parsed global
 * options and the open database.
 */
#ifndef CLI_FABRICCTL_H
#define CLI_FABRICCTL_H

#include <stdbool.h>

#include "db/db.h"
#include "topology/namemap.h"
#include "topology/fabric.h"

/* Exit codes: 0 ok, 1 the answer is "no"/not found, 2 usage, 3 database problem, 4 no daemon. */
enum { EXIT_OK = 0, EXIT_NOT_FOUND = 1, EXIT_USAGE = 2, EXIT_DB = 3, EXIT_DAEMON = 4, EXIT_STANDBY = 5 };

struct ctl {
	const char *db_path;
	const char *socket_path;
	bool json;
	bool by_guid;		/* -G: node arguments are GUIDs */
	struct db *db;
	struct namemap names;	/* -M: node names by GUID, over the NodeDescriptions */
};

struct ctl_command {
	const char *name;
	const char *args;
	const char *help;
	int (*run)(struct ctl *c, int argc, char **argv);
};

/* Opens the database read-only into c->db; prints the error and returns EXIT_DB on failure. */
int ctl_open_db(struct ctl *c);
/* Loads the stored fabric; prints the error and returns -1 on failure. */
int ctl_load_fabric(struct ctl *c, struct fabric *f);
/* Loads the stored fabric and its forwarding tables, likewise. */
int ctl_load_routed(struct ctl *c, struct fabric *f, struct routing_tables *t);
/*
 * The stored fabric and tables (topology NULL: opens the database), or an
 * ibnetdiscover file and a dump_lfts file; prints the error and returns
 * EXIT_DB or EXIT_USAGE on failure, EXIT_OK.
 */
int ctl_load_tables(struct ctl *c, const char *topology, const char *lfts, struct fabric *f,
		    struct routing_tables *t);
/* Finds a node by description, GUID or LID (see fabricctl --help). */
struct node *ctl_find_node(const struct ctl *c, const struct fabric *f, const char *key);
/*
 * Like ctl_find_node, and sets *port to the port meant: the one with that
 * LID if key is a LID, else port 0 of a switch or a CA's first cabled port.
 */
struct node *ctl_find_port(const struct ctl *c, const struct fabric *f, const char *key, uint8_t *port);
const char *ctl_state_name(unsigned state);
/* The description of the node with GUID guid in f, or the GUID written into buf (24 bytes do). */
const char *ctl_node_name(const struct fabric *f, uint64_t guid, char *buf, size_t len);
/*
 * "NODE[PORT]" or "NODE": the node's GUID and the port (0: none given);
 * prints why and returns EXIT_USAGE or EXIT_NOT_FOUND if it names none.
 */
int ctl_node_port(const struct ctl *c, const struct fabric *f, const char *arg, uint64_t *guid, uint8_t *port);

/* Sends one request line to fabricd; 0 with its answer, or -1 with why. */
int ctl_ask_daemon(const struct ctl *c, const char *request, char *answer, size_t len, char *why,
		   size_t whylen);

/* The table audit's figures in the daemon's status line (sm/sweep/audit.c). */
struct ctl_audit {
	unsigned long long read, differed, unanswered, rotations;
	unsigned wholes;	/* audits of every block (fabricctl audit), and the last one's figures */
	unsigned last_read, last_differed, last_unanswered;
	bool ports;		/* the port tables' figures (a fabricd that audits them) */
	unsigned long long port_read, port_differed, port_unanswered, port_rotations;
	unsigned last_port_read, last_port_differed, last_port_unanswered;
};
/* Fills a from the status line; false when it has none. */
bool ctl_audit_figures(const char *status, struct ctl_audit *a);

int cmd_status(struct ctl *c, int argc, char **argv);
int cmd_resweep(struct ctl *c, int argc, char **argv);
int cmd_audit(struct ctl *c, int argc, char **argv);
int cmd_check(struct ctl *c, int argc, char **argv);
int cmd_topology(struct ctl *c, int argc, char **argv);
int cmd_node(struct ctl *c, int argc, char **argv);
int cmd_links(struct ctl *c, int argc, char **argv);
int cmd_export(struct ctl *c, int argc, char **argv);
int cmd_diff(struct ctl *c, int argc, char **argv);
int cmd_route(struct ctl *c, int argc, char **argv);
int cmd_sweeps(struct ctl *c, int argc, char **argv);
int cmd_events(struct ctl *c, int argc, char **argv);
int cmd_credits(struct ctl *c, int argc, char **argv);
int cmd_quality(struct ctl *c, int argc, char **argv);
int cmd_plan(struct ctl *c, int argc, char **argv);
int cmd_partitions(struct ctl *c, int argc, char **argv);
int cmd_counters(struct ctl *c, int argc, char **argv);
int cmd_errors(struct ctl *c, int argc, char **argv);
int cmd_congestion(struct ctl *c, int argc, char **argv);
int cmd_health(struct ctl *c, int argc, char **argv);

#endif
