/* cmd-dump.c: "memcgctl dump": recorded samples and events from the history store, as text, JSON lines, CSV or OpenMetrics. */
#include "memcgctl.h"
#include "output.h"
#include "memcg/openmetrics.h"

#include <string.h>
#include <time.h>

enum dump_format { FMT_TEXT, FMT_JSON, FMT_CSV, FMT_OM };

struct dump_args {
	const char *store, *from, *to;
	enum dump_format fmt;
	bool events_only;
	char **filter;
	size_t nfilter;
};

enum { OPT_STORE = 0x300, OPT_FROM, OPT_TO, OPT_CSV, OPT_OM, OPT_EVENTS };

static const struct argp_option dump_options[] = {
	{"from", OPT_FROM, "TIME", 0,
	 "First sample: 03:12, -2h, 'yesterday 14:00', 2026-11-30T03:12:00Z (default: the oldest)",
	 0},
	{"to", OPT_TO, "TIME", 0, "Last sample (default: now)", 0},
	{"store", OPT_STORE, "DIR", 0, "The history store (default /var/lib/memcgctl/history)", 0},
	{"csv", OPT_CSV, NULL, 0, "CSV: a header line, one line per cgroup and sample or event", 0},
	{"openmetrics", OPT_OM, NULL, 0, "OpenMetrics text with timestamps, as export names metrics",
	 0},
	{"events", OPT_EVENTS, NULL, 0, "Only the events", 0},
	{0},
};

static error_t dump_parse(int key, char *arg, struct argp_state *state)
{
	struct dump_args *a = state->input;

	switch (key) {
	case OPT_FROM:
		a->from = arg;
		break;
	case OPT_TO:
		a->to = arg;
		break;
	case OPT_STORE:
		a->store = arg;
		break;
	case OPT_CSV:
		a->fmt = FMT_CSV;
		break;
	case OPT_OM:
		a->fmt = FMT_OM;
		break;
	case OPT_EVENTS:
		a->events_only = true;
		break;
	case ARGP_KEY_ARG: {
		char **p = realloc(a->filter, (a->nfilter + 1) * sizeof(*p));

		if (!p)
			argp_failure(state, EXIT_FAILURE, ENOMEM, "out of memory");
		a->filter = p;
		a->filter[a->nfilter++] = arg;
		break;
	}
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp dump_argp = {
	dump_options, dump_parse, "[CGROUP...]",
	"Print what 'memcgctl record' stored between --from and --to: every counter of every "
	"cgroup (or of the CGROUPs named and the cgroups below them) at each recorded sample, "
	"with rates per second between samples computed as top computes them live, and the "
	"events recorded (cgroups created and removed, OOM kills, max and high events, dirty "
	"verdict changes, changes memcgctl made). Column names are those of top and export "
	"(memcgctl-json(7)). A corrupt or truncated frame is reported on stderr by segment and "
	"frame, and the dump goes on past it (exit status 1 at the end).",
	cli_common_children, NULL, NULL,
};

struct dump {
	struct dump_args *a;
	unsigned bad;
	bool header_done;
	FILE *fam[MCG_K__COUNT]; /* OpenMetrics: one family's samples until the end */
	uint64_t prev_time;
};

static void on_bad(void *ud, const char *segment, unsigned frame, uint64_t off, const char *why)
{
	struct dump *d = ud;

	d->bad++;
	cli_warn("history segment '%s' frame %u (offset %llu): %s; skipped", out_esc(segment), frame,
		 (unsigned long long)off, why);
}

static bool wanted(const struct dump_args *a, const char *path)
{
	size_t i;

	if (!a->nfilter)
		return true;
	for (i = 0; i < a->nfilter; i++) {
		const char *f = a->filter[i];
		size_t l;

		if (f[0] == '/')
			f++;
		l = strlen(f);
		while (l && f[l - 1] == '/')
			l--;
		if (!l)
			return true; /* "/": everything */
		if (!strncmp(path + 1, f, l) && (path[1 + l] == '\0' || path[1 + l] == '/'))
			return true;
	}
	return false;
}

/* The column name of K: the schema's base name and the unit's suffix, as top and list print them. */
static const char *col(enum mcg_key k, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", mcg_key_name(k), mcg_unit_suffix(mcg_key_desc(k)->unit));
	return buf;
}

static const char *rate_col(enum mcg_key k, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s_per_s", mcg_key_name(k), mcg_unit_suffix(mcg_key_desc(k)->unit));
	return buf;
}

static bool bytes(enum mcg_key k)
{
	return mcg_key_desc(k)->unit == MCG_UNIT_BYTES;
}

/* ---- JSON lines ---- */

static void json_event(const struct mcg_hist_event *e)
{
	jw_open_object(stdout, NULL);
	jw_u64(stdout, "timestamp_ns", e->time_ns);
	jw_string(stdout, "event", mcg_hist_event_name(e->type));
	jw_string(stdout, "cgroup", e->cgroup);
	if (e->type != MCG_HEV_CREATED && e->type != MCG_HEV_REMOVED && e->type != MCG_HEV_CHANGE &&
	    e->type != MCG_HEV_DIRTY)
		jw_u64(stdout, "count", e->count);
	if (e->type == MCG_HEV_DIRTY)
		jw_string(stdout, "level",
			  mcg_dirty_level_name((enum mcg_dirty_level)e->count));
	if (e->op)
		jw_string(stdout, "op", e->op);
	if (e->detail)
		jw_string(stdout, "detail", e->detail);
	if (e->uid >= 0)
		jw_i64(stdout, "uid", e->uid);
	if (e->loginuid >= 0)
		jw_i64(stdout, "loginuid", e->loginuid);
	if (e->pid >= 0)
		jw_i64(stdout, "pid", e->pid);
	if (e->comm)
		jw_string(stdout, "comm", e->comm);
	jw_close_object(stdout);
}

/* The system-wide values, as top --json prints them. */
static void json_global(const struct mcg_sample_global *g)
{
	jw_open_object(stdout, "global");
	jw_sample_global(stdout, g);
	jw_close_object(stdout);
}

static void print_json(struct dump *d, const struct mcg_hist_frame *f)
{
	const struct mcg_snapshot *s = f->snap;
	char name[96];
	size_t i, n = 0;
	unsigned k;

	jw_open_object(stdout, NULL);
	jw_u64(stdout, "timestamp_ns", f->time_ns);
	jw_u64(stdout, "version", (uint64_t)s->version);
	jw_u64(stdout, "interval_ns", (uint64_t)(s->interval * 1e9 + 0.5));
	if (!d->a->events_only && s->global.valid)
		json_global(&s->global);
	if (!d->a->events_only) {
		jw_open_array(stdout, "cgroups");
		for (i = 0; i < s->n_rows; i++) {
			const struct mcg_sample_row *r = &s->rows[i];

			if (!wanted(d->a, r->path))
				continue;
			jw_open_object(stdout, NULL);
			jw_string(stdout, "cgroup", r->path);
			mcg_keyset_foreach(k, &r->rec.valid)
			{
				if (bytes(k))
					jw_bytes(stdout, col(k, name, sizeof(name)), r->rec.v[k], true);
				else
					jw_u64(stdout, col(k, name, sizeof(name)), r->rec.v[k]);
			}
			jw_open_object(stdout, "per_second");
			mcg_keyset_foreach(k, &r->rate_valid)
				jw_double(stdout, rate_col(k, name, sizeof(name)), r->rate[k]);
			jw_close_object(stdout);
			jw_close_object(stdout);
		}
		jw_close_array(stdout);
	}
	jw_open_array(stdout, "events");
	for (i = 0; i < f->nev; i++)
		if (wanted(d->a, f->ev[i].cgroup)) {
			json_event(&f->ev[i]);
			n++;
		}
	jw_close_array(stdout);
	jw_close_object(stdout);
	jw_end(stdout);
	(void)n;
}

/* ---- CSV ---- */

/* A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180). */
static void csv_str(const char *s)
{
	const char *e = out_esc(s);

	if (!strpbrk(e, ",\"\r\n")) {
		fputs(e, stdout);
		return;
	}
	putchar('"');
	for (; *e; e++) {
		if (*e == '"')
			putchar('"');
		putchar(*e);
	}
	putchar('"');
}

static void csv_header(void)
{
	char name[96];
	unsigned k;

	fputs("timestamp_ns,cgroup", stdout);
	for (k = 0; k < MCG_K__COUNT; k++)
		printf(",%s", col(k, name, sizeof(name)));
	for (k = 0; k < MCG_K__COUNT; k++)
		printf(",%s", rate_col(k, name, sizeof(name)));
	fputs(",event,detail\n", stdout);
}

static void event_text(const struct mcg_hist_event *e, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	if (e->type == MCG_HEV_CHANGE)
		o += (size_t)snprintf(buf, len, "%s%s%s (uid %lld, loginuid %lld, pid %lld, %s)",
				      e->op ? e->op : "", e->detail ? ": " : "",
				      e->detail ? e->detail : "", (long long)e->uid,
				      (long long)e->loginuid, (long long)e->pid,
				      e->comm ? e->comm : "?");
	else if (e->type == MCG_HEV_DIRTY)
		o += (size_t)snprintf(buf, len, "%s", e->detail ? e->detail : "");
	else if (e->type != MCG_HEV_CREATED && e->type != MCG_HEV_REMOVED)
		o += (size_t)snprintf(buf, len, "%llu", (unsigned long long)e->count);
	(void)o;
}

static void print_csv(struct dump *d, const struct mcg_hist_frame *f)
{
	const struct mcg_snapshot *s = f->snap;
	char text[1400];
	size_t i;
	unsigned k;

	if (!d->header_done) {
		csv_header();
		d->header_done = true;
	}
	for (i = 0; !d->a->events_only && i < s->n_rows; i++) {
		const struct mcg_sample_row *r = &s->rows[i];

		if (!wanted(d->a, r->path))
			continue;
		printf("%llu,", (unsigned long long)f->time_ns);
		csv_str(r->path);
		for (k = 0; k < MCG_K__COUNT; k++) {
			putchar(',');
			if (!mcg_record_has(&r->rec, k))
				continue;
			if (bytes(k) && r->rec.v[k] == MCG_MAX)
				fputs("max", stdout);
			else
				printf("%llu", (unsigned long long)r->rec.v[k]);
		}
		for (k = 0; k < MCG_K__COUNT; k++) {
			putchar(',');
			if (mcg_sample_rate_has(r, k))
				printf("%.10g", r->rate[k]);
		}
		fputs(",,\n", stdout);
	}
	for (i = 0; i < f->nev; i++) {
		const struct mcg_hist_event *e = &f->ev[i];

		if (!wanted(d->a, e->cgroup))
			continue;
		printf("%llu,", (unsigned long long)e->time_ns);
		csv_str(e->cgroup);
		for (k = 0; k < 2 * MCG_K__COUNT; k++)
			putchar(',');
		printf(",%s,", mcg_hist_event_name(e->type));
		event_text(e, text, sizeof(text));
		csv_str(text);
		putchar('\n');
	}
}

/* ---- text ---- */

static void print_text(struct dump *d, const struct mcg_hist_frame *f)
{
	const struct mcg_snapshot *s = f->snap;
	char when[40], text[1400], b[6][32];
	size_t i;

	mcg_hist_time_format(f->time_ns, when, sizeof(when));
	for (i = 0; !d->a->events_only && i < s->n_rows; i++) {
		const struct mcg_sample_row *r = &s->rows[i];
		const struct mcg_record *rec = &r->rec;
		static const enum mcg_key ks[6] = {MCG_K_USAGE, MCG_K_LIMIT, MCG_K_ANON,
						   MCG_K_FILE,	MCG_K_DIRTY, MCG_K_WRITEBACK};
		unsigned j;

		if (!wanted(d->a, r->path))
			continue;
		if (!d->header_done) {
			printf("%-24s %10s %10s %10s %10s %10s %10s  %s\n", "TIME", "USAGE", "LIMIT",
			       "ANON", "FILE", "DIRTY", "WB", "CGROUP");
			d->header_done = true;
		}
		for (j = 0; j < 6; j++) {
			if (mcg_record_has(rec, ks[j]))
				cli_size(rec->v[ks[j]], b[j], sizeof(b[j]));
			else
				snprintf(b[j], sizeof(b[j]), "-");
		}
		printf("%-24s %10s %10s %10s %10s %10s %10s  %s\n", when, b[0], b[1], b[2], b[3],
		       b[4], b[5], out_esc(r->path));
	}
	for (i = 0; i < f->nev; i++) {
		const struct mcg_hist_event *e = &f->ev[i];

		if (!wanted(d->a, e->cgroup))
			continue;
		mcg_hist_time_format(e->time_ns, when, sizeof(when));
		event_text(e, text, sizeof(text));
		printf("%-24s event %s %s%s%s\n", when, mcg_hist_event_name(e->type),
		       out_esc(e->cgroup), text[0] ? ": " : "", out_esc(text));
	}
}

/* ---- OpenMetrics: each family's samples together, so they wait in a temporary file ---- */

static void om_value(FILE *f, const struct mcg_key_desc *d, uint64_t v)
{
	if (d->unit == MCG_UNIT_US)
		fprintf(f, "%llu.%06llu", (unsigned long long)(v / 1000000),
			(unsigned long long)(v % 1000000));
	else if (d->unit == MCG_UNIT_NS)
		fprintf(f, "%llu.%09llu", (unsigned long long)(v / 1000000000),
			(unsigned long long)(v % 1000000000));
	else
		fprintf(f, "%llu", (unsigned long long)v);
}

static int print_om(struct dump *d, const struct mcg_hist_frame *f)
{
	const struct mcg_snapshot *s = f->snap;
	char name[96];
	size_t i;
	unsigned k;

	/* OpenMetrics: timestamps of one series must increase */
	if (d->prev_time && f->time_ns <= d->prev_time)
		return 0;
	d->prev_time = f->time_ns;
	for (i = 0; i < s->n_rows; i++) {
		const struct mcg_sample_row *r = &s->rows[i];
		char *labels;

		if (!wanted(d->a, r->path))
			continue;
		labels = mcg_om_cgroup_labels(r->path, false);
		if (!labels)
			return -ENOMEM;
		mcg_keyset_foreach(k, &r->rec.valid)
		{
			const struct mcg_key_desc *kd = mcg_key_desc(k);

			if (kd->unit == MCG_UNIT_BYTES && r->rec.v[k] == MCG_MAX)
				continue; /* no limit: left out, as export does */
			if (!d->fam[k] && !(d->fam[k] = tmpfile())) {
				free(labels);
				return -errno;
			}
			mcg_om_metric_name(k, name, sizeof(name));
			fprintf(d->fam[k], "%s{%s} ", name, labels);
			om_value(d->fam[k], kd, r->rec.v[k]);
			fprintf(d->fam[k], " %llu.%03llu\n",
				(unsigned long long)(f->time_ns / 1000000000ULL),
				(unsigned long long)(f->time_ns % 1000000000ULL / 1000000ULL));
		}
		free(labels);
	}
	return 0;
}

static int om_finish(struct dump *d)
{
	char name[96], buf[65536];
	unsigned k;
	size_t n;

	for (k = 0; k < MCG_K__COUNT; k++) {
		const struct mcg_key_desc *kd = mcg_key_desc(k);

		if (!d->fam[k])
			continue;
		mcg_om_metric_name(k, name, sizeof(name));
		if (kd->kind == MCG_KIND_COUNTER)
			name[strlen(name) - 6] = '\0'; /* the family has no _total */
		printf("# TYPE %s %s\n", name, kd->kind == MCG_KIND_COUNTER ? "counter" : "gauge");
		rewind(d->fam[k]);
		while ((n = fread(buf, 1, sizeof(buf), d->fam[k])) > 0)
			fwrite(buf, 1, n, stdout);
		fclose(d->fam[k]);
		d->fam[k] = NULL;
	}
	puts("# EOF");
	return 0;
}

static int run_dump(struct cli *cli, int argc, char **argv)
{
	struct dump_args a = {0};
	struct dump d = {0};
	struct mcg_hist_reader *r;
	struct mcg_hist_frame *f;
	const char *store;
	char why[160];
	uint64_t now = out_realtime_ns(), from = 0, to = now;
	int rc, status = EXIT_OK;
	unsigned k;

	rc = cli_parse(&dump_argp, argc, argv, &a);
	if (rc) {
		free(a.filter);
		return rc;
	}
	if (cli->json && a.fmt != FMT_TEXT) {
		cli_err("cannot dump: --json, --csv and --openmetrics are one choice");
		free(a.filter);
		return EXIT_USAGE;
	}
	if (cli->json)
		a.fmt = FMT_JSON;
	if (a.from && mcg_hist_time_parse(a.from, now, &from, why, sizeof(why)) < 0) {
		cli_err("invalid --from '%s': %s", out_esc(a.from), why);
		free(a.filter);
		return EXIT_USAGE;
	}
	if (a.to && mcg_hist_time_parse(a.to, now, &to, why, sizeof(why)) < 0) {
		cli_err("invalid --to '%s': %s", out_esc(a.to), why);
		free(a.filter);
		return EXIT_USAGE;
	}
	d.a = &a;
	store = a.store ? a.store : MCG_HIST_DEFAULT_DIR;
	rc = mcg_hist_reader_open(store, on_bad, &d, &r);
	if (rc < 0) {
		cli_err("cannot open history store '%s': %s", out_esc(store), mcg_strerror(rc));
		free(a.filter);
		return rc == -ENOENT ? EXIT_USAGE : EXIT_FAILURE;
	}
	for (rc = mcg_hist_seek(r, from, &f); rc == 0; rc = mcg_hist_next(r, &f)) {
		if (f->time_ns > to) {
			mcg_hist_frame_free(f);
			break;
		}
		if (f->time_ns >= from) {
			switch (a.fmt) {
			case FMT_JSON:
				print_json(&d, f);
				break;
			case FMT_CSV:
				print_csv(&d, f);
				break;
			case FMT_OM:
				if (print_om(&d, f) < 0)
					status = EXIT_FAILURE;
				break;
			default:
				print_text(&d, f);
				break;
			}
		}
		mcg_hist_frame_free(f);
	}
	if (rc < 0 && rc != -ENOENT) {
		cli_err("cannot read history store '%s': %s", out_esc(store), mcg_strerror(rc));
		status = EXIT_FAILURE;
	}
	if (a.fmt == FMT_OM)
		om_finish(&d);
	if (a.fmt == FMT_CSV && !d.header_done)
		csv_header();
	for (k = 0; k < MCG_K__COUNT; k++)
		if (d.fam[k])
			fclose(d.fam[k]);
	mcg_hist_reader_free(r);
	free(a.filter);
	fflush(stdout);
	if (d.bad && status == EXIT_OK)
		status = EXIT_FAILURE;
	return status;
}

const struct mcg_cmd cmd_dump = {
	.name = "dump",
	.summary = "Print recorded samples and events from the history store",
	.argp = &dump_argp,
	.run = run_dump,
};
