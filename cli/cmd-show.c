/* cmd-show.c: "memcgctl show": every memory knob and counter of one cgroup, grouped. */
#include "memcgctl.h"
#include "cli-common.h"
#include "output.h"
#include "containers.h"
#include "cgroup-arg.h"

#include <string.h>

struct show_args {
	const char *cgroup;
};

static error_t show_parse(int key, char *arg, struct argp_state *state)
{
	struct show_args *a = state->input;

	switch (key) {
	case ARGP_KEY_END:
		cli_need_cgroup(state, a->cgroup);
		break;
	default:
		return cli_cgroup_operand(state, key, arg, &a->cgroup);
	}
	return 0;
}

static const struct argp show_argp = {
	NULL, show_parse, "CGROUP",
	"Show every memory knob and counter of CGROUP: limits, usage, memory.stat (normalised "
	"names, then every key as the kernel printed it), events and pressure. CGROUP is a path "
	"relative to the hierarchy root, an absolute cgroupfs path, pid:N, or a systemd unit "
	"(web.service, user.slice). On a systemd host it also names the unit that owns the cgroup.",
	cli_common_children, NULL, NULL,
};

/* The rows of show: counters of the one table (enum mcg_key), in show's order. */
static const enum mcg_key limit_rows[] = {
	MCG_K_LIMIT,
	MCG_K_HIGH,
	MCG_K_LOW,
	MCG_K_MIN,
	MCG_K_SOFT_LIMIT,
	MCG_K_SWAP_LIMIT,
	MCG_K_SWAP_HIGH,
	MCG_K_ZSWAP_LIMIT,
	MCG_K_ZSWAP_WRITEBACK,
	MCG_K_MEMSW_LIMIT,
	MCG_K_EFFECTIVE_LIMIT,
	MCG_K_SWAPPINESS,
	MCG_K_OOM_KILL_DISABLE,
	MCG_K_OOM_GROUP,
};
static const enum mcg_key usage_rows[] = {
	MCG_K_USAGE,
	MCG_K_PEAK,
	MCG_K_SWAP_USAGE,
	MCG_K_ZSWAP,
	MCG_K_MEMSW_USAGE,
	MCG_K_KMEM_USAGE,
};
static const enum mcg_key event_rows[] = {
	MCG_K_FAILCNT,
	MCG_K_EV_LOW,
	MCG_K_EV_HIGH,
	MCG_K_EV_MAX,
	MCG_K_EV_OOM,
	MCG_K_EV_OOM_KILL,
	MCG_K_EV_OOM_GROUP_KILL,
	MCG_K_UNDER_OOM,
};
static const enum mcg_key count_rows[] = {
	MCG_K_NR_PROCS,
	MCG_K_NR_CHILDREN,
};
/*
 * The top-level JSON keys, in the order show has printed them (the goldens):
 * json_head, event_rows, json_tail, count_rows.
 */
static const enum mcg_key json_head[] = {
	MCG_K_USAGE,	  MCG_K_PEAK,	     MCG_K_LIMIT,	MCG_K_HIGH,
	MCG_K_LOW,	  MCG_K_MIN,	     MCG_K_SOFT_LIMIT,	MCG_K_SWAP_USAGE,
	MCG_K_SWAP_LIMIT, MCG_K_MEMSW_USAGE, MCG_K_MEMSW_LIMIT, MCG_K_KMEM_USAGE,
};
static const enum mcg_key json_tail[] = {
	MCG_K_OOM_KILL_DISABLE,
	MCG_K_SWAPPINESS,
	MCG_K_EFFECTIVE_LIMIT,
	/* after the keys show printed before they were read (the goldens' order) */
	MCG_K_SWAP_HIGH,
	MCG_K_ZSWAP,
	MCG_K_ZSWAP_LIMIT,
	MCG_K_ZSWAP_WRITEBACK,
	MCG_K_OOM_GROUP,
};

/*
 * "memory:" and JSON "stat": memory.stat's counters (v2 swap: memory.swap.current).
 * Not every memory.stat row of the table: workingset_refault (before 5.9)
 * and workingset_nodereclaim are printed with the other keys as the kernel
 * named them.
 */
static const enum mcg_key stat_rows[] = {
	MCG_K_ANON,
	MCG_K_FILE,
	MCG_K_KERNEL,
	MCG_K_SHMEM,
	MCG_K_FILE_MAPPED,
	MCG_K_DIRTY,
	MCG_K_WRITEBACK,
	MCG_K_ANON_THP,
	MCG_K_INACTIVE_ANON,
	MCG_K_ACTIVE_ANON,
	MCG_K_INACTIVE_FILE,
	MCG_K_ACTIVE_FILE,
	MCG_K_UNEVICTABLE,
	MCG_K_SLAB,
	MCG_K_SLAB_RECLAIMABLE,
	MCG_K_SWAP,
	MCG_K_WORKINGSET_REFAULT_ANON,
	MCG_K_WORKINGSET_REFAULT_FILE,
	MCG_K_WORKINGSET_ACTIVATE_FILE,
	MCG_K_PGFAULT,
	MCG_K_PGMAJFAULT,
	MCG_K_PGPGIN,
	MCG_K_PGPGOUT,
	MCG_K_PGSCAN,
	MCG_K_PGSTEAL,
	MCG_K_PGSCAN_KSWAPD,
	MCG_K_PGSCAN_DIRECT,
	MCG_K_PGSTEAL_KSWAPD,
	MCG_K_PGSTEAL_DIRECT,
	MCG_K_PGREFILL,
};

#define ROWS(a) (a), sizeof(a) / sizeof((a)[0])

/*
 * Names from the names table (mcg_value_names): the JSON key, and in text the
 * label (the key without its unit). In "memory:" and JSON "stat" (memory.stat's
 * counters) a name loses its "stat_" (memory.stat's swap is stat_swap_bytes
 * where the names are flat, as in dump; stat.swap_bytes here).
 */
static const char *in_stat(const char *name, bool stat)
{
	return stat && !strncmp(name, "stat_", 5) ? name + 5 : name;
}

static const char *text_name(enum mcg_key k, bool stat)
{
	return in_stat(mcg_value_names(k)->label, stat);
}

static const char *json_name(enum mcg_key k, bool stat)
{
	return in_stat(mcg_json_key(k), stat);
}

static bool is_bytes(enum mcg_key k)
{
	return mcg_key_desc(k)->unit == MCG_UNIT_BYTES;
}

static void text_rows(const char *title, const struct mcg_record *rec, const enum mcg_key *r,
		      size_t n, bool stat)
{
	char b[48];
	size_t k;

	if (title)
		printf("%s:\n", title);
	for (k = 0; k < n; k++) {
		if (!mcg_record_has(rec, r[k]))
			continue;
		if (is_bytes(r[k]))
			printf("  %-24s %s\n", text_name(r[k], stat),
			       cli_size(rec->v[r[k]], b, sizeof(b)));
		else
			printf("  %-24s %llu\n", text_name(r[k], stat),
			       (unsigned long long)rec->v[r[k]]);
	}
}

/* Is KEY of v2's memory.stat one of "memory:"'s rows (printed there under its name)? */
static bool is_normalised_key(const char *key, int version)
{
	size_t s;

	if (version != 2)
		return false;
	for (s = 0; s < sizeof(stat_rows) / sizeof(stat_rows[0]); s++) {
		const struct mcg_key_desc *d = mcg_key_desc(stat_rows[s]);

		if ((d->key[1] && !strcmp(key, d->key[1])) || !strcmp(key, text_name(stat_rows[s], true)))
			return true;
	}
	return false;
}

/* The age of a kept size answer, in ns (0 when its time is ahead of ours). */
static uint64_t size_age(const struct mcg_size_state *sz, uint64_t now)
{
	return now > sz->time_ns ? now - sz->time_ns : 0;
}

/* The last answer of 'memcgctl size' (mcg_size_state_read), when one is kept. */
static void size_text(const struct mcg_size_state *sz, uint64_t now)
{
	char a[32], b[32], c[32];

	printf("size (the last answer of memcgctl size):\n  needs %s, cold %s",
	       cli_size(sz->needed, a, sizeof(a)), cli_size(sz->cold, b, sizeof(b)));
	if (sz->split_valid)
		printf(" (file %s, anon %s)", cli_size(sz->cold_file, a, sizeof(a)),
		       cli_size(sz->cold_anon, c, sizeof(c)));
	printf("\n  found %.0f s ago: %s, signal %s, %s\n", (double)size_age(sz, now) / 1e9,
	       mcg_size_stop_name(sz->stop), mcg_size_signal_name(sz->sig), sz->method);
}

static void size_json(const struct mcg_size_state *sz, uint64_t now)
{
	jw_open_object(stdout, "size");
	jw_bytes(stdout, mcg_json_key(MCG_F_NEEDED), sz->needed, true);
	jw_bytes(stdout, "cold_bytes", sz->cold, true);
	jw_bytes(stdout, "cold_file_bytes", sz->cold_file, sz->split_valid);
	jw_bytes(stdout, "cold_anon_bytes", sz->cold_anon, sz->split_valid);
	jw_u64(stdout, "found_ns", sz->time_ns);
	jw_u64(stdout, "age_ns", size_age(sz, now));
	jw_string(stdout, "stop", mcg_size_stop_name(sz->stop));
	jw_string(stdout, "signal", mcg_size_signal_name(sz->sig));
	jw_string(stdout, "method", sz->method);
	jw_close_object(stdout);
}

static void show_text(const struct mcg_info *i, const struct mcg_ctx *ctx, const char *unit,
		      const struct mcg_size_state *sz, uint64_t now)
{
	const struct mcg_record *rec = &i->rec;
	size_t k;

	printf("cgroup %s (cgroup v%d, %s)\n", out_esc(i->path), i->version,
	       out_esc(mcg_ctx_root(ctx)));
	if (unit)
		printf("unit %s\n", out_esc(unit));
	cli_show_owner_text(i->path);
	text_rows("limits", rec, ROWS(limit_rows), false);
	text_rows("usage", rec, ROWS(usage_rows), false);
	text_rows("memory", rec, ROWS(stat_rows), true);
	text_rows("events", rec, ROWS(event_rows), false);
	text_rows(NULL, rec, ROWS(count_rows), false);
	if (sz)
		size_text(sz, now);
	if (rec->psi.some_valid || rec->psi.full_valid) {
		printf("pressure:\n");
		if (rec->psi.some_valid)
			printf("  some avg10=%.2f avg60=%.2f avg300=%.2f total=%llu\n",
			       rec->psi.some.avg10, rec->psi.some.avg60, rec->psi.some.avg300,
			       (unsigned long long)rec->psi.some.total_us);
		if (rec->psi.full_valid)
			printf("  full avg10=%.2f avg60=%.2f avg300=%.2f total=%llu\n",
			       rec->psi.full.avg10, rec->psi.full.avg60, rec->psi.full.avg300,
			       (unsigned long long)rec->psi.full.total_us);
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

/* The counters of R that REC has, unlimited as null (absent stays absent). */
static void json_rows(const struct mcg_record *rec, const enum mcg_key *r, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		if (!mcg_record_has(rec, r[k]))
			continue;
		if (is_bytes(r[k]))
			jw_bytes(stdout, json_name(r[k], false), rec->v[r[k]], true);
		else
			jw_u64(stdout, json_name(r[k], false), rec->v[r[k]]);
	}
}

static void show_json(const struct mcg_info *i, uint64_t ts, const char *unit,
		      const struct mcg_size_state *sz)
{
	const struct mcg_record *rec = &i->rec;
	size_t k;

	jw_open_object(stdout, NULL);
	jw_u64(stdout, "timestamp_ns", ts);
	jw_string(stdout, "cgroup", i->path);
	if (unit) /* absent where no systemd unit owns the cgroup */
		jw_string(stdout, "unit", unit);
	cli_show_owner_json(stdout, i->path);
	jw_u64(stdout, "version", (uint64_t)i->version);
	json_rows(rec, ROWS(json_head));
	json_rows(rec, ROWS(event_rows));
	json_rows(rec, ROWS(json_tail));
	json_rows(rec, ROWS(count_rows));
	jw_open_object(stdout, "stat");
	for (k = 0; k < sizeof(stat_rows) / sizeof(stat_rows[0]); k++) {
		enum mcg_key r = stat_rows[k];

		if (mcg_record_has(rec, r))
			jw_u64(stdout, json_name(r, true), rec->v[r]);
	}
	jw_close_object(stdout);
	/* every key as the kernel printed it (the kernel's names and units) */
	jw_open_object(stdout, "stat_raw");
	for (k = 0; k < i->stat.n_raw; k++)
		jw_u64(stdout, i->stat.raw[k].key, i->stat.raw[k].value);
	jw_close_object(stdout);
	if (rec->psi.some_valid || rec->psi.full_valid) {
		jw_open_object(stdout, "pressure");
		json_psi_line("some", &rec->psi.some, rec->psi.some_valid);
		json_psi_line("full", &rec->psi.full, rec->psi.full_valid);
		jw_close_object(stdout);
	}
	if (sz) /* absent where memcgctl size kept no answer */
		size_json(sz, ts);
	jw_close_object(stdout);
	jw_end(stdout);
}

static int show_run(struct cli *cli, int argc, char **argv)
{
	struct show_args a = {0};
	struct mcg_group *g;
	struct mcg_info info;
	struct mcg_size_state sz;
	char unit[256];
	bool has_unit, has_size;
	uint64_t ts;
	int r, r2;

	r = cli_parse(&show_argp, argc, argv, &a);
	if (r)
		return r;
	r = cli_open_cgroup(cli, a.cgroup, &g);
	if (r < 0)
		return cli_status(r);
	ts = out_realtime_ns();
	r = mcg_group_info(g, &info);
	/* size's last answer: none, or a run directory this user cannot trust, shows nothing */
	r2 = mcg_size_state_read(g, &sz);
	has_size = r2 == 0;
	if (r2 == -EBADMSG)
		cli_warn("ignoring the kept size answer of '%s': not what memcgctl size writes",
			 out_esc(a.cgroup));
	mcg_group_close(g);
	if (r < 0) {
		cli_err("cannot read cgroup '%s': %s", out_esc(a.cgroup), mcg_strerror(r));
		return cli_status(r);
	}
	/* the unit that owns it, from systemd's naming (a delegated child: its service's) */
	has_unit = mcg_unit_of(cli_ctx(cli), info.path, unit, sizeof(unit)) > 0;
	if (cli->json)
		show_json(&info, ts, has_unit ? unit : NULL, has_size ? &sz : NULL);
	else
		show_text(&info, cli_ctx(cli), has_unit ? unit : NULL, has_size ? &sz : NULL, ts);
	mcg_info_release(&info);
	return EXIT_OK;
}

const struct mcg_cmd cmd_show = {
	.name = "show",
	.summary = "Show every memory knob and counter of one cgroup",
	.argp = &show_argp,
	.run = show_run,
};
