/*
 * DOC: fabricd
 *
 * The daemon: reads the configuration, opens the database and the SM port,
 * becomes MASTER and sweeps; re-sweeps on SIGHUP and every sweep_interval
 * seconds; reopens its log file on SIGUSR1 (and SIGHUP) for logrotate;
 * exits cleanly on SIGTERM/SIGINT. Under systemd it says READY once it
 * serves its control socket, STATUS after each sweep and WATCHDOG from the
 * event loop (sm/notify.c), and logs to the journal with priorities. With
 * --once it exits after the first sweep: 0 if the subnet came up, 1 if not.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <yaml.h>

#include "sm/control.h"
#include "sm/log.h"
#include "sm/mad/http.h"
#include "sm/metrics.h"
#include "sm/mad/offload.h"
#include "sm/sm.h"
#include "sm/smnode.h"


static void usage(FILE *out)
{
	fprintf(out,
		"usage: fabricd [options]\n"
		"  -c, --config FILE      YAML configuration (default: none, built-in defaults)\n"
		"  -d, --database PATH    state database (default /var/lib/fabricd/fabricd.db)\n"
		"  -S, --socket PATH      control socket for fabricctl (default /run/fabricd/fabricd.sock)\n"
		"  -C, --ca NAME          CA to run on (default: the first one)\n"
		"  -P, --port NUM         port of that CA (default: the first active one)\n"
		"  -G, --guid GUID        run on the local port with this GUID\n"
		"      --once             sweep once, exit 0 when the subnet is up, 1 if not\n"
		"  -f, --foreground       do not detach from the terminal\n"
		"  -l, --log-level LEVEL  error, warn, info or debug\n"
		"      --log-file FILE    log there instead of stderr\n"
		"  -V, --version          print the version\n"
		"  -h, --help             this text\n");
}

static int parse_number(const char *opt, const char *arg, unsigned long long max, unsigned long long *out)
{
	char *end;
	errno = 0;
	*out = strtoull(arg, &end, 0);
	if (*arg == '\0' || *arg == '-' || *end || errno || *out > max) {
		fprintf(stderr, "fabricd: %s needs a number up to %llu, not '%s'\n", opt, max, arg);
		return -1;
	}
	return 0;
}

struct cli {
	const char *config, *database, *ca, *log_file, *socket;
	int port, log_level;
	uint64_t guid;
	bool once, foreground;
};

/* Returns 0 to go on, 1 to exit 0 (help, version), -1 on a bad argument. */
static int parse_cli(int argc, char **argv, struct cli *c)
{
	enum { OPT_ONCE = 256, OPT_LOG_FILE };
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "database", required_argument, NULL, 'd' },
		{ "socket", required_argument, NULL, 'S' },
		{ "ca", required_argument, NULL, 'C' },
		{ "port", required_argument, NULL, 'P' },
		{ "guid", required_argument, NULL, 'G' },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "foreground", no_argument, NULL, 'f' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "log-file", required_argument, NULL, OPT_LOG_FILE },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	unsigned long long v;
	int o;
	memset(c, 0, sizeof(*c));
	c->log_level = -1;
	while ((o = getopt_long(argc, argv, "c:d:S:C:P:G:fl:Vh", opts, NULL)) != -1) {
		switch (o) {
		case 'c': c->config = optarg; break;
		case 'd': c->database = optarg; break;
		case 'S': c->socket = optarg; break;
		case 'C': c->ca = optarg; break;
		case 'P':
			if (parse_number("--port", optarg, 254, &v) < 0)
				return -1;
			c->port = (int)v;
			break;
		case 'G':
			if (parse_number("--guid", optarg, UINT64_MAX, &v) < 0)
				return -1;
			c->guid = v;
			break;
		case OPT_ONCE: c->once = true; break;
		case 'f': c->foreground = true; break;
		case 'l':
			if ((c->log_level = log_level_parse(optarg)) < 0) {
				fprintf(stderr, "fabricd: unknown log level '%s' (error, warn, info, debug)\n",
					optarg);
				return -1;
			}
			break;
		case OPT_LOG_FILE: c->log_file = optarg; break;
		case 'V':
			printf("fabricd %s (%s)\nlibevent %s, SQLite %s, libyaml %s\n", FABRICD_VERSION, FABRICD_BUILD,
			       evl_version(), db_library_version(), yaml_get_version_string());
			return 1;
		case 'h': usage(stdout); return 1;
		default: usage(stderr); return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "fabricd: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}

static void apply_cli(const struct cli *c, struct fabricd_config *cfg)
{
	if (c->database)
		snprintf(cfg->database, sizeof(cfg->database), "%s", c->database);
	if (c->socket)
		snprintf(cfg->control_socket, sizeof(cfg->control_socket), "%s", c->socket);
	if (c->ca)
		snprintf(cfg->ca, sizeof(cfg->ca), "%s", c->ca);
	if (c->port)
		cfg->port = c->port;
	if (c->guid)
		cfg->port_guid = c->guid;
	if (c->log_level >= 0)
		cfg->log_level = c->log_level;
	if (c->log_file)
		snprintf(cfg->log_file, sizeof(cfg->log_file), "%s", c->log_file);
}

/* Creates the directory of path (one level: the database's, the socket's) if it is missing. */
static void ensure_parent_dir(const char *path)
{
	char dir[512];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	*slash = '\0';
	mkdir(dir, 0700);
}

static void on_stop_signal(void *arg)
{
	struct sm *sm = arg;
	log_info("signal received: exiting");
	evl_stop(sm->loop);
}

/* SIGUSR1: logrotate moved the log file away; write to a new one by the same name. */
static void on_usr1(void *arg)
{
	if (log_reopen() < 0)
		log_error("SIGUSR1: cannot reopen the log file: %s", strerror(errno));
	else
		log_info("SIGUSR1: log file reopened");
}

/* SIGHUP: the node-name-map again (or none); a map that does not parse leaves the old one. */
static void reload_names(struct sm *sm, const char *path)
{
	struct namemap fresh = { 0 };
	char err[NAMEMAP_ERR_LEN];
	if (path[0] && namemap_load(path, &fresh, err) < 0) {
		log_error("SIGHUP: node names not reloaded: %s", err);
		return;
	}
	namemap_free(&sm->names);
	sm->names = fresh;
}

struct reload {
	struct sm *sm;
	const struct cli *cli;
};

/*
 * SIGHUP: reread the configuration file (command-line flags still win),
 * then sweep. What is bound at start (port, database, socket, log file,
 * MAD window) keeps its running value; a file that does not parse changes
 * nothing.
 */
static void on_hup(void *arg)
{
	struct reload *r = arg;
	struct sm *sm = r->sm;
	if (log_reopen() < 0)
		log_error("SIGHUP: cannot reopen the log file: %s", strerror(errno));
	if (r->cli->config) {
		struct fabricd_config cfg;
		char err[1024];
		config_defaults(&cfg);
		if (config_load(r->cli->config, &cfg, err) < 0) {
			log_error("SIGHUP: configuration not reloaded: %s", err);
		} else {
			apply_cli(r->cli, &cfg);
			if (config_keep_bound(&cfg, &sm->cfg))
				log_warn("SIGHUP: " CONFIG_BOUND_NAMES " settings take a restart; the running ones stay");
			reload_names(sm, cfg.node_name_map);
			sm->cfg = cfg;
			db_set_retention(sm->db, &(struct db_retention){ cfg.keep_sweeps, cfg.keep_events, cfg.keep_days,
								  cfg.perf_keep_hours, cfg.perf_max_db_mb });
			if (sm->perf)
				perf_reconfigure(sm->perf);
			sm->trap_budget.per_minute = cfg.trap_budget_per_minute;	/* the buckets go on */
			log_set_level((enum log_level)cfg.log_level);
			log_info("SIGHUP: configuration reloaded from %s (routing engine %s)", r->cli->config,
				 cfg.routing_engine);
		}
	}
	log_info("SIGHUP: re-sweeping");
	sm_sweep_request(sm);
}

/* The ports the last fabricd left unhealthy, isolated or disabled stay so until clean. */
static void restore_health(struct sm *sm)
{
	struct db_port_health *rows;
	size_t n;
	if (db_load_port_health(sm->db, &rows, &n) < 0) {
		log_warn("health: the stored verdicts were not read: %s", db_last_error(sm->db));
		return;
	}
	if (n)
		log_info("health: %zu port%s still judged unhealthy by the last run", n, n == 1 ? "" : "s");
	health_restore(sm->health, rows, n, (double)time(NULL));
	free(rows);
}

int main(int argc, char **argv)
{
	struct cli cli;
	int rc = parse_cli(argc, argv, &cli);
	if (rc != 0)
		return rc > 0 ? 0 : 2;

	static struct sm sm;
	char err[1024];
	config_defaults(&sm.cfg);
	if (cli.config && config_load(cli.config, &sm.cfg, err) < 0) {
		fprintf(stderr, "fabricd: %s\n", err);
		return 2;
	}
	apply_cli(&cli, &sm.cfg);
	sm.once = cli.once;
	char nerr[NAMEMAP_ERR_LEN];
	if (sm.cfg.node_name_map[0] && namemap_load(sm.cfg.node_name_map, &sm.names, nerr) < 0) {
		fprintf(stderr, "fabricd: %s\n", nerr);
		return 2;
	}
	log_set_level((enum log_level)sm.cfg.log_level);
	if (sm.cfg.log_file[0] && log_set_file(sm.cfg.log_file) < 0) {
		fprintf(stderr, "fabricd: cannot open log file %s: %s\n", sm.cfg.log_file, strerror(errno));
		return 1;
	}
	if (!sm.cfg.log_file[0])
		log_to_journal_if_there();

	umask(077);	/* the database and socket are root's alone */
	ensure_parent_dir(sm.cfg.database);
	sm.db = db_open(sm.cfg.database, DB_READ_WRITE, err);
	if (!sm.db) {
		fprintf(stderr, "fabricd: %s\n", err);
		return 1;
	}
	db_set_retention(sm.db, &(struct db_retention){ sm.cfg.keep_sweeps, sm.cfg.keep_events, sm.cfg.keep_days,
							 sm.cfg.perf_keep_hours, sm.cfg.perf_max_db_mb });
	struct db_mkey *stored;
	size_t nstored;
	if (db_load_mkeys(sm.db, &stored, &nstored) < 0 || mkeys_init(&sm.mkeys, &sm.cfg.mkey, stored, nstored) < 0) {
		fprintf(stderr, "fabricd: %s: M_Keys: %s\n", sm.cfg.database, db_last_error(sm.db));
		db_close(sm.db);
		return 1;
	}
	free(stored);
	sa_services_load(&sm);
	if (!cli.foreground && !cli.once && daemon(0, sm.cfg.log_file[0] ? 0 : 1) < 0) {
		fprintf(stderr, "fabricd: cannot detach: %s\n", strerror(errno));
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	sm.loop = evl_new();
	struct mad_port_opts mo = {
		.ca = sm.cfg.ca[0] ? sm.cfg.ca : NULL,
		.port = sm.cfg.port,
		.guid = sm.cfg.port_guid,
		.window = sm.cfg.mad_window,
		.timeout_ms = sm.cfg.mad_timeout_ms,
		.retries = sm.cfg.mad_retries,
	};
	char merr[MAD_ERR_LEN];
	if (!sm.loop || !(sm.mp = mad_open(sm.loop, &mo, merr))) {
		const char *why = sm.loop ? merr : "cannot create the event loop";
		log_error("%s", why);
		if (sm.cfg.log_file[0])	/* the log is a file: say it where the operator looks too */
			fprintf(stderr, "fabricd: %s\n", why);
		db_close(sm.db);
		return 1;
	}
	log_info("fabricd %s on %s port %d, GUID 0x%016llx, database %s", FABRICD_VERSION,
		 mad_port_ca(sm.mp), mad_port_num(sm.mp), (unsigned long long)mad_port_guid(sm.mp),
		 sm.cfg.database);
	struct control *ctl = NULL;
	char cerr[256];
	if (!sm.once)
		ensure_parent_dir(sm.cfg.control_socket);
	if (!sm.once && !(ctl = control_open(&sm, sm.cfg.control_socket, cerr))) {
		log_error("%s", cerr);
		if (sm.cfg.log_file[0])
			fprintf(stderr, "fabricd: %s\n", cerr);
		mad_close(sm.mp);
		db_close(sm.db);
		return 1;
	}
	struct http_server *metrics = NULL;
	if (!sm.once && sm.cfg.metrics_listen[0] && !(metrics = metrics_open(&sm, cerr, sizeof(cerr)))) {
		log_error("%s", cerr);
		if (sm.cfg.log_file[0])
			fprintf(stderr, "fabricd: %s\n", cerr);
		control_close(ctl);
		mad_close(sm.mp);
		db_close(sm.db);
		return 1;
	}
	sm.state = SM_DISCOVERING;	/* the first sweep's election decides */
	if (mcast_init(&sm.mcast, sm.cfg.subnet_prefix) < 0) {
		log_error("out of memory for the multicast groups");
		if (sm.cfg.log_file[0])
			fprintf(stderr, "fabricd: out of memory for the multicast groups\n");
		http_close(metrics);
		control_close(ctl);
		mad_close(sm.mp);
		db_close(sm.db);
		return 1;
	}
	/*
	 * An RMPP ACK comes from the receiving host after a whole window, later
	 * than a switch answers an SMP; a window sent again too soon reaches a
	 * receiver that may be done with the answer.
	 */
	sm.rmpp = rmpp_new(sm.loop, sm.mp, 4 * sm.cfg.mad_timeout_ms, sm.cfg.mad_retries);
	sm.rmpp_in = rmpp_receiver_new(sm.mp);
	if (!sm.rmpp || !sm.rmpp_in || ha_init(&sm) < 0) {
		log_error("out of memory");
		mad_close(sm.mp);
		db_close(sm.db);
		return 1;
	}
	dispatch_attach(&sm);
	sm.notify = notify_open(sm.loop);
	static struct reload reload;
	reload = (struct reload){ &sm, &cli };
	struct evl_watch *sigs[] = {
		evl_signal(sm.loop, SIGTERM, on_stop_signal, &sm),
		evl_signal(sm.loop, SIGINT, on_stop_signal, &sm),
		evl_signal(sm.loop, SIGHUP, on_hup, &reload),
		evl_signal(sm.loop, SIGUSR1, on_usr1, NULL),
	};
	if (sched_init(&sm) < 0 || checkpoint_init(&sm) < 0 || !(sm.health = health_new(&sm)) ||
	    (!sm.once && !(sm.perf = perf_new(&sm)))) {
		fprintf(stderr, "fabricd: cannot create the sweep timers\n");
		return 1;
	}
	restore_health(&sm);
	budget_init(&sm.trap_budget, sm.cfg.trap_budget_per_minute);
	budget_init(&sm.sa.log_budget, 10);
	mcast_attach(&sm);
	sm_sweep_request(&sm);
	notify_send(sm.notify, "READY=1\nSTATUS=%s, first sweep", ha_state_name(sm.state));
	if (evl_run(sm.loop) < 0) {
		log_error("event loop failed");
		sm.exit_code = 1;
	}
	notify_send(sm.notify, "STOPPING=1");
	notify_close(sm.notify);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		evl_watch_free(sigs[i]);
	offload_abandon(sm.computing);	/* it reads the sweep's fabric and the published one */
	sched_free(&sm);
	checkpoint_free(&sm);
	perf_free(sm.perf);
	health_free(sm.health);
	mcast_free(&sm.mcast);
	budget_free(&sm.trap_budget);
	budget_free(&sm.sa.log_budget);
	ha_free(&sm);
	control_close(ctl);
	http_close(metrics);
	rmpp_free(sm.rmpp);
	rmpp_receiver_free(sm.rmpp_in);
	mad_close(sm.mp);
	sm_snapshot_free(sm.pub);
	lost_set_free(&sm.lft_unsure);
	lost_set_free(&sm.port_unsure);
	routing_memo_free(&sm.route_memo);
	mkeys_free(&sm.mkeys);
	namemap_free(&sm.names);
	sa_services_free(&sm.sa.services);
	db_close(sm.db);
	evl_free(sm.loop);
	/*
	 * Everything is closed: leave without the libraries' exit handlers.
	 * umad2sim's (the simulator's libibumad) joins its receive thread and
	 * deadlocks when a MAD arrives meanwhile (a trap about our own port
	 * losing IsSM does): fabricd hung on SIGTERM in about one test run of
	 * twenty. Nothing of ours waits in them.
	 */
	fflush(NULL);
	_exit(sm.exit_code);
}
