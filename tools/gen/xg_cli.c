/*
 * xg_cli.c - the command line of xtop-gen: parses and checks the options
 * into a struct xg_cfg (see xg_cli.h).
 */
#include "xg_cli.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xg_die.h"
#include "xg_plan.h"

static void xg_cli_usage(FILE *f)
{
	fputs("usage: xtop-gen [options] -o FILE\n"
	      "Writes a synthetic XSpace profile (*.xplane.pb) shaped like real XLA profiles.\n"
	      "  --kind tpu|gpu    device planes: TPU-like (default) or GPU-like\n"
	      "  --events N        approximate number of XEvents (default 20000;\n"
	      "                    K/M/G = 10^3/6/9)\n"
	      "  --size BYTES      instead: generate at least this many bytes of XSpace\n"
	      "                    (uncompressed; K/M/G/T = 2^10/20/30/40)\n"
	      "  --devices D       device planes (default 4 for tpu, 2 for gpu; 1..256)\n"
	      "  --steps S         training steps (default 10; 1..100000)\n"
	      "  --seed X          PRNG seed (default 1); same arguments give identical bytes\n"
	      "  --gzip            write gzip-compressed output\n"
	      "  --expect FILE     also write the expected analysis results as JSON\n"
	      "  --scale FILE K    instead: copy the profile FILE (.pb or .pb.gz) with every\n"
	      "                    line's events repeated K times: each copy is the run\n"
	      "                    again, shifted by the profile's span, its step, launch\n"
	      "                    and run ids renumbered\n"
	      "  -o, --output FILE output file (written to a temporary file, then renamed)\n"
	      "  -h, --help        show this help\n", f);
}

/* a decimal number with an optional K/M/G/T suffix: powers of 1000, or of
 * 1024 when binary (which also accepts a B or iB after the suffix) */
static uint64_t xg_cli_parse_num(const char *opt, const char *s, int binary)
{
	char *end;
	errno = 0;
	if (*s < '0' || *s > '9')
		xg_die("%s: not a number: '%s'", opt, s);
	unsigned long long v = strtoull(s, &end, 10);
	uint64_t mul = 1;
	if (*end) {
		const char *units = "KMGT", *u = strchr(units, *end & ~0x20);
		if (!u || !*u)
			xg_die("%s: bad suffix in '%s'", opt, s);
		for (long i = 0; i <= u - units; i++)
			mul *= binary ? 1024 : 1000;
		end++;
		if (binary && (*end == 'i' || *end == 'I') && (end[1] == 'B' || end[1] == 'b'))
			end += 2;
		else if (binary && (*end == 'B' || *end == 'b'))
			end++;
		if (*end)
			xg_die("%s: bad suffix in '%s'", opt, s);
	}
	if (errno || v > UINT64_MAX / mul)
		xg_die("%s: number too large: '%s'", opt, s);
	return (uint64_t)v * mul;
}

void xg_cli_parse(int argc, char **argv, struct xg_cfg *cfg)
{
	static const char *const with_value[] = { "--kind", "--events", "--size", "--devices",
						   "--steps", "--seed", "--expect", "-o", "--output" };
	int have_events = 0, have_shape = 0;
	memset(cfg, 0, sizeof *cfg);
	cfg->events = 20000;
	cfg->steps = 10;
	cfg->seed = 1;
	cfg->devices = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		size_t nlen = eq && a[1] == '-' ? (size_t)(eq - a) : strlen(a);
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			xg_cli_usage(stdout);
			exit(0);
		}
		if (!strcmp(a, "--gzip")) {
			cfg->gzip = 1;
			continue;
		}
		if (!strcmp(a, "--scale")) {
			if (i + 2 >= argc)
				xg_die("--scale needs a profile and a factor: --scale FILE K");
			cfg->scale_in = argv[++i];
			cfg->scale_k = xg_cli_parse_num("--scale", argv[++i], 0);
			if (cfg->scale_k < 1 || cfg->scale_k > 1000000)
				xg_die("--scale: K must be between 1 and 10^6");
			continue;
		}
		const char *opt = NULL, *val = NULL;
		for (size_t o = 0; o < sizeof with_value / sizeof *with_value; o++)
			if (strlen(with_value[o]) == nlen && !strncmp(a, with_value[o], nlen))
				opt = with_value[o];
		if (!opt)
			xg_die("unknown option '%s' (see --help)", a);
		if (nlen < strlen(a))
			val = a + nlen + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		else
			xg_die("option %s needs a value", opt);
		if (strcmp(opt, "--seed") && strcmp(opt, "-o") && strcmp(opt, "--output"))
			have_shape = 1;
		if (!strcmp(opt, "--kind")) {
			if (!strcmp(val, "tpu"))
				cfg->kind = KIND_TPU;
			else if (!strcmp(val, "gpu"))
				cfg->kind = KIND_GPU;
			else
				xg_die("--kind: expected tpu or gpu, got '%s'", val);
		} else if (!strcmp(opt, "--events")) {
			cfg->events = xg_cli_parse_num(opt, val, 0);
			have_events = 1;
			if (cfg->events < 1 || cfg->events > 1000000000000ull)
				xg_die("--events: must be between 1 and 10^12");
		} else if (!strcmp(opt, "--size")) {
			cfg->size = xg_cli_parse_num(opt, val, 1);
			if (cfg->size < 1 || cfg->size > (64ull << 40))
				xg_die("--size: must be between 1 byte and 64 TiB");
		} else if (!strcmp(opt, "--devices")) {
			uint64_t v = xg_cli_parse_num(opt, val, 0);
			if (v < 1 || v > 256)
				xg_die("--devices: must be between 1 and 256");
			cfg->devices = (int)v;
		} else if (!strcmp(opt, "--steps")) {
			uint64_t v = xg_cli_parse_num(opt, val, 0);
			if (v < 1 || v > 100000)
				xg_die("--steps: must be between 1 and 100000");
			cfg->steps = (int)v;
		} else if (!strcmp(opt, "--seed")) {
			cfg->seed = xg_cli_parse_num(opt, val, 0);
		} else if (!strcmp(opt, "--expect")) {
			cfg->expect = val;
		} else {
			cfg->out = val;
		}
	}
	if (!cfg->out)
		xg_die("no output file given (-o FILE)");
	if (have_events && cfg->size)
		xg_die("--events and --size are mutually exclusive");
	if (cfg->scale_in && have_shape)
		xg_die("--scale copies a profile: it takes only -o and --gzip");
	if (cfg->devices < 0)
		cfg->devices = cfg->kind == KIND_GPU ? 2 : 4;
}
