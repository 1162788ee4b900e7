/* cmd-show.c: "memcgctl show": every memory knob and counter of one cgroup, grouped. */
#include "memcgctl.h"
#include "output.h"

#include <string.h>

struct show_args {
	const char *cgroup;
};

static error_t show_parse(int key, char *arg, struct argp_state *state)
{
	struct show_args *a = state->input;

	switch (key) {
	case ARGP_KEY_ARG:
		if (a->cgroup)
			argp_error(state, "too many arguments: '%s'", arg);
		a->cgroup = arg;
		break;
	case ARGP_KEY_END:
		if (!a->cgroup)
			argp_error(state, "missing CGROUP");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp show_argp = {
	NULL, show_parse, "CGROUP",
	"Show every memory knob and counter of CGROUP: limits, usage, memory.stat (normalised "
	"names, then every key as the kernel printed it), events and pressure. CGROUP is a path "
	"relative to the hierarchy root, an absolute cgroupfs path, or pid:N.",
	cli_common_children, NULL, NULL,
};

static const enum mcg_field limit_fields[] = {
	MCG_F_LIMIT,	   MCG_F_HIGH,	      MCG_F_LOW,	 MCG_F_MIN,	  MCG_F_SOFT,
	MCG_F_SWAP_LIMIT, MCG_F_MEMSW_LIMIT, MCG_F_EFFECTIVE_LIMIT, MCG_F_SWAPPINESS,
	MCG_F_OOM_KILL_DISABLE,
};
static const enum mcg_field usage_fields[] = {
	MCG_F_USAGE, MCG_F_PEAK, MCG_F_SWAP_USAGE, MCG_F_MEMSW_USAGE, MCG_F_KMEM_USAGE,
};
static const enum mcg_field event_fields[] = {
	MCG_F_FAILCNT,	  MCG_F_EV_LOW,	     MCG_F_EV_HIGH,	      MCG_F_EV_MAX,
	MCG_F_EV_OOM,	  MCG_F_EV_OOM_KILL, MCG_F_EV_OOM_GROUP_KILL, MCG_F_UNDER_OOM,
	MCG_F_NR_PROCS,	  MCG_F_NR_CHILDREN,
};

static void text_field(const struct mcg_info *i, enum mcg_field f)
{
	char b[48];

	if (!mcg_info_has(i, f))
		return;
	if (mcg_field_is_bytes(f))
		printf("  %-24s %s\n", mcg_field_name(f), cli_size(i->f[f], b, sizeof(b)));
	else
		printf("  %-24s %llu\n", mcg_field_name(f), (unsigned long long)i->f[f]);
}

static void text_fields(const char *title, const struct mcg_info *i, const enum mcg_field *f,
			size_t n)
{
	size_t k;

	printf("%s:\n", title);
	for (k = 0; k < n; k++)
		text_field(i, f[k]);
}

static bool is_normalised_key(const char *key, int version)
{
	unsigned s;

	for (s = 0; s < MCG_S__COUNT; s++)
		if (version == 2 && !strcmp(key, mcg_stat_name(s)))
			return true;
	return false;
}

static void show_text(const struct mcg_info *i, const struct mcg_ctx *ctx)
{
	char b[48];
	size_t k;
	unsigned s;

	printf("cgroup %s (cgroup v%d, %s)\n", out_esc(i->path), i->version,
	       out_esc(mcg_ctx_root(ctx)));
	text_fields("limits", i, limit_fields, sizeof(limit_fields) / sizeof(limit_fields[0]));
	text_fields("usage", i, usage_fields, sizeof(usage_fields) / sizeof(usage_fields[0]));
	printf("memory:\n");
	for (s = 0; s < MCG_S__COUNT; s++) {
		if (!mcg_stat_has(&i->stat, s))
			continue;
		if (mcg_stat_is_bytes(s))
			printf("  %-24s %s\n", mcg_stat_name(s), cli_size(i->stat.v[s], b, sizeof(b)));
		else
			printf("  %-24s %llu\n", mcg_stat_name(s), (unsigned long long)i->stat.v[s]);
	}
	text_fields("events", i, event_fields, sizeof(event_fields) / sizeof(event_fields[0]));
	if (i->psi.some_valid || i->psi.full_valid) {
		printf("pressure:\n");
		if (i->psi.some_valid)
			printf("  some avg10=%.2f avg60=%.2f avg300=%.2f total=%llu\n", i->psi.some.avg10,
			       i->psi.some.avg60, i->psi.some.avg300,
			       (unsigned long long)i->psi.some.total_us);
		if (i->psi.full_valid)
			printf("  full avg10=%.2f avg60=%.2f avg300=%.2f total=%llu\n", i->psi.full.avg10,
			       i->psi.full.avg60, i->psi.full.avg300,
			       (unsigned long long)i->psi.full.total_us);
	}
	/* Every other memory.stat key, as the kernel printed it: nothing is dropped. */
	printf(i->version == 2 ? "memory.stat (other keys):\n"
			       : "memory.stat (as the kernel printed it):\n");
	for (k = 0; k < i->stat.n_raw; k++) {
		if (is_normalised_key(i->stat.raw[k].key, i->version))
			continue;
		printf("  %-24s %llu\n", out_esc(i->stat.raw[k].key),
		       (unsigned long long)i->stat.raw[k].value);
	}
}

/*
 * The JSON key of a byte amount (memcgctl-json(7)): the name with "_bytes",
 * "swap_usage" as "swap_bytes"; memory.stat's file_dirty and file_writeback
 * as dirty_bytes and writeback_bytes (the names list and top use).
 */
static const char *bytes_key(const char *name, char *buf, size_t len)
{
	size_t n = strlen(name);

	if (!strcmp(name, "file_dirty"))
		name = "dirty", n = 5;
	else if (!strcmp(name, "file_writeback"))
		name = "writeback", n = 9;
	else if (n > 6 && !strcmp(name + n - 6, "_usage"))
		n -= 6;
	snprintf(buf, len, "%.*s_bytes", (int)n, name);
	return buf;
}

static void json_psi_line(const char *key, const struct mcg_psi_line *l, bool valid)
{
	if (!valid)
		return;
	jw_open_object(stdout, key);
	jw_double(stdout, "avg10", l->avg10);
	jw_double(stdout, "avg60", l->avg60);
	jw_double(stdout, "avg300", l->avg300);
	jw_u64(stdout, "total_ns", l->total_us * 1000);
	jw_close_object(stdout);
}

static void show_json(const struct mcg_info *i, uint64_t ts)
{
	char key[64];
	size_t k;
	unsigned f, s;

	jw_open_object(stdout, NULL);
	jw_u64(stdout, "timestamp_ns", ts);
	jw_string(stdout, "cgroup", i->path);
	jw_u64(stdout, "version", (uint64_t)i->version);
	/* absent stays absent; unlimited is null */
	for (f = 0; f < MCG_F__COUNT; f++) {
		if (!mcg_info_has(i, f))
			continue;
		if (mcg_field_is_bytes(f))
			jw_bytes(stdout, bytes_key(mcg_field_name(f), key, sizeof(key)), i->f[f], true);
		else
			jw_u64(stdout, mcg_field_name(f), i->f[f]);
	}
	jw_open_object(stdout, "stat");
	for (s = 0; s < MCG_S__COUNT; s++) {
		if (!mcg_stat_has(&i->stat, s))
			continue;
		if (mcg_stat_is_bytes(s))
			jw_u64(stdout, bytes_key(mcg_stat_name(s), key, sizeof(key)), i->stat.v[s]);
		else
			jw_u64(stdout, mcg_stat_name(s), i->stat.v[s]);
	}
	jw_close_object(stdout);
	/* every key as the kernel printed it (the kernel's names and units) */
	jw_open_object(stdout, "stat_raw");
	for (k = 0; k < i->stat.n_raw; k++)
		jw_u64(stdout, i->stat.raw[k].key, i->stat.raw[k].value);
	jw_close_object(stdout);
	if (i->psi.some_valid || i->psi.full_valid) {
		jw_open_object(stdout, "pressure");
		json_psi_line("some", &i->psi.some, i->psi.some_valid);
		json_psi_line("full", &i->psi.full, i->psi.full_valid);
		jw_close_object(stdout);
	}
	jw_close_object(stdout);
	jw_end(stdout);
}

static int show_run(struct cli *cli, int argc, char **argv)
{
	struct show_args a = {0};
	struct mcg_group *g;
	struct mcg_info info;
	uint64_t ts;
	int r;

	r = cli_parse(&show_argp, argc, argv, &a);
	if (r)
		return r;
	r = cli_open_group(cli, a.cgroup, &g);
	if (r < 0)
		return cli_status(r);
	ts = out_realtime_ns();
	r = mcg_group_info(g, &info);
	mcg_group_close(g);
	if (r < 0) {
		cli_err("cannot read cgroup '%s': %s", out_esc(a.cgroup), mcg_strerror(r));
		return cli_status(r);
	}
	if (cli->json)
		show_json(&info, ts);
	else
		show_text(&info, cli_ctx(cli));
	mcg_info_release(&info);
	return EXIT_OK;
}

const struct mcg_cmd cmd_show = {
	.name = "show",
	.summary = "Show every memory knob and counter of one cgroup",
	.argp = &show_argp,
	.run = show_run,
};
