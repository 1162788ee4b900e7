/* cmd-dump.c: "memcgctl dump": recorded samples and events from the history store, as text, JSON lines, CSV or OpenMetrics. */
#include "memcgctl.h"
#include "output.h"
#include "memcg/openmetrics.h"

#include <ctype.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum dump_format { FMT_TEXT, FMT_JSON, FMT_CSV, FMT_OM };

/* A field: a CSV column and a key of dump's JSON (-o takes their names). */
enum fkind { F_TS, F_TIME, F_CGROUP, F_NAME, F_VAL, F_RATE, F_EVENT, F_DETAIL };
struct field {
	unsigned char kind;
	unsigned short k; /* F_VAL, F_RATE: the counter */
};
#define MAX_FIELDS (6 + 2 * MCG_K__COUNT)

struct dump_args {
	const char *store, *from, *to, *fields, *file;
	enum dump_format fmt;
	bool events_only, list_fields;
	char **filter;
	size_t nfilter;
};

enum { OPT_STORE = 0x300, OPT_FROM, OPT_TO, OPT_CSV, OPT_OM, OPT_EVENTS, OPT_FILE, OPT_LIST };

static const struct argp_option dump_options[] = {
	{"from", OPT_FROM, "TIME", 0,
	 "First sample: 03:12, -2h, 'yesterday 14:00' (local time), 2026-11-30T03:12:00Z "
	 "(default: the oldest)",
	 0},
	{"to", OPT_TO, "TIME", 0, "Last sample (default: now)", 0},
	{"store", OPT_STORE, "DIR", 0, "The history store (default /var/lib/memcgctl/history)", 0},
	{"csv", OPT_CSV, NULL, 0, "CSV: a header line, one line per cgroup and sample or event", 0},
	{"openmetrics", OPT_OM, NULL, 0, "OpenMetrics text with timestamps, as export names metrics",
	 0},
	{"events", OPT_EVENTS, NULL, 0, "Only the events (with --json: one object per event)", 0},
	{"output", 'o', "FIELDS", 0,
	 "The fields to print, comma-separated: the CSV and JSON names (time,cgroup,usage_bytes,"
	 "pgscan_per_s,...)",
	 0},
	{"list-fields", OPT_LIST, NULL, 0, "List the fields -o takes and exit", 0},
	{"output-file", OPT_FILE, "FILE", 0,
	 "Write to FILE (replaced whole when the dump is done; never a partial file)", 0},
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
	case 'o':
		a->fields = arg;
		break;
	case OPT_FILE:
		a->file = arg;
		break;
	case OPT_LIST:
		a->list_fields = true;
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
	"cgroup (or of the CGROUPs named, by path or by the name recorded for them, and the "
	"cgroups below them) at each recorded sample, with rates per second of the event "
	"counters between samples computed as top computes them live, and the events recorded "
	"(cgroups created and removed, OOM kills, max and high events, dirty verdict changes, "
	"changes memcgctl made, new answers of memcgctl size) in time order among the samples. TIME without a zone is local "
	"time; every time printed is UTC (RFC 3339). A CGROUP never recorded is a usage error "
	"(64); a window with nothing recorded says what the store holds (exit 1). A corrupt frame "
	"is reported on stderr by segment and frame, and the dump goes on past it (exit status 1 "
	"at the end); the torn last frame a killed recorder leaves is skipped silently.",
	cli_common_children, NULL, NULL,
};

struct dump {
	struct dump_args *a;
	FILE *out;
	unsigned bad;
	bool header_done, printed, fmt_csv;
	struct field sel[MAX_FIELDS];
	size_t nsel;
	bool chosen;		       /* -o was given */
	bool want_val[MCG_K__COUNT], want_rate[MCG_K__COUNT], want_name, want_events;
	bool *matched;		       /* per filter: a row or an event of it in the window */
	char **by_name;		       /* paths named by a filter through their recorded name */
	size_t nby_name;
	uint64_t frames;	       /* frames in the window */
	FILE *fam[MCG_K__COUNT]; /* OpenMetrics: one family's samples until the end */
	uint64_t prev_time;
	struct mcg_hist_frame *prev; /* the frame before: names of cgroups removed since */
};

static void on_bad(void *ud, const char *segment, unsigned frame, uint64_t off, const char *why)
{
	struct dump *d = ud;

	/*
	 * A recorder killed while writing leaves its last frame torn: expected,
	 * and said once by the recorder's exit, not by every dump after it
	 */
	if (!strncmp(why, MCG_HIST_WHY_TORN, strlen(MCG_HIST_WHY_TORN)))
		return;
	if (!d)
		return;
	d->bad++;
	cli_warn("history segment '%s' frame %u (offset %llu): %s; skipped", out_esc(segment), frame,
		 (unsigned long long)off, why);
}

/* Is PATH the cgroup F names, or below it? */
static bool path_in(const char *f, const char *path)
{
	size_t l;

	if (f[0] == '/')
		f++;
	l = strlen(f);
	while (l && f[l - 1] == '/')
		l--;
	if (!l)
		return true; /* "/": everything */
	return !strncmp(path + 1, f, l) && (path[1 + l] == '\0' || path[1 + l] == '/');
}

/* Does a CGROUP argument take the cgroup at PATH (recorded as NAME)? Notes which. */
static bool wanted(struct dump *d, const char *path, const char *name)
{
	const struct dump_args *a = d->a;
	bool any = false;
	size_t i;

	if (!a->nfilter)
		return true;
	for (i = 0; i < a->nfilter; i++)
		if (path_in(a->filter[i], path) || (name && !strcmp(a->filter[i], name))) {
			d->matched[i] = true;
			any = true;
		}
	return any;
}

static bool by_name(const struct dump *d, const char *path)
{
	size_t i;

	for (i = 0; i < d->nby_name; i++)
		if (!strcmp(d->by_name[i], path))
			return true;
	return false;
}

static void note_by_name(struct dump *d, const char *path)
{
	char **p;

	if (by_name(d, path) || !(p = realloc(d->by_name, (d->nby_name + 1) * sizeof(*p))))
		return;
	d->by_name = p;
	if ((p[d->nby_name] = strdup(path)))
		d->nby_name++;
}

/* The name recorded for PATH in frame F (NULL: none). */
static const char *frame_name(const struct mcg_hist_frame *f, const char *path)
{
	size_t lo = 0, hi;

	if (!f || !f->names)
		return NULL;
	hi = f->snap->n_rows;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = mcg_hist_path_cmp(f->snap->rows[mid].path, path);

		if (!c)
			return f->names[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const char *event_name(const struct dump *d, const struct mcg_hist_frame *f,
			      const struct mcg_hist_event *e)
{
	const char *n = frame_name(f, e->cgroup);

	return n ? n : frame_name(d->prev, e->cgroup);
}

static bool event_wanted(struct dump *d, const struct mcg_hist_frame *f,
			 const struct mcg_hist_event *e)
{
	if (!d->a->nfilter)
		return true;
	return wanted(d, e->cgroup, event_name(d, f, e)) || by_name(d, e->cgroup);
}

/* ---- the fields ---- */

/* The field name of K: its JSON key in the names table (mcg_value_names), as every command prints it. */
static const char *col(enum mcg_key k, char *buf, size_t len)
{
	(void)buf;
	(void)len;
	return mcg_json_key(k);
}

/* Its rate: KEY_per_s (memcgctl-json(7) NAMES). */
static const char *rate_col(enum mcg_key k, char *buf, size_t len)
{
	snprintf(buf, len, "%s_per_s", mcg_json_key(k));
	return buf;
}

/* The value of K as printed: the record's times the names table's scale (PSI: us read, ns printed). */
static uint64_t val(const struct mcg_sample_row *r, enum mcg_key k)
{
	return mcg_sample_get(r, k, 0) * mcg_value_names(k)->scale;
}

static double rate_val(const struct mcg_sample_row *r, enum mcg_key k)
{
	return mcg_sample_rate(r, k) * (double)mcg_value_names(k)->scale;
}

static bool bytes(enum mcg_key k)
{
	return mcg_key_desc(k)->unit == MCG_UNIT_BYTES;
}

/* Only event counters have rates: a setting's or a level's "rate" means nothing. */
static bool has_rate(enum mcg_key k)
{
	return mcg_key_desc(k)->kind == MCG_KIND_COUNTER;
}

static const char *field_name(const struct field *f, char *buf, size_t len)
{
	switch (f->kind) {
	case F_TS:
		return "timestamp_ns";
	case F_TIME:
		return "time";
	case F_CGROUP:
		return "cgroup";
	case F_NAME:
		return "name";
	case F_VAL:
		return col((enum mcg_key)f->k, buf, len);
	case F_RATE:
		return rate_col((enum mcg_key)f->k, buf, len);
	case F_EVENT:
		return "event";
	default:
		return "detail";
	}
}

/* Every field, in the default order. */
static size_t all_fields(struct field *f)
{
	size_t n = 0;
	unsigned k;

	f[n++] = (struct field){F_TS, 0};
	f[n++] = (struct field){F_TIME, 0};
	f[n++] = (struct field){F_CGROUP, 0};
	f[n++] = (struct field){F_NAME, 0};
	for (k = 0; k < MCG_K__COUNT; k++)
		f[n++] = (struct field){F_VAL, (unsigned short)k};
	for (k = 0; k < MCG_K__COUNT; k++)
		if (has_rate(k))
			f[n++] = (struct field){F_RATE, (unsigned short)k};
	f[n++] = (struct field){F_EVENT, 0};
	f[n++] = (struct field){F_DETAIL, 0};
	return n;
}

/* --list-fields: "NAME<TAB>what it is" a line (completion reads them too). */
static void print_fields(void)
{
	static const char *const kinds[] = {"level", "event counter", "setting"};
	struct field all[MAX_FIELDS];
	size_t n = all_fields(all), i;
	char name[96];

	for (i = 0; i < n; i++) {
		const struct field *f = &all[i];
		const struct mcg_key_desc *kd = mcg_key_desc((enum mcg_key)f->k);

		printf("%s\t", field_name(f, name, sizeof(name)));
		switch (f->kind) {
		case F_TS:
			puts("time of the sample or event, ns since the epoch");
			break;
		case F_TIME:
			puts("the same, UTC, RFC 3339");
			break;
		case F_CGROUP:
			puts("the cgroup's path");
			break;
		case F_NAME:
			puts("its recorded name: container, pod or unit");
			break;
		case F_VAL:
			printf("%s%s\n", kinds[kd->kind], kd->unit == MCG_UNIT_BYTES ? ", bytes" : "");
			break;
		case F_RATE:
			printf("per second since the sample before\n");
			break;
		case F_EVENT:
			puts("the event's name");
			break;
		default:
			puts("what happened");
			break;
		}
	}
}

/* -o FIELDS into D's selection; an unknown name: the message, the valid names, false. */
static bool select_fields(struct dump *d, const char *spec)
{
	struct field all[MAX_FIELDS];
	size_t n = all_fields(all), i;
	char name[96];
	const char *p;

	d->nsel = 0;
	if (!spec || *spec == '+') {
		/* the default is every field: +FIELDS adds nothing */
		memcpy(d->sel, all, n * sizeof(*all));
		d->nsel = n;
		spec = spec ? spec + 1 : NULL;
	} else {
		d->chosen = true;
	}
	for (p = spec; p && *p;) {
		size_t l = strcspn(p, ",");

		for (i = 0; i < n; i++) {
			const char *fn = field_name(&all[i], name, sizeof(name));

			if (strlen(fn) == l && !strncmp(fn, p, l))
				break;
		}
		if (i == n) {
			char bad[128];

			snprintf(bad, sizeof(bad), "%.*s", (int)(l < 100 ? l : 100), p);
			fprintf(stderr, "memcgctl: dump: unknown field '%s' for --output; valid fields:",
				out_esc(bad));
			for (i = 0; i < n; i++)
				fprintf(stderr, "%s %s", i ? "," : "",
					field_name(&all[i], name, sizeof(name)));
			fputc('\n', stderr);
			return false;
		}
		if (d->chosen && d->nsel < MAX_FIELDS)
			d->sel[d->nsel++] = all[i];
		p += l;
		if (*p == ',')
			p++;
	}
	if (!d->nsel) {
		cli_err("dump: no fields to print for --output '%s'", out_esc(spec));
		return false;
	}
	for (i = 0; i < d->nsel; i++) {
		if (d->sel[i].kind == F_VAL)
			d->want_val[d->sel[i].k] = true;
		else if (d->sel[i].kind == F_RATE)
			d->want_rate[d->sel[i].k] = true;
		else if (d->sel[i].kind == F_NAME)
			d->want_name = true;
		else if (d->sel[i].kind == F_EVENT)
			d->want_events = true;
	}
	return true;
}

/* The events of F in time order (indexes into F->ev; a stable order for equal times). */
static const struct mcg_hist_event *sort_ev_base;

static int cmp_ev(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t tx = sort_ev_base[x].time_ns, ty = sort_ev_base[y].time_ns;

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x < y ? -1 : x > y;
}

static size_t *events_in_order(const struct mcg_hist_frame *f)
{
	size_t *o = malloc((f->nev ? f->nev : 1) * sizeof(*o)), i;

	if (!o)
		return NULL;
	for (i = 0; i < f->nev; i++)
		o[i] = i;
	sort_ev_base = f->ev;
	qsort(o, f->nev, sizeof(*o), cmp_ev);
	return o;
}

/* An early warning in words: its explanation (the fields when it has none). */
static void warning_text(const struct mcg_hist_event *e, char *buf, size_t len)
{
	struct mcg_oom_warning wn;
	char u[32], l[32];

	if (mcg_oom_warning_from_event(e, &wn) < 0)
		snprintf(buf, len, "%s", e->detail ? e->detail : "");
	else if (wn.why[0])
		snprintf(buf, len, "%s", wn.why);
	else
		snprintf(buf, len, "usage %s at %s %s; %s +%llu",
			 mcg_size_format(wn.usage, u, sizeof(u)),
			 wn.limit_name ? wn.limit_name : "the limit",
			 mcg_size_format(wn.limit, l, sizeof(l)), wn.signal ? wn.signal : "?",
			 (unsigned long long)wn.events);
}

/* A size answer in words: what show says of it (the detail as stored when it does not read). */
static void size_text(const struct mcg_hist_event *e, char *buf, size_t len)
{
	struct mcg_size_state s;
	char a[32], b[32], c[32], d[32];

	if (mcg_size_state_from_event(e, &s) < 0) {
		snprintf(buf, len, "%llu%s%s", (unsigned long long)e->count, e->detail ? " " : "",
			 e->detail ? e->detail : "");
		return;
	}
	if (s.split_valid)
		snprintf(buf, len, "needs %s, cold %s (file %s, anon %s): %s, signal %s, %s",
			 cli_size(s.needed, a, sizeof(a)), cli_size(s.cold, b, sizeof(b)),
			 cli_size(s.cold_file, c, sizeof(c)),
			 cli_size(s.cold_anon, d, sizeof(d)), mcg_size_stop_name(s.stop),
			 mcg_size_signal_name(s.sig), s.method);
	else
		snprintf(buf, len, "needs %s, cold %s: %s, signal %s, %s",
			 cli_size(s.needed, a, sizeof(a)), cli_size(s.cold, b, sizeof(b)),
			 mcg_size_stop_name(s.stop), mcg_size_signal_name(s.sig), s.method);
}

static void event_text(const struct mcg_hist_event *e, char *buf, size_t len)
{
	buf[0] = '\0';
	if (e->type == MCG_HEV_SIZE)
		size_text(e, buf, len);
	else if (e->type == MCG_HEV_CHANGE)
		snprintf(buf, len, "%s%s%s (uid %lld, loginuid %lld, pid %lld, %s)",
			 e->op ? e->op : "", e->detail ? ": " : "", e->detail ? e->detail : "",
			 (long long)e->uid, (long long)e->loginuid, (long long)e->pid,
			 e->comm ? e->comm : "?");
	else if (e->type == MCG_HEV_DIRTY)
		snprintf(buf, len, "%s", e->detail ? e->detail : "");
	else if (e->type == MCG_HEV_OOM_WARNING)
		warning_text(e, buf, len);
	else if (e->type != MCG_HEV_CREATED && e->type != MCG_HEV_REMOVED)
		snprintf(buf, len, "%llu", (unsigned long long)e->count);
}

/* ---- JSON lines ---- */

static void json_event(struct dump *d, const struct mcg_hist_event *e, const char *name)
{
	FILE *o = d->out;
	struct mcg_oom_warning wn;
	struct mcg_size_state sz;
	char when[40];

	jw_open_object(o, NULL);
	jw_u64(o, "timestamp_ns", e->time_ns);
	jw_string(o, "time", mcg_hist_time_format(e->time_ns, when, sizeof(when)));
	jw_string(o, "event", mcg_hist_event_name(e->type));
	jw_string(o, "cgroup", e->cgroup);
	if (name && (!d->chosen || d->want_name))
		jw_string(o, "name", name);
	/* a size answer: its fields, as show --json's .size prints them */
	if (e->type == MCG_HEV_SIZE && mcg_size_state_from_event(e, &sz) == 0) {
		jw_bytes(o, mcg_json_key(MCG_F_NEEDED), sz.needed, true);
		jw_bytes(o, "cold_bytes", sz.cold, true);
		jw_bytes(o, "cold_file_bytes", sz.cold_file, sz.split_valid);
		jw_bytes(o, "cold_anon_bytes", sz.cold_anon, sz.split_valid);
		jw_string(o, "stop", mcg_size_stop_name(sz.stop));
		jw_string(o, "signal", mcg_size_signal_name(sz.sig));
		jw_string(o, "method", sz.method);
		jw_close_object(o);
		return;
	}
	if (e->type != MCG_HEV_CREATED && e->type != MCG_HEV_REMOVED && e->type != MCG_HEV_CHANGE &&
	    e->type != MCG_HEV_DIRTY)
		jw_u64(o, "count", e->count);
	if (e->type == MCG_HEV_DIRTY)
		jw_string(o, "level", mcg_dirty_level_name((enum mcg_dirty_level)e->count));
	/* an early warning: its fields, as 'oom --watch --json' prints them */
	if (e->type == MCG_HEV_OOM_WARNING && mcg_oom_warning_from_event(e, &wn) == 0) {
		if (wn.unit[0])
			jw_string(o, "unit", wn.unit);
		jw_u64(o, "usage_bytes", wn.usage);
		jw_u64(o, "limit_bytes", wn.limit);
		if (wn.limit_name)
			jw_string(o, "limit_name", wn.limit_name);
		jw_u64(o, "reclaimable_bytes", wn.reclaimable);
		if (wn.signal)
			jw_string(o, "signal", wn.signal);
		jw_u64(o, "signal_rise", wn.events);
		jw_u64(o, "interval_us", wn.interval_us);
		if (wn.has_psi_full)
			jw_u64(o, "psi_full_us", wn.psi_full_us);
		jw_string(o, "explanation", wn.why);
		jw_close_object(o);
		return;
	}
	if (e->op)
		jw_string(o, "op", e->op);
	if (e->detail)
		jw_string(o, "detail", e->detail);
	if (e->uid >= 0)
		jw_i64(o, "uid", e->uid);
	if (e->loginuid >= 0)
		jw_i64(o, "loginuid", e->loginuid);
	if (e->pid >= 0)
		jw_i64(o, "pid", e->pid);
	if (e->comm)
		jw_string(o, "comm", e->comm);
	jw_close_object(o);
}

static void print_json(struct dump *d, const struct mcg_hist_frame *f, const bool *rows,
		       const size_t *ord)
{
	const struct mcg_snapshot *s = f->snap;
	FILE *o = d->out;
	char name[96], when[40];
	size_t i;
	unsigned k;

	if (d->a->events_only) {
		/* one object per event, and nothing for a frame without one */
		for (i = 0; i < f->nev; i++) {
			const struct mcg_hist_event *e = &f->ev[ord[i]];

			if (!event_wanted(d, f, e))
				continue;
			json_event(d, e, event_name(d, f, e));
			jw_end(o);
			d->printed = true;
		}
		return;
	}
	jw_open_object(o, NULL);
	jw_u64(o, "timestamp_ns", f->time_ns);
	jw_string(o, "time", mcg_hist_time_format(f->time_ns, when, sizeof(when)));
	jw_u64(o, "version", (uint64_t)s->version);
	jw_u64(o, "interval_ns", (uint64_t)(s->interval * 1e9 + 0.5));
	/* the recorded rows (MCG_HOST_RECORDED): PSI alone made no global object before */
	if (!d->chosen && (s->global.host.valid & ((1ULL << MCG_G__RECORDED) - 1))) {
		jw_open_object(o, "global");
		jw_sample_global(o, &s->global);
		jw_close_object(o);
	}
	jw_open_array(o, "cgroups");
	for (i = 0; i < s->n_rows; i++) {
		const struct mcg_sample_row *r = &s->rows[i];
		bool any = false;

		if (!rows[i])
			continue;
		jw_open_object(o, NULL);
		jw_string(o, "cgroup", r->path);
		if (f->names && f->names[i] && d->want_name)
			jw_string(o, "name", f->names[i]);
		mcg_keyset_foreach(k, &r->valid)
		{
			if (!d->want_val[k])
				continue;
			if (bytes(k))
				jw_bytes(o, col(k, name, sizeof(name)), mcg_sample_get(r, k, 0), true);
			else
				jw_u64(o, col(k, name, sizeof(name)), val(r, k));
		}
		for (k = 0; k < MCG_K__COUNT; k++)
			any |= d->want_rate[k];
		if (any) {
			jw_open_object(o, "per_second");
			mcg_keyset_foreach(k, &r->rate_valid)
				if (d->want_rate[k])
					jw_double(o, rate_col(k, name, sizeof(name)), rate_val(r, k));
			jw_close_object(o);
		}
		jw_close_object(o);
	}
	jw_close_array(o);
	if (d->want_events) {
		jw_open_array(o, "events");
		for (i = 0; i < f->nev; i++) {
			const struct mcg_hist_event *e = &f->ev[ord[i]];

			if (event_wanted(d, f, e))
				json_event(d, e, event_name(d, f, e));
		}
		jw_close_array(o);
	}
	jw_close_object(o);
	jw_end(o);
	d->printed = true;
}

/* ---- CSV ---- */

/* A CSV field: escaped as memcgctl prints names, quoted when it holds a comma, a quote or a line break (RFC 4180). */
static void csv_str(FILE *o, const char *s)
{
	const char *e = out_esc(s);

	if (!strpbrk(e, ",\"\r\n")) {
		fputs(e, o);
		return;
	}
	putc('"', o);
	for (; *e; e++) {
		if (*e == '"')
			putc('"', o);
		putc(*e, o);
	}
	putc('"', o);
}

static void csv_header(struct dump *d)
{
	char name[96];
	size_t i;

	if (d->header_done)
		return;
	d->header_done = true;
	for (i = 0; i < d->nsel; i++)
		fprintf(d->out, "%s%s", i ? "," : "", field_name(&d->sel[i], name, sizeof(name)));
	putc('\n', d->out);
}

/* One CSV line: a row (R, its NAME) or an event (E) at TIME_NS. */
static void csv_line(struct dump *d, uint64_t time_ns, const char *cgroup, const char *name,
		     const struct mcg_sample_row *r, const struct mcg_hist_event *e)
{
	FILE *o = d->out;
	char when[40], text[1400];
	size_t i;

	csv_header(d);
	for (i = 0; i < d->nsel; i++) {
		const struct field *f = &d->sel[i];
		enum mcg_key k = (enum mcg_key)f->k;

		if (i)
			putc(',', o);
		switch (f->kind) {
		case F_TS:
			fprintf(o, "%llu", (unsigned long long)time_ns);
			break;
		case F_TIME:
			fputs(mcg_hist_time_format(time_ns, when, sizeof(when)), o);
			break;
		case F_CGROUP:
			csv_str(o, cgroup);
			break;
		case F_NAME:
			if (name)
				csv_str(o, name);
			break;
		case F_VAL:
			/* absent and unlimited are both empty */
			if (r && mcg_sample_has(r, k) && !(bytes(k) && mcg_sample_get(r, k, 0) == MCG_MAX))
				fprintf(o, "%llu", (unsigned long long)val(r, k));
			break;
		case F_RATE:
			if (r && mcg_sample_rate_has(r, k))
				fprintf(o, "%.10g", rate_val(r, k));
			break;
		case F_EVENT:
			if (e)
				fputs(mcg_hist_event_name(e->type), o);
			break;
		case F_DETAIL:
			if (e) {
				event_text(e, text, sizeof(text));
				csv_str(o, text);
			}
			break;
		}
	}
	putc('\n', o);
	d->printed = true;
}

/* ---- text ---- */

static void text_row(struct dump *d, const struct mcg_hist_frame *f, size_t i)
{
	const struct mcg_sample_row *r = &f->snap->rows[i];
	static const enum mcg_key ks[6] = {MCG_K_USAGE, MCG_K_LIMIT, MCG_K_ANON,
					   MCG_K_FILE,	MCG_K_DIRTY, MCG_K_WRITEBACK};
	const char *name = f->names ? f->names[i] : NULL;
	char when[40], b[6][32], cell[64];
	FILE *o = d->out;
	size_t j;

	mcg_hist_time_format(f->time_ns, when, sizeof(when));
	if (d->chosen) {
		/* the fields asked for, in their order: TIME, sizes as top prints them */
		if (!d->header_done) {
			for (j = 0; j < d->nsel; j++) {
				const struct field *fl = &d->sel[j];
				char n[96], *c;

				/* a value's header as list and top print it, a rate's HEADER/s */
				if (fl->kind == F_VAL || fl->kind == F_RATE) {
					snprintf(n, sizeof(n), "%s%s", mcg_header(fl->k),
						 fl->kind == F_RATE ? "/s" : "");
				} else {
					snprintf(n, sizeof(n), "%s",
						 field_name(fl, cell, sizeof(cell)));
					for (c = n; *c; c++)
						*c = (char)toupper((unsigned char)*c);
				}
				fprintf(o, "%s%s", j ? "  " : "", n);
			}
			putc('\n', o);
			d->header_done = true;
		}
		for (j = 0; j < d->nsel; j++) {
			const struct field *fl = &d->sel[j];
			enum mcg_key k = (enum mcg_key)fl->k;

			snprintf(cell, sizeof(cell), "-");
			if (fl->kind == F_TS)
				snprintf(cell, sizeof(cell), "%llu", (unsigned long long)f->time_ns);
			else if (fl->kind == F_VAL && mcg_sample_has(r, k) && bytes(k))
				cli_size(mcg_sample_get(r, k, 0), cell, sizeof(cell));
			else if (fl->kind == F_VAL && mcg_sample_has(r, k))
				snprintf(cell, sizeof(cell), "%llu", (unsigned long long)val(r, k));
			else if (fl->kind == F_RATE && mcg_sample_rate_has(r, k))
				snprintf(cell, sizeof(cell), "%.4g", rate_val(r, k));
			fprintf(o, "%s%s", j ? "  " : "",
				fl->kind == F_TIME     ? when
				: fl->kind == F_CGROUP ? out_esc(r->path)
				: fl->kind == F_NAME   ? (name ? out_esc(name) : "-")
						       : cell);
		}
		putc('\n', o);
		d->printed = true;
		return;
	}
	if (!d->header_done) {
		fprintf(o, "%-24s", "TIME");
		for (j = 0; j < 6; j++)
			fprintf(o, " %10s", mcg_header(ks[j]));
		fprintf(o, "  %s\n", "CGROUP");
		d->header_done = true;
	}
	for (j = 0; j < 6; j++) {
		if (mcg_sample_has(r, ks[j]))
			cli_size(mcg_sample_get(r, ks[j], 0), b[j], sizeof(b[j]));
		else
			snprintf(b[j], sizeof(b[j]), "-");
	}
	fprintf(o, "%-24s %10s %10s %10s %10s %10s %10s  %s%s%s%s\n", when, b[0], b[1], b[2], b[3],
		b[4], b[5], out_esc(r->path), name ? " (" : "", name ? out_esc(name) : "",
		name ? ")" : "");
	d->printed = true;
}

static void text_event(struct dump *d, const struct mcg_hist_frame *f,
		       const struct mcg_hist_event *e)
{
	const char *name = event_name(d, f, e);
	char when[40], text[1400];

	mcg_hist_time_format(e->time_ns, when, sizeof(when));
	event_text(e, text, sizeof(text));
	fprintf(d->out, "%-24s event %s %s%s%s%s%s%s\n", when, mcg_hist_event_name(e->type),
		out_esc(e->cgroup), name ? " (" : "", name ? out_esc(name) : "", name ? ")" : "",
		text[0] ? ": " : "", out_esc(text));
	d->printed = true;
}

/*
 * One frame in text or CSV: its events (what happened since the sample
 * before) in time order, those up to the sample's time before its rows, the
 * others (none the recorder writes) after them.
 */
static void print_lines(struct dump *d, const struct mcg_hist_frame *f, const bool *rows,
			const size_t *ord)
{
	const struct mcg_snapshot *s = f->snap;
	bool evs = d->want_events || d->a->events_only;
	size_t i, e = 0;

	for (; evs && e < f->nev && f->ev[ord[e]].time_ns <= f->time_ns; e++) {
		const struct mcg_hist_event *ev = &f->ev[ord[e]];

		if (!event_wanted(d, f, ev))
			continue;
		if (d->fmt_csv)
			csv_line(d, ev->time_ns, ev->cgroup, event_name(d, f, ev), NULL, ev);
		else
			text_event(d, f, ev);
	}
	for (i = 0; !d->a->events_only && i < s->n_rows; i++) {
		if (!rows[i])
			continue;
		if (d->fmt_csv)
			csv_line(d, f->time_ns, s->rows[i].path, f->names ? f->names[i] : NULL,
				 &s->rows[i], NULL);
		else
			text_row(d, f, i);
	}
	for (; evs && e < f->nev; e++) {
		const struct mcg_hist_event *ev = &f->ev[ord[e]];

		if (!event_wanted(d, f, ev))
			continue;
		if (d->fmt_csv)
			csv_line(d, ev->time_ns, ev->cgroup, event_name(d, f, ev), NULL, ev);
		else
			text_event(d, f, ev);
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

static int print_om(struct dump *d, const struct mcg_hist_frame *f, const bool *rows)
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

		if (!rows[i])
			continue;
		labels = mcg_om_cgroup_labels(r->path, false);
		if (!labels)
			return -ENOMEM;
		mcg_keyset_foreach(k, &r->valid)
		{
			const struct mcg_key_desc *kd = mcg_key_desc(k);

			if (!d->want_val[k])
				continue;
			if (kd->unit == MCG_UNIT_BYTES && mcg_sample_get(r, k, 0) == MCG_MAX)
				continue; /* no limit: left out, as export does */
			if (!d->fam[k] && !(d->fam[k] = tmpfile())) {
				free(labels);
				return -errno;
			}
			mcg_om_metric_name(k, name, sizeof(name));
			fprintf(d->fam[k], "%s{%s} ", name, labels);
			om_value(d->fam[k], kd, mcg_sample_get(r, k, 0));
			fprintf(d->fam[k], " %llu.%03llu\n",
				(unsigned long long)(f->time_ns / 1000000000ULL),
				(unsigned long long)(f->time_ns % 1000000000ULL / 1000000ULL));
		}
		free(labels);
		d->printed = true;
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
		fprintf(d->out, "# TYPE %s %s\n", name,
			kd->kind == MCG_KIND_COUNTER ? "counter" : "gauge");
		rewind(d->fam[k]);
		while ((n = fread(buf, 1, sizeof(buf), d->fam[k])) > 0)
			fwrite(buf, 1, n, d->out);
		fclose(d->fam[k]);
		d->fam[k] = NULL;
	}
	fputs("# EOF\n", d->out);
	return 0;
}

/* ---- --output-file: a temporary file beside FILE, renamed over it when done ---- */

struct outfile {
	int dirfd;
	char *base, tmp[300];
	FILE *f;
};

/* 0, or the status after the message. */
static int outfile_open(struct outfile *of, const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	struct stat st;
	mode_t mode = 0640;
	unsigned char rnd[6];
	int fd = -1, tries;

	of->dirfd = -1;
	of->f = NULL;
	of->base = strdup(slash ? slash + 1 : path);
	dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	if (!of->base || !dir) {
		free(dir);
		cli_err("dump: out of memory");
		return EXIT_FAILURE;
	}
	if (!of->base[0] || !strcmp(of->base, ".") || !strcmp(of->base, "..") ||
	    strlen(of->base) > 200) {
		cli_err("dump: invalid --output-file '%s': not a file name", out_esc(path));
		free(dir);
		return EXIT_USAGE;
	}
	of->dirfd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (of->dirfd < 0) {
		cli_err("dump: cannot open the directory of --output-file '%s': %s", out_esc(path),
			strerror(errno));
		free(dir);
		return errno == ENOENT || errno == ENOTDIR ? EXIT_USAGE : EXIT_FAILURE;
	}
	free(dir);
	if (fstatat(of->dirfd, of->base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISREG(st.st_mode)) {
			cli_err("dump: --output-file '%s' exists and is not a regular file: refused",
				out_esc(path));
			return EXIT_USAGE;
		}
		mode = st.st_mode & 07777; /* a file replaced keeps its mode */
	} else if (errno != ENOENT) {
		cli_err("dump: cannot check --output-file '%s': %s", out_esc(path), strerror(errno));
		return EXIT_FAILURE;
	}
	for (tries = 0; tries < 20 && fd < 0; tries++) {
		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			memset(rnd, tries, sizeof(rnd));
		snprintf(of->tmp, sizeof(of->tmp), ".%s.%02x%02x%02x%02x%02x%02x.tmp", of->base,
			 rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5]);
		fd = openat(of->dirfd, of->tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		cli_err("dump: cannot create a file beside --output-file '%s': %s", out_esc(path),
			strerror(errno));
		of->tmp[0] = '\0';
		return EXIT_FAILURE;
	}
	fchmod(fd, mode); /* not the umask's: as the file replaced was */
	of->f = fdopen(fd, "w");
	if (!of->f) {
		close(fd);
		unlinkat(of->dirfd, of->tmp, 0);
		of->tmp[0] = '\0';
		cli_err("dump: out of memory");
		return EXIT_FAILURE;
	}
	return 0;
}

/* KEEP: rename the temporary file over the target; else remove it. 0, or the status. */
static int outfile_close(struct outfile *of, bool keep, const char *path)
{
	int rc = 0;

	if (of->f) {
		bool ok = fflush(of->f) == 0 && !ferror(of->f) && fsync(fileno(of->f)) == 0;
		int e = errno;

		if (fclose(of->f) != 0 && ok) {
			ok = false;
			e = errno;
		}
		of->f = NULL;
		if (keep && !ok) {
			cli_err("dump: cannot write --output-file '%s': %s", out_esc(path),
				strerror(e));
			rc = EXIT_FAILURE;
			keep = false;
		}
		if (keep && renameat(of->dirfd, of->tmp, of->dirfd, of->base) < 0) {
			cli_err("dump: cannot replace --output-file '%s': %s", out_esc(path),
				strerror(errno));
			rc = EXIT_FAILURE;
			keep = false;
		}
		if (!keep)
			unlinkat(of->dirfd, of->tmp, 0);
		else
			fsync(of->dirfd);
	}
	if (of->dirfd >= 0)
		close(of->dirfd);
	free(of->base);
	return rc;
}

/* ---- the window and the CGROUPs: what the store holds when they have nothing ---- */

static const char *fmt_time(uint64_t ns, char *buf, size_t len)
{
	return mcg_hist_time_format(ns, buf, len);
}

/*
 * A CGROUP with nothing in the window: when the store has it at all (from
 * *FIRST to *LAST), by a second reading of the whole store (only on this error).
 */
static bool store_has(const char *store, const char *filter, uint64_t *first, uint64_t *last)
{
	struct mcg_hist_reader *r;
	struct mcg_hist_frame *f;
	bool seen = false;
	int rc;

	if (mcg_hist_reader_open(store, NULL, NULL, &r) < 0)
		return false;
	for (rc = mcg_hist_seek(r, 0, &f); rc == 0; rc = mcg_hist_next(r, &f)) {
		size_t i;

		for (i = 0; i < f->snap->n_rows; i++)
			if (path_in(filter, f->snap->rows[i].path) ||
			    (f->names && f->names[i] && !strcmp(f->names[i], filter))) {
				if (!seen)
					*first = f->time_ns;
				*last = f->time_ns;
				seen = true;
				break;
			}
		mcg_hist_frame_free(f);
	}
	mcg_hist_reader_free(r);
	return seen;
}

static int dump_frame(struct dump *d, const struct mcg_hist_frame *f)
{
	const struct mcg_snapshot *s = f->snap;
	bool *rows = calloc(s->n_rows ? s->n_rows : 1, sizeof(*rows));
	size_t *ord = events_in_order(f), i;
	int rc = 0;

	if (!rows || !ord) {
		free(rows);
		free(ord);
		return -ENOMEM;
	}
	for (i = 0; i < s->n_rows; i++) {
		const char *name = f->names ? f->names[i] : NULL;

		rows[i] = wanted(d, s->rows[i].path, name);
		/* a cgroup a CGROUP names by its recorded name: its events too */
		if (rows[i] && name && d->a->nfilter && !by_name(d, s->rows[i].path)) {
			size_t j;

			for (j = 0; j < d->a->nfilter; j++)
				if (!strcmp(d->a->filter[j], name))
					note_by_name(d, s->rows[i].path);
		}
	}
	switch (d->a->fmt) {
	case FMT_JSON:
		print_json(d, f, rows, ord);
		break;
	case FMT_OM:
		rc = print_om(d, f, rows);
		break;
	default:
		print_lines(d, f, rows, ord);
		break;
	}
	free(rows);
	free(ord);
	return rc;
}

static int run_dump(struct cli *cli, int argc, char **argv)
{
	struct dump_args a = {0};
	struct dump d = {0};
	struct mcg_hist_reader *r = NULL;
	struct mcg_hist_frame *f;
	struct outfile of = {.dirfd = -1};
	const char *store;
	char why[160], t1[40], t2[40], t3[40], t4[40];
	uint64_t now = out_realtime_ns(), from = 0, to = now, first, last;
	int rc, status = EXIT_OK;
	bool complete = false;
	size_t i;
	unsigned k;

	rc = cli_parse(&dump_argp, argc, argv, &a);
	if (rc) {
		free(a.filter);
		return rc;
	}
	d.a = &a;
	d.out = stdout;
	if (a.list_fields) {
		print_fields();
		goto out;
	}
	if (cli->json && a.fmt != FMT_TEXT) {
		cli_err("cannot dump: --json, --csv and --openmetrics are one choice");
		status = EXIT_USAGE;
		goto out;
	}
	if (cli->json)
		a.fmt = FMT_JSON;
	d.fmt_csv = a.fmt == FMT_CSV;
	if (a.from && mcg_hist_time_parse(a.from, now, &from, why, sizeof(why)) < 0) {
		cli_err("invalid --from '%s': %s", out_esc(a.from), why);
		status = EXIT_USAGE;
		goto out;
	}
	if (a.to && mcg_hist_time_parse(a.to, now, &to, why, sizeof(why)) < 0) {
		cli_err("invalid --to '%s': %s", out_esc(a.to), why);
		status = EXIT_USAGE;
		goto out;
	}
	if (from > to) {
		cli_err("dump: --from %s is after --to %s", fmt_time(from, t1, sizeof(t1)),
			fmt_time(to, t2, sizeof(t2)));
		status = EXIT_USAGE;
		goto out;
	}
	if (!select_fields(&d, a.fields)) {
		status = EXIT_USAGE;
		goto out;
	}
	if (!d.chosen) {
		d.want_name = d.want_events = true;
		for (k = 0; k < MCG_K__COUNT; k++) {
			d.want_val[k] = true;
			d.want_rate[k] = has_rate(k);
		}
	}
	d.matched = calloc(a.nfilter ? a.nfilter : 1, sizeof(*d.matched));
	if (!d.matched) {
		status = EXIT_FAILURE;
		goto out;
	}
	store = a.store ? a.store : MCG_HIST_DEFAULT_DIR;
	rc = mcg_hist_reader_open(store, on_bad, &d, &r);
	if (rc == -EACCES && geteuid() != 0) {
		/* what it takes, rather than a bare EACCES */
		cli_err("cannot open history store '%s': %s: reading history needs root or "
			"membership of the group '%s'",
			out_esc(store), mcg_strerror(rc), MCG_HIST_GROUP);
		status = EXIT_FAILURE;
		goto out;
	}
	if (rc < 0) {
		cli_err("cannot open history store '%s': %s", out_esc(store), mcg_strerror(rc));
		status = rc == -ENOENT ? EXIT_USAGE : EXIT_FAILURE;
		r = NULL;
		goto out;
	}
	if (a.file) {
		status = outfile_open(&of, a.file);
		if (status)
			goto out;
		d.out = of.f;
		cli_trap_signals(); /* an interrupted dump leaves no file behind */
	}
	for (rc = mcg_hist_seek(r, from, &f); rc == 0 && !cli_interrupted;
	     rc = mcg_hist_next(r, &f)) {
		if (f->time_ns > to) {
			mcg_hist_frame_free(f);
			break;
		}
		if (f->time_ns >= from) {
			d.frames++;
			if (dump_frame(&d, f) < 0)
				status = EXIT_FAILURE;
		}
		mcg_hist_frame_free(d.prev);
		d.prev = f;
	}
	if (rc < 0 && rc != -ENOENT) {
		cli_err("cannot read history store '%s': %s", out_esc(store), mcg_strerror(rc));
		status = EXIT_FAILURE;
	}
	if (cli_interrupted) {
		status = 128 + (int)cli_interrupted;
		goto out;
	}
	if (!d.frames) {
		/* nothing in the window: say what the store holds */
		if (mcg_hist_reader_span(r, &first, &last) < 0)
			cli_err("dump: nothing recorded in the history store '%s'", out_esc(store));
		else
			cli_err("dump: nothing recorded from %s to %s (the store '%s' holds samples "
				"from %s to %s)",
				from ? fmt_time(from, t1, sizeof(t1)) : "the start",
				fmt_time(to, t2, sizeof(t2)), out_esc(store),
				fmt_time(first, t3, sizeof(t3)), fmt_time(last, t4, sizeof(t4)));
		status = EXIT_FAILURE;
		goto out;
	}
	for (i = 0; i < a.nfilter; i++) {
		if (d.matched[i])
			continue;
		if (!store_has(store, a.filter[i], &first, &last)) {
			if (mcg_hist_reader_span(r, &first, &last) < 0)
				first = last = 0;
			cli_err("dump: no cgroup %s in the store (neither a path nor a recorded name "
				"in '%s', which holds samples from %s to %s)",
				out_esc(a.filter[i]), out_esc(store), fmt_time(first, t1, sizeof(t1)),
				fmt_time(last, t2, sizeof(t2)));
			status = EXIT_USAGE;
		} else {
			cli_err("dump: nothing recorded of cgroup %s from %s to %s (it was recorded "
				"from %s to %s)",
				out_esc(a.filter[i]), from ? fmt_time(from, t1, sizeof(t1)) : "the start",
				fmt_time(to, t2, sizeof(t2)), fmt_time(first, t3, sizeof(t3)),
				fmt_time(last, t4, sizeof(t4)));
			if (status != EXIT_USAGE)
				status = EXIT_FAILURE;
		}
	}
	if (a.nfilter && status != EXIT_OK && !d.printed)
		goto out;
	if (a.fmt == FMT_OM)
		om_finish(&d);
	if (a.fmt == FMT_CSV)
		csv_header(&d);
	/* the whole window was read (corrupt frames skipped, and said): the file may replace */
	complete = status == EXIT_OK || (status == EXIT_FAILURE && d.bad);
out:
	for (k = 0; k < MCG_K__COUNT; k++)
		if (d.fam[k])
			fclose(d.fam[k]);
	if (d.out == stdout && fflush(stdout) != 0 && status == EXIT_OK)
		status = EXIT_FAILURE;
	if (a.file) {
		rc = outfile_close(&of, complete, a.file);
		if (rc && status != EXIT_USAGE)
			status = rc;
	}
	mcg_hist_frame_free(d.prev);
	mcg_hist_reader_free(r);
	for (i = 0; i < d.nby_name; i++)
		free(d.by_name[i]);
	free(d.by_name);
	free(d.matched);
	free(a.filter);
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
