/*
 * DOC: fabric-gen
 *
 * Writes a generated fat tree as an ibsim net file, ibnetdiscover text, or
 * RoCE planning input (YAML, see docs/roce.md):
 *   fabric-gen --levels 2 --radix 36 [--pods N] [--remove-links N] [--remove-switches N]
 *              [--seed S] [--format ibsim|ibnetdiscover|roce] [-o FILE]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology/fattree_gen.h"
#include "topology/netfile.h"
#include "topology/roce_gen.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: fabric-gen --levels 2|3 --radix K [--pods N] [--remove-links N] [--remove-switches N]\n"
		     "                  [--seed S] [--format ibsim|ibnetdiscover|roce] [-o FILE]\n"
		     "  --pods N  3 levels: build N of the K pods; 2 levels: N leaves\n");
}

static int parse_uint(const char *opt, const char *arg, unsigned long long *out)
{
	char *end;
	errno = 0;
	*out = strtoull(arg, &end, 0);
	if (*arg == '\0' || *end || errno || *arg == '-') {
		fprintf(stderr, "fabric-gen: %s needs a non-negative number, not '%s'\n", opt, arg);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "levels", required_argument, NULL, 'l' },
		{ "radix", required_argument, NULL, 'k' },
		{ "pods", required_argument, NULL, 'p' },
		{ "remove-links", required_argument, NULL, 'r' },
		{ "remove-switches", required_argument, NULL, 'w' },
		{ "seed", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct fattree_spec spec = { .levels = 2, .radix = 0, .seed = 1 };
	enum netfile_style style = NETFILE_IBSIM;
	bool roce = false;
	const char *out_path = NULL;
	unsigned long long v;
	int c;

	while ((c = getopt_long(argc, argv, "l:k:p:r:w:s:f:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'l': case 'k': case 'p': case 'r': case 'w': case 's':
			if (parse_uint(argv[optind - 1], optarg, &v) < 0)
				return 2;
			if (c == 'l') spec.levels = (unsigned)v;
			if (c == 'k') spec.radix = (unsigned)v;
			if (c == 'p') spec.pods = (unsigned)v;
			if (c == 'r') spec.remove_links = (unsigned)v;
			if (c == 'w') spec.remove_switches = (unsigned)v;
			if (c == 's') spec.seed = v;
			break;
		case 'f':
			if (strcmp(optarg, "ibsim") == 0)
				style = NETFILE_IBSIM;
			else if (strcmp(optarg, "ibnetdiscover") == 0)
				style = NETFILE_IBNETDISCOVER;
			else if (strcmp(optarg, "roce") == 0)
				roce = true;
			else {
				fprintf(stderr, "fabric-gen: unknown format '%s'\n", optarg);
				return 2;
			}
			break;
		case 'o':
			out_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || !spec.radix) {
		usage(stderr);
		return 2;
	}
	struct fabric f;
	char err[256];
	if (fattree_generate(&spec, &f, err) < 0) {
		fprintf(stderr, "fabric-gen: %s\n", err);
		return 1;
	}
	FILE *out = out_path ? fopen(out_path, "w") : stdout;
	if (!out) {
		fprintf(stderr, "fabric-gen: %s: %s\n", out_path, strerror(errno));
		fabric_free(&f);
		return 1;
	}
	/* a RoCE fabric is named after its file: "dir/clos3.yaml" is clos3 */
	char name[64] = "generated";
	if (out_path) {
		const char *base = strrchr(out_path, '/') ? strrchr(out_path, '/') + 1 : out_path;
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(base, "."), base);
	}
	int rc = roce ? roce_gen_write(out, &f, name) : netfile_write(out, &f, style);
	if ((out_path && fclose(out) != 0) || rc < 0) {
		fprintf(stderr, "fabric-gen: write failed: %s\n", strerror(errno));
		rc = -1;
	}
	fabric_free(&f);
	return rc < 0 ? 1 : 0;
}
