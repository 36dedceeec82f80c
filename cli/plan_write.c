/*
 * DOC: writing a RoCE plan
 *
 * One JSON file per switch holds everything the switch needs: its ports
 * with their peers, PFC and ECN settings, the DSCP map, and the routes
 * (prefix -> ECMP next hops). The YAML file is the same document: the
 * JSON is parsed back with libyaml and re-emitted in block style, so the
 * two can never disagree. The FRR rendering is eBGP per RFC 7938
 * (write_frr_bgp), or with --routing static one "ip route PREFIX IFNAME"
 * line per next hop (FRR installs equal static routes as ECMP). The QoS
 * for SONiC switches and the hosts' NICs is in cli/plan_sonic.c.
 */
#include "cli/plan_write.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "cli/output.h"
#include "cli/plan_sonic.h"
#include "routing/pfc.h"

static void write_ports(FILE *out, const struct roce_plan *p, const struct roce_switch *sw)
{
	const struct roce_fabric *rf = p->rf;
	fprintf(out, "  \"ports\": [");
	for (size_t i = 0; i < sw->nports; i++) {
		const struct roce_port *pt = &sw->ports[i];
		struct ecn_marking ecn = ecn_for_port(&rf->qos, pt->gbps);
		fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
		json_string(out, pt->name);
		if (pt->host)
			fprintf(out, ", \"host\": true");
		else if (pt->peer_sw != ROCE_NONE) {
			fprintf(out, ", \"peer\": ");
			json_string(out, rf->sw[pt->peer_sw].name);
			fprintf(out, ", \"peer_port\": ");
			json_string(out, rf->sw[pt->peer_sw].ports[pt->peer_port].name);
		}
		fprintf(out, ", \"speed_gbps\": %g, \"cable_m\": %g,\n     \"pfc\": {\"priorities\": [", pt->gbps,
			pt->cable_m);
		for (unsigned k = 0; k < rf->qos.nlossless; k++)
			fprintf(out, "%s%u", k ? ", " : "", rf->qos.lossless[k]);
		fprintf(out, "], \"headroom_bytes\": %u},\n     \"ecn\": {\"min_kb\": %.1f, \"max_kb\": %.1f, "
			     "\"probability_pct\": %g}}",
			pfc_headroom_bytes(pt->gbps, pt->cable_m, rf->mtu), ecn.min_kb, ecn.max_kb, ecn.probability);
	}
	fprintf(out, "\n  ],\n");
}

static void write_qos(FILE *out, const struct roce_qos *q)
{
	fprintf(out, "  \"qos\": {\"lossless_priorities\": [");
	for (unsigned k = 0; k < q->nlossless; k++)
		fprintf(out, "%s%u", k ? ", " : "", q->lossless[k]);
	fprintf(out, "], \"cnp\": {\"priority\": %u, \"dscp\": %u},\n    \"dscp_to_priority\": {", q->cnp_prio,
		q->cnp_dscp);
	bool first = true;
	for (unsigned d = 0; d < ROCE_DSCPS; d++)
		if (q->prio_of_dscp[d]) {
			fprintf(out, "%s\"%u\": %u", first ? "" : ", ", d, q->prio_of_dscp[d]);
			first = false;
		}
	fprintf(out, "}, \"other_dscp_priority\": 0},\n");
}

/*
 * The distinct next-hop sets of switch s (ECMP groups, as switch ASICs
 * hold them): group_of[d] is destination d's group, -1 for none (local or
 * unreachable). Returns the number of groups; the first destination of
 * each group is first_of[g].
 */
static size_t find_groups(const struct roce_plan *p, size_t s, int *group_of, size_t *first_of)
{
	size_t ngroups = 0;
	for (size_t d = 0; d < p->tables.ndst; d++) {
		const uint8_t *ports, *other;
		unsigned n = ecmp_hops(&p->tables, d, s, &ports);
		group_of[d] = -1;
		for (size_t g = 0; g < ngroups && n && group_of[d] < 0; g++)
			if (ecmp_hops(&p->tables, first_of[g], s, &other) == n && memcmp(ports, other, n) == 0)
				group_of[d] = (int)g;
		if (n && group_of[d] < 0) {
			first_of[ngroups] = d;
			group_of[d] = (int)ngroups++;
		}
	}
	return ngroups;
}

static void write_groups(FILE *out, const struct roce_plan *p, size_t s, const size_t *first_of, size_t ngroups)
{
	const struct roce_switch *sw = &p->rf->sw[s];
	fprintf(out, "  \"next_hop_groups\": [");
	for (size_t g = 0; g < ngroups; g++) {
		const uint8_t *ports;
		unsigned n = ecmp_hops(&p->tables, first_of[g], s, &ports);
		fprintf(out, "%s\n    {\"id\": %zu, \"next_hops\": [", g ? "," : "", g);
		for (unsigned i = 0; i < n; i++) {
			const struct roce_port *pt = &sw->ports[ports[i] - 1];
			fprintf(out, "%s{\"port\": ", i ? ", " : "");
			json_string(out, pt->name);
			fprintf(out, ", \"neighbour\": ");
			json_string(out, p->rf->sw[pt->peer_sw].name);
			fprintf(out, "}");
		}
		fprintf(out, "]}");
	}
	fprintf(out, "\n  ],\n");
}

/* Switch s's route to prefix, which is at destination d of the tables. */
static void write_route(FILE *out, const struct roce_plan *p, size_t s, size_t d, int group, const char *prefix,
			bool host, bool *first)
{
	bool local = p->tables.dst_node[d] == s;
	if (group < 0 && !local)
		return;		/* unreachable: the summary says so */
	fprintf(out, "%s\n    {\"prefix\": ", *first ? "" : ",");
	*first = false;
	json_string(out, prefix);
	fprintf(out, ", \"class\": \"%s\", ", host ? "hosts" : "loopback");
	if (local)
		fprintf(out, "\"connected\": true}");
	else
		fprintf(out, "\"group\": %d}", group);
}

static void write_json(FILE *out, const struct roce_plan *p, size_t s, int *group_of, size_t *first_of)
{
	const struct roce_fabric *rf = p->rf;
	const struct roce_switch *sw = &rf->sw[s];
	fprintf(out, "{\n  \"format\": \"" PLAN_FORMAT "\",\n  \"fabric\": ");
	json_string(out, rf->name);
	fprintf(out, ",\n  \"switch\": ");
	json_string(out, sw->name);
	fprintf(out, ",\n  \"tier\": %u,\n", sw->tier);
	uint32_t asn = p->bgp ? p->asn.asn[s] : sw->asn;
	if (asn)
		fprintf(out, "  \"asn\": %u,\n", asn);
	if (sw->loopback[0]) {
		fprintf(out, "  \"loopback\": ");
		json_string(out, sw->loopback);
		fprintf(out, ",\n");
	}
	fprintf(out, "  \"mtu\": %u,\n", rf->mtu);
	write_ports(out, p, sw);
	write_qos(out, &rf->qos);
	write_groups(out, p, s, first_of, find_groups(p, s, group_of, first_of));
	fprintf(out, "  \"routes\": [");
	bool first = true;
	for (size_t d = 0; d < p->tables.ndst; d++) {
		const struct roce_switch *to = &rf->sw[p->tables.dst_node[d]];
		for (size_t k = 0; k < to->nprefixes; k++)
			write_route(out, p, s, d, group_of[d], to->prefixes[k], true, &first);
		if (p->loopbacks && to->loopback[0]) {
			char lo[ROCE_ADDR_LEN + 8];
			snprintf(lo, sizeof(lo), "%s/%u", to->loopback, strchr(to->loopback, ':') ? 128 : 32);
			write_route(out, p, s, d, group_of[d], lo, false, &first);
		}
	}
	fprintf(out, "\n  ]\n}\n");
}

/*
 * Routes carry their next hops themselves, not kernel nexthop groups:
 * FRR before 9.0 can leave a group short of a next hop after that link
 * flaps (the roce twin caught it: FRR PR 13413), and SONiC configures
 * zebra the same way.
 */
#define ZEBRA_NHG_OFF "! kernel nexthop groups off: FRR < 9.0 loses ECMP members after a link flap\n" \
		      "no zebra nexthop kernel enable\n"

static void write_frr(FILE *out, const struct roce_plan *p, size_t s)
{
	const struct roce_fabric *rf = p->rf;
	const struct roce_switch *sw = &rf->sw[s];
	fprintf(out, "! FRR static routes for %s in %s, planned by fabricd (up/down ECMP, CBD-free)\n"
		     "frr defaults datacenter\nhostname %s\n" ZEBRA_NHG_OFF "!\n", sw->name, rf->name, sw->name);
	if (sw->loopback[0])
		fprintf(out, "interface lo\n %s address %s/%u\n!\n", strchr(sw->loopback, ':') ? "ipv6" : "ip",
			sw->loopback, strchr(sw->loopback, ':') ? 128 : 32);
	for (size_t d = 0; d < p->tables.ndst; d++) {
		const struct roce_switch *to = &rf->sw[p->tables.dst_node[d]];
		const uint8_t *ports;
		unsigned n = ecmp_hops(&p->tables, d, s, &ports);
		for (size_t k = 0; k <= to->nprefixes && to != sw; k++) {
			bool loopback = k == to->nprefixes;
			const char *pfx = loopback ? to->loopback : to->prefixes[k];
			if (!pfx[0] || (loopback && !p->loopbacks))
				continue;
			bool v6 = strchr(pfx, ':') != NULL;
			for (unsigned i = 0; i < n; i++)
				fprintf(out, "%s route %s%s %s\n", v6 ? "ipv6" : "ip", pfx, loopback ? v6 ? "/128" : "/32" : "",
					sw->ports[ports[i] - 1].name);
		}
	}
	fprintf(out, "!\nend\n");
}

/* The gateway address of a host prefix: its first address ("10.0.3.1/24"); false for a /32 or /128. */
static bool gateway_of(const char *prefix, char *out, size_t len)
{
	char addr[ROCE_ADDR_LEN];
	unsigned char bytes[16];
	const char *slash = strchr(prefix, '/');
	bool v6 = strchr(prefix, ':') != NULL;
	if (!slash || (size_t)(slash - prefix) >= sizeof(addr))
		return false;
	memcpy(addr, prefix, (size_t)(slash - prefix));
	addr[slash - prefix] = 0;
	unsigned bits = (unsigned)atoi(slash + 1), width = v6 ? 128 : 32;
	if (bits >= width || inet_pton(v6 ? AF_INET6 : AF_INET, addr, bytes) != 1)
		return false;
	bytes[width / 8 - 1] |= 1;	/* the prefix has no host bits (checked on reading) */
	char text[INET6_ADDRSTRLEN];
	if (!inet_ntop(v6 ? AF_INET6 : AF_INET, bytes, text, sizeof(text)))
		return false;
	snprintf(out, len, "%s/%u", text, bits);
	return true;
}

/*
 * The switch's FRR configuration for eBGP (RFC 7938): BGP unnumbered on
 * every fabric port (IPv6 link-local sessions, router advertisements on),
 * the plan's ASN, ECMP over equal AS paths from different neighbours, the
 * host prefixes announced from their leaf with the gateway address on the
 * "hosts" bridge (the host ports' VLAN), the loopback announced too.
 */
static void write_frr_bgp(FILE *out, const struct roce_plan *p, size_t s)
{
	const struct roce_fabric *rf = p->rf;
	const struct roce_switch *sw = &rf->sw[s];
	bool lo6 = strchr(sw->loopback, ':') != NULL;
	bool any6 = lo6, any4 = sw->loopback[0] && !lo6;
	fprintf(out, "! FRR eBGP for %s in %s, planned by fabricd (RFC 7938 ASNs, up/down ECMP, CBD-free)\n"
		     "frr defaults datacenter\nhostname %s\n" ZEBRA_NHG_OFF "!\n", sw->name, rf->name, sw->name);
	if (sw->loopback[0])
		fprintf(out, "interface lo\n %s address %s/%u\n!\n", lo6 ? "ipv6" : "ip", sw->loopback, lo6 ? 128 : 32);
	for (size_t k = 0; k < sw->nprefixes; k++) {
		char gw[ROCE_ADDR_LEN + 8];
		bool v6 = strchr(sw->prefixes[k], ':') != NULL;
		any6 |= v6;
		any4 |= !v6;
		if (gateway_of(sw->prefixes[k], gw, sizeof(gw)))
			fprintf(out, "interface hosts\n %s address %s\n!\n", v6 ? "ipv6" : "ip", gw);
	}
	for (size_t q = 0; q < sw->nports; q++)
		if (!sw->ports[q].host && sw->ports[q].peer_sw != ROCE_NONE)
			fprintf(out, "interface %s\n ipv6 nd ra-interval 10\n no ipv6 nd suppress-ra\n!\n", sw->ports[q].name);
	fprintf(out, "router bgp %u\n", p->asn.asn[s]);
	if (any4 && sw->loopback[0] && !lo6)
		fprintf(out, " bgp router-id %s\n", sw->loopback);
	else	/* a router ID is a 32-bit number; without an IPv4 loopback, one from the switch's index */
		fprintf(out, " bgp router-id 100.64.%zu.%zu\n", (s + 1) / 256 % 256, (s + 1) % 256);
	fprintf(out, " bgp bestpath as-path multipath-relax\n no bgp ebgp-requires-policy\n"
		     " neighbor fabric peer-group\n neighbor fabric remote-as external\n");
	for (size_t q = 0; q < sw->nports; q++)
		if (!sw->ports[q].host && sw->ports[q].peer_sw != ROCE_NONE)
			fprintf(out, " neighbor %s interface peer-group fabric\n", sw->ports[q].name);
	for (int fam = 0; fam < 2; fam++) {
		bool v6 = fam == 1;
		if (!(v6 ? any6 : any4))
			continue;
		fprintf(out, " !\n address-family %s unicast\n", v6 ? "ipv6" : "ipv4");
		if (v6)
			fprintf(out, "  neighbor fabric activate\n");
		for (size_t k = 0; k < sw->nprefixes; k++)
			if ((strchr(sw->prefixes[k], ':') != NULL) == v6)
				fprintf(out, "  network %s\n", sw->prefixes[k]);
		if (sw->loopback[0] && lo6 == v6)
			fprintf(out, "  network %s/%u\n", sw->loopback, v6 ? 128 : 32);
		fprintf(out, "  maximum-paths 64\n exit-address-family\n");
	}
	fprintf(out, "!\nend\n");
}

/* A JSON string YAML can show unquoted without it reading as a number, bool or null. */
static bool plain_safe(const char *s)
{
	static const char *words[] = { "true", "false", "null", "yes", "no", "on", "off", "y", "n", "~" };
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcasecmp(s, words[i]) == 0)
			return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-/") == strlen(s);
}

/* Re-emits the JSON document at in as block-style YAML at out. */
static int json_to_yaml(FILE *in, FILE *out)
{
	yaml_parser_t parser;
	yaml_emitter_t emitter;
	yaml_event_t ev;
	int rc = 0, done = 0;
	yaml_parser_initialize(&parser);
	yaml_emitter_initialize(&emitter);
	yaml_parser_set_input_file(&parser, in);
	yaml_emitter_set_output_file(&emitter, out);
	yaml_emitter_set_width(&emitter, 120);
	while (!done && rc == 0) {
		if (!yaml_parser_parse(&parser, &ev)) {
			rc = -1;
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		if (ev.type == YAML_MAPPING_START_EVENT)
			ev.data.mapping_start.style = YAML_BLOCK_MAPPING_STYLE;
		else if (ev.type == YAML_SEQUENCE_START_EVENT)
			ev.data.sequence_start.style = YAML_BLOCK_SEQUENCE_STYLE;
		else if (ev.type == YAML_SCALAR_EVENT && ev.data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE &&
			 plain_safe((const char *)ev.data.scalar.value))
			ev.data.scalar.style = YAML_PLAIN_SCALAR_STYLE, ev.data.scalar.plain_implicit = 1;
		if (!yaml_emitter_emit(&emitter, &ev))	/* takes ownership of ev */
			rc = -1;
	}
	yaml_emitter_delete(&emitter);
	yaml_parser_delete(&parser);
	return rc;
}

/* Opens dir/name.ext for writing; NULL with why in err. */
static FILE *open_out(const char *dir, const char *name, const char *ext, const char *mode, char *err, size_t len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s.%s", dir, name, ext);
	FILE *f = fopen(path, mode);
	if (!f)
		snprintf(err, len, "%s: %s", path, strerror(errno));
	return f;
}

static int close_out(FILE *f, const char *dir, const char *name, const char *ext, char *err, size_t len)
{
	if (ferror(f) | (fclose(f) != 0)) {
		snprintf(err, len, "%s/%s.%s: write failed: %s", dir, name, ext, strerror(errno));
		return -1;
	}
	return 0;
}

static int write_switch(const struct roce_plan *p, size_t s, const char *dir, int *group_of, size_t *first_of,
			char *err, size_t len)
{
	const char *name = p->rf->sw[s].name;
	FILE *f = open_out(dir, name, "json", "w+", err, len);
	if (!f)
		return -1;
	write_json(f, p, s, group_of, first_of);
	rewind(f);
	FILE *y = open_out(dir, name, "yaml", "w", err, len);
	int rc = y ? json_to_yaml(f, y) : -1;
	if (y && rc < 0)
		snprintf(err, len, "%s/%s.yaml: could not convert the JSON", dir, name);
	if (y && close_out(y, dir, name, "yaml", err, len) < 0)
		rc = -1;
	if (close_out(f, dir, name, "json", err, len) < 0 || rc < 0)
		return -1;
	FILE *r = open_out(dir, name, "frr.conf", "w", err, len);
	if (!r)
		return -1;
	if (p->bgp)
		write_frr_bgp(r, p, s);
	else
		write_frr(r, p, s);
	if (close_out(r, dir, name, "frr.conf", err, len) < 0 || !(r = open_out(dir, name, "sonic.json", "w", err, len)))
		return -1;
	plan_write_sonic(r, p, s);
	return close_out(r, dir, name, "sonic.json", err, len);
}

int plan_write_switches(const struct roce_plan *p, const char *dir, char *err, size_t len)
{
	int *group_of = malloc((p->tables.ndst + 1) * sizeof(*group_of));
	size_t *first_of = malloc((p->tables.ndst + 1) * sizeof(*first_of));
	int rc = group_of && first_of ? 0 : -1;
	if (rc < 0)
		snprintf(err, len, "%s: out of memory", dir);
	for (size_t s = 0; s < p->rf->nsw && rc == 0; s++)
		rc = write_switch(p, s, dir, group_of, first_of, err, len);
	FILE *nic = rc == 0 ? open_out(dir, "hosts-nic", "sh", "w", err, len) : NULL;
	if (nic) {
		plan_write_nic(nic, p);
		rc = close_out(nic, dir, "hosts-nic", "sh", err, len);
	} else
		rc = -1;
	free(group_of);
	free(first_of);
	return rc;
}

bool plan_safe(const struct roce_plan *p)
{
	bool safe = roce_scenario_safe(&p->design) && !p->design.cut_pairs && roce_bgp_safe(p, &p->design);
	for (size_t i = 0; i < p->nfailures; i++)
		safe &= roce_scenario_safe(&p->failures[i]) && roce_bgp_safe(p, &p->failures[i]);
	for (size_t i = 0; i < p->nswitch_failures; i++)
		safe &= roce_scenario_safe(&p->switch_failures[i]) && roce_bgp_safe(p, &p->switch_failures[i]);
	return safe;
}

/* One line on what the checks of r found. */
static void verdict(FILE *out, const struct roce_plan *p, const struct ecmp_report *r, size_t cut)
{
	char cycle[1024];
	if (r->loops || r->bad_hops || r->unreachable > cut)
		fprintf(out, "UNSAFE: %s", r->first_problem);	/* with cut pairs this may name one of them */
	else if (r->cbd.cycle_len) {
		roce_cycle_text(p, &r->cbd, cycle, sizeof(cycle));
		fprintf(out, "UNSAFE: cyclic buffer dependency %s", cycle);
	} else
		fprintf(out, "loop-free, no CBD (%zu channels, %zu dependencies)", r->cbd.channels,
			r->cbd.dependencies);
	if (cut)
		fprintf(out, "; %zu (leaf, destination switch) pairs have no path left", cut);
}

/* What eBGP converged to in sc: its proofs, and how it compares with the planned tables. */
static void bgp_verdict(FILE *out, const struct roce_plan *p, const struct roce_scenario *sc)
{
	if (sc->bgp_unsettled) {
		fprintf(out, "UNSAFE: no fixed point for %zu destinations", sc->bgp_unsettled);
		return;
	}
	verdict(out, p, &sc->bgp, sc->cut_pairs);
	if (sc->bgp_differs)
		fprintf(out, " (next hops differ from the planned tables on %zu switches)", sc->bgp_differs);
	else
		fprintf(out, " (the planned tables exactly)");
}

/* One line per scenario of sc[0..n), then the totals ("KIND: 3 safe, ..."). */
static void write_failures(FILE *out, const struct roce_plan *p, const struct roce_scenario *sc, size_t n,
			   const char *kind)
{
	size_t unsafe = 0, cut = 0, sp_unsafe = 0, bgp_same = 0, bgp_unsafe = 0;
	for (size_t i = 0; i < n; i++, sc++) {
		char what[256];
		if (sc->failed_switch != ROCE_NONE)
			snprintf(what, sizeof(what), "%s", p->rf->sw[sc->failed_switch].name);
		else
			roce_link_text(p->rf, sc->failed_link, what, sizeof(what));
		fprintf(out, "  %s down: %zu switches change tables%s; ", what, sc->changed,
			sc->center ? ", ranked from the centre" : "");
		verdict(out, p, &sc->check, sc->cut_pairs);
		if (!roce_report_safe(&sc->shortest, sc->cut_pairs)) {
			fprintf(out, "; shortest-path ECMP would be ");
			verdict(out, p, &sc->shortest, sc->cut_pairs);
			sp_unsafe++;
		}
		if (roce_bgp_simulated(p)) {
			fprintf(out, "; eBGP converges to ");
			bgp_verdict(out, p, sc);
		}
		fprintf(out, "\n");
		unsafe += !roce_scenario_safe(sc);
		cut += sc->cut_pairs > 0;
		bgp_unsafe += roce_bgp_simulated(p) && (sc->bgp_unsettled || !roce_report_safe(&sc->bgp, sc->cut_pairs));
		bgp_same += roce_bgp_simulated(p) && !sc->bgp_differs;
	}
	fprintf(out, "%s: %zu safe, %zu unsafe, %zu cut a switch off; shortest-path ECMP unsafe after %zu\n", kind,
		n - unsafe, unsafe, cut, sp_unsafe);
	if (roce_bgp_simulated(p))
		fprintf(out, "eBGP after %s: %zu safe, %zu unsafe; the planned tables exactly after %zu of %zu\n", kind,
			n - bgp_unsafe, bgp_unsafe, bgp_same, n);
}

void plan_write_summary(FILE *out, const struct roce_plan *p, const char *input)
{
	const struct roce_fabric *rf = p->rf;
	size_t prefixes = 0, tiers[16] = { 0 };
	for (size_t i = 0; i < rf->nsw; i++) {
		prefixes += rf->sw[i].nprefixes;
		tiers[rf->sw[i].tier]++;
	}
	fprintf(out, "RoCE plan for %s (%s)\n", rf->name[0] ? rf->name : "unnamed fabric", input);
	fprintf(out, "  %zu switches (", rf->nsw);
	for (unsigned t = 0, first = 1; t < 16; t++)
		if (tiers[t]) {
			fprintf(out, "%stier %u: %zu", first ? "" : ", ", t, tiers[t]);
			first = 0;
		}
	fprintf(out, "), %zu links, %zu host prefixes, MTU %u\n  lossless priorities:", rf->nlinks, prefixes,
		rf->mtu);
	for (unsigned k = 0; k < rf->qos.nlossless; k++)
		fprintf(out, " %u", rf->qos.lossless[k]);
	fprintf(out, "; CNP priority %u (DSCP %u)\n", rf->qos.cnp_prio, rf->qos.cnp_dscp);
	fprintf(out, "routing: up/down ECMP ranked %s, to host prefixes%s; %zu entries take a plain shortest path "
		     "(switch-originated traffic only)\n",
		p->design.center ? "from the centre (tiers left a leaf without a path)" : "by tier",
		p->loopbacks ? " and loopbacks" : "", p->tables.escapes);
	if (p->bgp && p->asn.safe)
		fprintf(out, "BGP: %s: no route can go down and up again (AS-path loop detection rejects every valley)\n",
			p->asn.assigned ? "AS numbers assigned per RFC 7938 (each leaf its own, each pod and the top tier "
					  "one)" : "the given AS numbers");
	else if (p->bgp)
		fprintf(out, "BGP: UNSAFE AS numbers: %s\n", p->asn.problem);
	else
		fprintf(out, "BGP: none (static routes)\n");
	fprintf(out, "as designed: ");
	verdict(out, p, &p->design.check, p->design.cut_pairs);
	fprintf(out, "\n  shortest-path ECMP (what an unconstrained IGP/BGP installs): ");
	verdict(out, p, &p->design.shortest, p->design.cut_pairs);
	if (roce_bgp_simulated(p)) {
		fprintf(out, "\n  eBGP as it converges with these ASNs: ");
		bgp_verdict(out, p, &p->design);
	}
	fprintf(out, "\nsingle link failures: %zu of %zu links analysed\n", p->nfailures, rf->nlinks);
	write_failures(out, p, p->failures, p->nfailures, "failures");
	fprintf(out, "single switch failures: %zu of %zu switches analysed\n", p->nswitch_failures, rf->nsw);
	write_failures(out, p, p->switch_failures, p->nswitch_failures, "switch failures");
	fprintf(out, "verdict: %s\n", plan_safe(p) ? "SAFE" : "UNSAFE");
}
