/*
 * DOC: configuration file
 *
 * A YAML mapping; every key is optional:
 *
 *   port: { ca: mlx5_0, port: 1 }     # or { guid: 0x0002c90300000001 }
 *   database: /var/lib/fabricd/fabricd.db
 *   log_level: info                   # error, warn, info, debug
 *   log_file: /var/log/fabricd.log
 *   control_socket: /run/fabricd.sock
 *   routing_engine: ftree             # ftree, updown or minhop
 *   root_guids: [0x0002c90300000a01]  # ftree: the top switches (default: rank from the leaves)
 *   sm_priority: 0
 *   subnet_prefix: 0xfe80000000000000
 *   max_mtu: 4096
 *   max_op_vls: 8
 *   subnet_timeout: 18
 *   sweep_interval: 10
 *   trap_holddown_ms: 50              # after a link-change trap, wait, then sweep once
 *   react_to_traps: 1                 # 0: traps are logged only
 *   mad: { window: 64, timeout_ms: 200, retries: 3 }
 *   qos: { vlarb_high: "", vlarb_low: "0:64,1:64", vl_high_limit: 0 }
 *
 * Unknown keys and bad values are errors naming the file and line.
 */
#include "sm/config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "routing/engine.h"
#include "sm/log.h"
#include "sm/qos.h"

void config_defaults(struct fabricd_config *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->database, sizeof(c->database), "/var/lib/fabricd/fabricd.db");
	snprintf(c->control_socket, sizeof(c->control_socket), "/run/fabricd.sock");
	c->log_level = LOG_INFO;
	snprintf(c->routing_engine, sizeof(c->routing_engine), "ftree");
	c->subnet_prefix = 0xfe80000000000000ULL;
	c->max_mtu = 4096;
	c->max_op_vls = 8;
	c->subnet_timeout = 18;
	c->sweep_interval = 10;
	c->trap_holddown_ms = 50;
	c->react_to_traps = 1;
	c->mad_window = 64;
	c->mad_timeout_ms = 200;
	c->mad_retries = 3;
}

uint8_t config_mtu_code(unsigned bytes)
{
	uint8_t code = 1;
	for (unsigned b = 256; b < bytes && code < 5; b *= 2)
		code++;
	return code;
}

uint8_t config_vls_code(unsigned vls)
{
	return vls >= 15 ? 5 : vls >= 8 ? 4 : vls >= 4 ? 3 : vls >= 2 ? 2 : 1;
}

struct reader {
	const char *file;
	yaml_document_t *doc;
	char *err;
};

static int fail(struct reader *r, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;
	int len = snprintf(r->err, CONFIG_ERR_LEN, "%s:%lu: ", r->file,
			   (unsigned long)(n ? n->start_mark.line + 1 : 1));
	va_start(ap, fmt);
	vsnprintf(r->err + len, CONFIG_ERR_LEN - (size_t)len, fmt, ap);
	va_end(ap);
	return -1;
}

static int get_scalar(struct reader *r, const char *key, const yaml_node_t *v, const char **out)
{
	if (v->type != YAML_SCALAR_NODE)
		return fail(r, v, "%s must be a single value", key);
	*out = (const char *)v->data.scalar.value;
	return 0;
}

static int get_uint(struct reader *r, const char *key, const yaml_node_t *v, unsigned long long min,
		    unsigned long long max, unsigned long long *out)
{
	const char *s = NULL;
	char *end;
	if (get_scalar(r, key, v, &s) < 0)
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 0);
	if (*s == '\0' || *s == '-' || *end || errno)
		return fail(r, v, "%s must be a number, not '%s'", key, s);
	if (*out < min || *out > max)
		return fail(r, v, "%s must be %llu..%llu, not %llu", key, min, max, *out);
	return 0;
}

static int get_string(struct reader *r, const char *key, const yaml_node_t *v, char *out, size_t len)
{
	const char *s = NULL;
	if (get_scalar(r, key, v, &s) < 0)
		return -1;
	if (strlen(s) >= len)
		return fail(r, v, "%s is longer than %zu characters", key, len - 1);
	snprintf(out, len, "%s", s);
	return 0;
}

static int get_guid_list(struct reader *r, const char *key, const yaml_node_t *v, struct fabricd_config *c)
{
	if (v->type != YAML_SEQUENCE_NODE)
		return fail(r, v, "%s must be a list of GUIDs, e.g. [0x0002c90300000a01]", key);
	c->nroots = 0;
	for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++) {
		yaml_node_t *item = yaml_document_get_node(r->doc, *i);
		unsigned long long guid;
		if (c->nroots == CONFIG_MAX_ROOTS)
			return fail(r, item, "%s holds at most %d GUIDs", key, CONFIG_MAX_ROOTS);
		if (get_uint(r, key, item, 1, UINT64_MAX, &guid) < 0)
			return -1;
		c->root_guids[c->nroots++] = guid;
	}
	return 0;
}

typedef int (*pair_fn)(struct reader *r, const char *key, const yaml_node_t *v, struct fabricd_config *c);

static int each_pair(struct reader *r, const char *what, const yaml_node_t *map, pair_fn fn,
		     struct fabricd_config *c)
{
	if (map->type != YAML_MAPPING_NODE)
		return fail(r, map, "%s must be a mapping of key: value", what);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
		if (k->type != YAML_SCALAR_NODE)
			return fail(r, k, "keys must be plain words");
		if (fn(r, (const char *)k->data.scalar.value, v, c) < 0)
			return -1;
	}
	return 0;
}

static int port_pair(struct reader *r, const char *key, const yaml_node_t *v, struct fabricd_config *c)
{
	unsigned long long n;
	if (strcmp(key, "ca") == 0)
		return get_string(r, "port.ca", v, c->ca, sizeof(c->ca));
	if (strcmp(key, "port") == 0) {
		if (get_uint(r, "port.port", v, 1, 254, &n) < 0)
			return -1;
		c->port = (int)n;
		return 0;
	}
	if (strcmp(key, "guid") == 0) {
		if (get_uint(r, "port.guid", v, 1, UINT64_MAX, &n) < 0)
			return -1;
		c->port_guid = n;
		return 0;
	}
	return fail(r, v, "unknown key 'port.%s' (expected ca, port or guid)", key);
}

static int mad_pair(struct reader *r, const char *key, const yaml_node_t *v, struct fabricd_config *c)
{
	unsigned long long n;
	if (strcmp(key, "window") == 0) {
		if (get_uint(r, "mad.window", v, 1, 1024, &n) < 0)
			return -1;
		c->mad_window = (unsigned)n;
	} else if (strcmp(key, "timeout_ms") == 0) {
		if (get_uint(r, "mad.timeout_ms", v, 1, 60000, &n) < 0)
			return -1;
		c->mad_timeout_ms = (unsigned)n;
	} else if (strcmp(key, "retries") == 0) {
		if (get_uint(r, "mad.retries", v, 0, 20, &n) < 0)
			return -1;
		c->mad_retries = (unsigned)n;
	} else {
		return fail(r, v, "unknown key 'mad.%s' (expected window, timeout_ms or retries)", key);
	}
	return 0;
}

static int arb_list(struct reader *r, const char *key, const yaml_node_t *v, char *out, size_t len)
{
	ib_vl_arb_element_t e[QOS_MAX_ARB];
	unsigned n;
	char why[128];
	if (get_string(r, key, v, out, len) < 0)
		return -1;
	if (qos_parse_arb(out, e, &n, why, sizeof(why)) < 0)
		return fail(r, v, "%s: %s", key, why);
	return 0;
}

static int qos_pair(struct reader *r, const char *key, const yaml_node_t *v, struct fabricd_config *c)
{
	unsigned long long n;
	if (strcmp(key, "vlarb_high") == 0)
		return arb_list(r, "qos.vlarb_high", v, c->vlarb_high, sizeof(c->vlarb_high));
	if (strcmp(key, "vlarb_low") == 0)
		return arb_list(r, "qos.vlarb_low", v, c->vlarb_low, sizeof(c->vlarb_low));
	if (strcmp(key, "vl_high_limit") == 0) {
		if (get_uint(r, "qos.vl_high_limit", v, 0, 255, &n) < 0)
			return -1;
		c->vl_high_limit = (unsigned)n;
		return 0;
	}
	return fail(r, v, "unknown key 'qos.%s' (expected vlarb_high, vlarb_low or vl_high_limit)", key);
}

static int top_pair(struct reader *r, const char *key, const yaml_node_t *v, struct fabricd_config *c)
{
	unsigned long long n;
	const char *s = NULL;
	if (strcmp(key, "port") == 0)
		return each_pair(r, "port", v, port_pair, c);
	if (strcmp(key, "mad") == 0)
		return each_pair(r, "mad", v, mad_pair, c);
	if (strcmp(key, "qos") == 0)
		return each_pair(r, "qos", v, qos_pair, c);
	if (strcmp(key, "database") == 0)
		return get_string(r, key, v, c->database, sizeof(c->database));
	if (strcmp(key, "log_file") == 0)
		return get_string(r, key, v, c->log_file, sizeof(c->log_file));
	if (strcmp(key, "control_socket") == 0)
		return get_string(r, key, v, c->control_socket, sizeof(c->control_socket));
	if (strcmp(key, "log_level") == 0) {
		if (get_scalar(r, key, v, &s) < 0)
			return -1;
		if ((c->log_level = log_level_parse(s)) < 0)
			return fail(r, v, "log_level must be error, warn, info or debug, not '%s'", s);
		return 0;
	}
	if (strcmp(key, "routing_engine") == 0) {
		if (get_string(r, key, v, c->routing_engine, sizeof(c->routing_engine)) < 0)
			return -1;
		enum routing_engine e;
		if (routing_engine_parse(c->routing_engine, &e) < 0)
			return fail(r, v, "unknown routing_engine '%s' (known: ftree, updown, minhop)",
				    c->routing_engine);
		return 0;
	}
	if (strcmp(key, "root_guids") == 0)
		return get_guid_list(r, key, v, c);
	if (strcmp(key, "subnet_prefix") == 0) {
		if (get_uint(r, key, v, 0, UINT64_MAX, &n) < 0)
			return -1;
		c->subnet_prefix = n;
		return 0;
	}
	if (strcmp(key, "max_mtu") == 0) {
		if (get_uint(r, key, v, 256, 4096, &n) < 0)
			return -1;
		if (n & (n - 1))
			return fail(r, v, "max_mtu must be 256, 512, 1024, 2048 or 4096");
		c->max_mtu = (unsigned)n;
		return 0;
	}
	if (strcmp(key, "max_op_vls") == 0) {
		if (get_uint(r, key, v, 1, 15, &n) < 0)
			return -1;
		if (n != 1 && n != 2 && n != 4 && n != 8 && n != 15)
			return fail(r, v, "max_op_vls must be 1, 2, 4, 8 or 15");
		c->max_op_vls = (unsigned)n;
		return 0;
	}
	struct { const char *name; unsigned long long max; unsigned *field; } uints[] = {
		{ "sm_priority", 15, &c->sm_priority },
		{ "subnet_timeout", 31, &c->subnet_timeout },
		{ "sweep_interval", 86400, &c->sweep_interval },
		{ "trap_holddown_ms", 60000, &c->trap_holddown_ms },
		{ "react_to_traps", 1, &c->react_to_traps },
	};
	for (size_t i = 0; i < sizeof(uints) / sizeof(uints[0]); i++)
		if (strcmp(key, uints[i].name) == 0) {
			if (get_uint(r, key, v, 0, uints[i].max, &n) < 0)
				return -1;
			*uints[i].field = (unsigned)n;
			return 0;
		}
	return fail(r, v, "unknown key '%s'", key);
}

int config_load(const char *path, struct fabricd_config *c, char err[CONFIG_ERR_LEN])
{
	FILE *in = fopen(path, "r");
	if (!in) {
		snprintf(err, CONFIG_ERR_LEN, "%s: %s", path, strerror(errno));
		return -1;
	}
	yaml_parser_t parser;
	yaml_document_t doc;
	int rc = -1;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, in);
	if (!yaml_parser_load(&parser, &doc)) {
		snprintf(err, CONFIG_ERR_LEN, "%s:%lu: %s", path, (unsigned long)parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "YAML syntax error");
		goto out;
	}
	struct reader r = { .file = path, .doc = &doc, .err = err };
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (!root)
		rc = 0;	/* an empty file keeps the defaults */
	else
		rc = each_pair(&r, "the configuration", root, top_pair, c);
	yaml_document_delete(&doc);
out:
	yaml_parser_delete(&parser);
	fclose(in);
	return rc;
}
