/* cmd-export.c: "memcgctl export": the counters of every memory cgroup as Prometheus text. */
#include "memcgctl.h"
#include "internal.h"

#include <memcg/openmetrics.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/*
 * The text exposition format 0.0.4 (what Prometheus scrapes and node_exporter's
 * textfile collector reads; promtool check metrics checks it). One family per
 * counter of the schema (MCG_SCHEMA): memcgctl_ + the base name + the unit in
 * base units (_bytes, _seconds) + _total for counters; one sample per cgroup
 * with the label cgroup="PATH" (mcg_om_label_dup). An unlimited limit and a
 * counter the kernel does not provide have no sample.
 */

#define TEXTFILE_NAME "memcgctl.prom"
#define CONTENT_TYPE  "text/plain; version=0.0.4; charset=utf-8"

enum fam {
	FAM_USAGE,
	FAM_LIMITS,
	FAM_MEMORY,
	FAM_RECLAIM,
	FAM_EVENTS,
	FAM_PSI,
	FAM_TREE,
	FAM__COUNT
};
static const char *const fam_names[FAM__COUNT] = {
	"usage", "limits", "memory", "reclaim", "events", "psi", "tree",
};

static enum fam key_family(enum mcg_key k)
{
	switch (k) {
	case MCG_K_USAGE:
	case MCG_K_PEAK:
	case MCG_K_SWAP_USAGE:
	case MCG_K_MEMSW_USAGE:
	case MCG_K_KMEM_USAGE:
		return FAM_USAGE;
	case MCG_K_LIMIT:
	case MCG_K_HIGH:
	case MCG_K_LOW:
	case MCG_K_MIN:
	case MCG_K_SOFT_LIMIT:
	case MCG_K_SWAP_LIMIT:
	case MCG_K_MEMSW_LIMIT:
	case MCG_K_EFFECTIVE_LIMIT:
	case MCG_K_SWAPPINESS:
	case MCG_K_OOM_KILL_DISABLE:
		return FAM_LIMITS;
	case MCG_K_FAILCNT:
	case MCG_K_EV_LOW:
	case MCG_K_EV_HIGH:
	case MCG_K_EV_MAX:
	case MCG_K_EV_OOM:
	case MCG_K_EV_OOM_KILL:
	case MCG_K_EV_OOM_GROUP_KILL:
	case MCG_K_UNDER_OOM:
		return FAM_EVENTS;
	case MCG_K_PSI_SOME:
	case MCG_K_PSI_FULL:
	case MCG_K_STALL:
		return FAM_PSI;
	case MCG_K_NR_PROCS:
	case MCG_K_NR_CHILDREN:
		return FAM_TREE;
	default:
		break;
	}
	/* the memory.stat rows: amounts, and the reclaim/fault/refault event counters */
	return mcg_key_desc(k)->unit == MCG_UNIT_BYTES ? FAM_MEMORY : FAM_RECLAIM;
}

/* The metric name of K: memcgctl_pgscan_total, memcgctl_psi_some_seconds_total */
static void metric_name(enum mcg_key k, char *buf, size_t len)
{
	const struct mcg_key_desc *d = mcg_key_desc(k);
	const char *unit = "";

	switch (d->unit) {
	case MCG_UNIT_BYTES:
		unit = "_bytes";
		break;
	case MCG_UNIT_PAGES:
		unit = "_pages";
		break;
	case MCG_UNIT_US:
	case MCG_UNIT_NS:
		unit = "_seconds";
		break;
	case MCG_UNIT_EVENTS:
	case MCG_UNIT_NUMBER:
		break;
	}
	snprintf(buf, len, "memcgctl_%s%s%s", d->name, unit,
		 d->kind == MCG_KIND_COUNTER ? "_total" : "");
}

static void help_source(FILE *f, const struct mcg_key_desc *d, int v)
{
	fprintf(f, "v%d %s%s%s", v + 1, d->file[v], d->key[v] ? " " : "",
		d->key[v] ? d->key[v] : "");
}

static void print_help(FILE *f, enum mcg_key k, const char *name)
{
	const struct mcg_key_desc *d = mcg_key_desc(k);

	fprintf(f, "# HELP %s memory cgroup %s (", name, d->name);
	if (d->file[0])
		help_source(f, d, 0);
	if (d->file[0] && d->file[1])
		fputs(", ", f);
	if (d->file[1])
		help_source(f, d, 1);
	if (!d->file[0] && !d->file[1])
		fputs("computed by memcgctl", f);
	fputs(d->unit == MCG_UNIT_US || d->unit == MCG_UNIT_NS ? "), seconds\n" : ")\n", f);
	fprintf(f, "# TYPE %s %s\n", name, d->kind == MCG_KIND_COUNTER ? "counter" : "gauge");
}

static void print_value(FILE *f, const struct mcg_key_desc *d, uint64_t v)
{
	if (d->unit == MCG_UNIT_US)
		fprintf(f, "%llu.%06llu\n", (unsigned long long)(v / 1000000),
			(unsigned long long)(v % 1000000));
	else if (d->unit == MCG_UNIT_NS)
		fprintf(f, "%llu.%09llu\n", (unsigned long long)(v / 1000000000),
			(unsigned long long)(v % 1000000000));
	else
		fprintf(f, "%llu\n", (unsigned long long)v);
}

/* ---- one scrape: a set of (label, record) rows ---------------------------- */

struct ex_row {
	char *label; /* the escaped cgroup label value */
	struct mcg_record rec;
};

struct ex_set {
	struct ex_row *rows;
	size_t n, cap;
};

static void set_clear(struct ex_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->rows[i].label);
	s->n = 0;
}

static void set_free(struct ex_set *s)
{
	set_clear(s);
	free(s->rows);
	s->rows = NULL;
	s->cap = 0;
}

static struct ex_row *set_add(struct ex_set *s, const char *path)
{
	struct ex_row *r;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct ex_row *n = realloc(s->rows, cap * sizeof(*n));

		if (!n)
			return NULL;
		s->rows = n;
		s->cap = cap;
	}
	r = &s->rows[s->n];
	r->label = mcg_om_label_dup(path);
	if (!r->label)
		return NULL;
	memset(&r->rec, 0, sizeof(r->rec));
	s->n++;
	return r;
}

/* Is V of K "no limit"? Such a sample is left out (memcgctl-export(8)). */
static bool unlimited(enum mcg_key k, uint64_t v)
{
	return mcg_key_desc(k)->unit == MCG_UNIT_BYTES && v == MCG_MAX;
}

/* The exposition of SET for the families in FAMS. */
static void render(const struct ex_set *s, unsigned fams, FILE *f)
{
	char name[128];
	unsigned k;
	size_t i;

	for (k = 0; k < MCG_K__COUNT; k++) {
		const struct mcg_key_desc *d = mcg_key_desc(k);
		bool head = false;

		if (!(fams & (1u << key_family(k))))
			continue;
		metric_name(k, name, sizeof(name));
		for (i = 0; i < s->n; i++) {
			const struct mcg_record *r = &s->rows[i].rec;

			if (!mcg_record_has(r, k) || unlimited(k, r->v[k]))
				continue;
			if (!head) {
				print_help(f, k, name);
				head = true;
			}
			fprintf(f, "%s{cgroup=\"%s\"} ", name, s->rows[i].label);
			print_value(f, d, r->v[k]);
		}
	}
}

/* ---- the rows by a walk: every counter of the record (stdout, --textfile) --- */

struct ex_walk {
	struct mcg_ctx *ctx;
	struct ex_set *set;
	int err;
};

static int visit(const char *path, int depth, void *userdata)
{
	struct ex_walk *w = userdata;
	struct mcg_group *g;
	struct mcg_record rec;
	struct ex_row *row;
	int r;

	(void)depth;
	r = mcg_group_open(w->ctx, path, &g);
	/*
	 * Removed during the walk. A directory the walk found that no longer
	 * holds the memory files is one the kernel is removing (every
	 * directory of the hierarchy is a cgroup), so it is skipped too.
	 */
	if (r == -ENOENT || r == -ENODEV || r == -MCG_E_NOTCGROUP)
		return 1;
	if (r < 0) {
		char *e = mcg_escape_dup(path);

		cli_warn("cannot open cgroup '%s': %s", e ? e : "?", mcg_strerror(r));
		free(e);
		return 1;
	}
	r = mcg_group_read_record(g, &rec, NULL);
	mcg_group_close(g);
	if (r == -ENOENT || r == -ENODEV)
		return 1;
	if (r < 0) {
		char *e = mcg_escape_dup(path);

		cli_warn("cannot read cgroup '%s': %s", e ? e : "?", mcg_strerror(r));
		free(e);
		return 0;
	}
	row = set_add(w->set, path);
	if (!row) {
		w->err = -ENOMEM;
		return -ENOMEM;
	}
	row->rec = rec;
	return 0;
}

static int collect_walk(struct mcg_ctx *ctx, const char *path, int depth, struct ex_set *set)
{
	struct ex_walk w = {.ctx = ctx, .set = set};
	int r;

	set_clear(set);
	r = mcg_walk(ctx, path, depth, visit, &w);
	return w.err ? w.err : r < 0 ? r : 0;
}

/* ---- the rows from the sampler's snapshot (--listen: kept descriptors) ---- */

static int collect_snapshot(const struct mcg_snapshot *snap, int depth, struct ex_set *set)
{
	size_t i;

	set_clear(set);
	for (i = 0; i < snap->n_rows; i++) {
		const struct mcg_sample_row *sr = &snap->rows[i];
		struct ex_row *row;

		if (depth >= 0 && sr->depth > depth)
			continue;
		row = set_add(set, sr->path);
		if (!row)
			return -ENOMEM;
		row->rec = sr->rec;
	}
	return 0;
}

/* ---- arguments --------------------------------------------------------- */

enum {
	OPT_DEPTH = 0x200,
	OPT_FAMILIES,
	OPT_TEXTFILE,
	OPT_LISTEN,
};

struct export_args {
	const char *cgroup;
	int depth;
	unsigned fams;
	const char *textfile;
	const char *listen;
	uint64_t interval_ms;
	bool interval_set;
	long count; /* 0: until stopped */
	bool count_set;
};

static const struct argp_option export_options[] = {
	{"depth", OPT_DEPTH, "N", 0, "Export N levels below CGROUP (default: all)", 0},
	{"families", OPT_FAMILIES, "LIST", 0,
	 "Only these counter families, comma-separated: usage, limits, memory, reclaim, events, "
	 "psi, tree (default: all)",
	 0},
	{"textfile", OPT_TEXTFILE, "DIR", 0,
	 "Write DIR/" TEXTFILE_NAME " atomically (for node_exporter's textfile collector)", 0},
	{"interval", 'd', "DURATION", 0, "With --textfile: write again every DURATION", 0},
	{"count", 'n', "N", 0, "With --textfile --interval: stop after N writes", 0},
	{"listen", OPT_LISTEN, "ADDR:PORT", 0,
	 "Serve /metrics over HTTP on ADDR:PORT (127.0.0.1:9756, [::1]:9756, :9756 for all)", 0},
	{0},
};

static int parse_families(const char *s, unsigned *ret)
{
	char *dup = strdup(s), *save = NULL, *tok;
	unsigned m = 0, f;

	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (f = 0; f < FAM__COUNT; f++)
			if (!strcmp(tok, fam_names[f]))
				break;
		if (f == FAM__COUNT) {
			free(dup);
			return -EINVAL;
		}
		m |= 1u << f;
	}
	free(dup);
	if (!m)
		return -EINVAL;
	*ret = m;
	return 0;
}

static error_t export_parse(int key, char *arg, struct argp_state *state)
{
	struct export_args *a = state->input;
	char *end;
	long v;

	switch (key) {
	case OPT_DEPTH:
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || *end || end == arg || v < 0 || v > 1000)
			argp_error(state,
				   "invalid --depth '%s': must be a whole number from 0 to 1000",
				   arg);
		a->depth = (int)v;
		break;
	case OPT_FAMILIES:
		if (parse_families(arg, &a->fams) < 0)
			argp_error(
				state,
				"invalid --families '%s': a comma-separated list of usage, limits, "
				"memory, reclaim, events, psi, tree",
				arg);
		break;
	case OPT_TEXTFILE:
		a->textfile = arg;
		break;
	case OPT_LISTEN:
		a->listen = arg;
		break;
	case 'd':
		if (cli_parse_duration("--interval", arg, &a->interval_ms) < 0 || !a->interval_ms)
			argp_error(state, "invalid --interval '%s'", arg);
		a->interval_set = true;
		break;
	case 'n':
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || *end || end == arg || v < 1)
			argp_error(state, "invalid --count '%s': must be a whole number from 1",
				   arg);
		a->count = v;
		a->count_set = true;
		break;
	case ARGP_KEY_ARG:
		if (a->cgroup)
			argp_error(state, "too many arguments: '%s'", arg);
		a->cgroup = arg;
		break;
	case ARGP_KEY_END:
		if (a->textfile && a->listen)
			argp_error(state, "--textfile and --listen cannot be used together");
		if (a->interval_set && !a->textfile)
			argp_error(state, "--interval needs --textfile");
		if (a->count_set && !a->interval_set)
			argp_error(state, "--count needs --textfile and --interval");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp export_argp = {
	export_options,
	export_parse,
	"[CGROUP]",
	"Print the counters of every memory cgroup under CGROUP (default: the whole hierarchy) "
	"in the Prometheus text exposition format: usage and limits, memory.stat amounts, reclaim "
	"and refault counters, events, failcnt and pressure, one family per counter with a "
	"cgroup label. --textfile writes them for node_exporter, --listen serves them over HTTP.",
	cli_common_children,
	NULL,
	NULL,
};

/* ---- modes ------------------------------------------------------------- */

/* The exposition of the tree as a malloc'd buffer. */
static int scrape_walk(struct mcg_ctx *ctx, const char *path, const struct export_args *a,
		       struct ex_set *set, char **ret, size_t *ret_len)
{
	FILE *f;
	int r;

	r = collect_walk(ctx, path, a->depth, set);
	if (r < 0)
		return r;
	f = open_memstream(ret, ret_len);
	if (!f)
		return -errno;
	render(set, a->fams, f);
	if (fclose(f) != 0)
		return -ENOMEM;
	return 0;
}

static bool sleep_ms(uint64_t ms)
{
	struct timespec ts = {.tv_sec = (time_t)(ms / 1000),
			      .tv_nsec = (long)(ms % 1000) * 1000000};

	while (!cli_interrupted && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return !cli_interrupted;
}

static int run_textfile(struct mcg_ctx *ctx, const char *path, const struct export_args *a)
{
	struct ex_set set = {0};
	long done = 0;
	int dfd, r;

	r = mcg__trusted_dir(a->textfile, 0755, false, &dfd);
	if (r < 0) {
		char *e = mcg_escape_dup(a->textfile);

		cli_err("cannot write to '%s': %s", e ? e : "?", mcg_strerror(r));
		free(e);
		return EXIT_FAILURE;
	}
	cli_trap_signals();
	for (;;) {
		char *buf = NULL;
		size_t len = 0;

		r = scrape_walk(ctx, path, a, &set, &buf, &len);
		if (r == 0)
			r = mcg__write_atomic_at(dfd, TEXTFILE_NAME, buf, len, 0644);
		free(buf);
		if (r < 0) {
			char *e = mcg_escape_dup(a->textfile);

			cli_err("cannot write to '%s': %s", e ? e : "?", mcg_strerror(r));
			free(e);
			break;
		}
		done++;
		if (!a->interval_set || (a->count_set && done >= a->count))
			break;
		if (!sleep_ms(a->interval_ms))
			break;
	}
	set_free(&set);
	close(dfd);
	return r < 0 ? EXIT_FAILURE : EXIT_OK;
}

struct server {
	struct mcg_sampler *sampler;
	const struct export_args *a;
	struct ex_set set;
	unsigned long scrapes;
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, char *body, size_t len,
			     const char *type)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **req)
{
	struct server *s = cls;
	struct mcg_snapshot *snap;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)req;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, strdup("method not allowed\n"), 19,
			     "text/plain");
	if (!strcmp(url, "/")) {
		static const char page[] = "memcgctl export: see /metrics\n";

		return reply(c, MHD_HTTP_OK, strdup(page), sizeof(page) - 1, "text/plain");
	}
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, strdup("not found\n"), 10, "text/plain");
	r = mcg_sampler_sample(s->sampler, &snap);
	if (r == 0) {
		r = collect_snapshot(snap, s->a->depth, &s->set);
		mcg_snapshot_unref(snap);
	}
	if (r < 0) {
		char msg[160];
		int n = snprintf(msg, sizeof(msg), "cannot sample the memory cgroups: %s\n",
				 mcg_strerror(r));

		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, strdup(msg), (size_t)n,
			     "text/plain");
	}
	f = open_memstream(&buf, &len);
	if (!f)
		return MHD_NO;
	render(&s->set, s->a->fams, f);
	if (fclose(f) != 0) {
		free(buf);
		return MHD_NO;
	}
	s->scrapes++;
	return reply(c, MHD_HTTP_OK, buf, len, CONTENT_TYPE);
}

/* Bind ADDR:PORT ("127.0.0.1:9756", "[::1]:9756", ":9756"): the listening socket or -errno. */
static int listen_on(const char *spec, char *why, size_t whylen)
{
	struct addrinfo hints = {0}, *ai = NULL;
	char host[256];
	const char *colon = strrchr(spec, ':'), *h = spec;
	size_t hl;
	int fd, on = 1, r;

	if (!colon || !colon[1]) {
		snprintf(why, whylen, "expected ADDR:PORT");
		return -EINVAL;
	}
	hl = (size_t)(colon - spec);
	if (hl >= 2 && spec[0] == '[' && spec[hl - 1] == ']')
		h = spec + 1, hl -= 2;
	if (hl >= sizeof(host)) {
		snprintf(why, whylen, "address too long");
		return -EINVAL;
	}
	memcpy(host, h, hl);
	host[hl] = '\0';
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
	r = getaddrinfo(hl ? host : NULL, colon + 1, &hints, &ai);
	if (r != 0) {
		snprintf(why, whylen, "%s", gai_strerror(r));
		return -EINVAL;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 64) < 0) {
		r = -errno;
		close(fd);
		goto out;
	}
	r = fd;
out:
	if (r < 0)
		snprintf(why, whylen, "%s", strerror(-r));
	freeaddrinfo(ai);
	return r;
}

static int run_listen(struct mcg_ctx *ctx, const char *path, const struct export_args *a)
{
	struct server s = {.a = a};
	struct MHD_Daemon *d;
	char why[128];
	int fd, r;

	fd = listen_on(a->listen, why, sizeof(why));
	if (fd < 0) {
		char *e = mcg_escape_dup(a->listen);

		cli_err("cannot listen on '%s': %s", e ? e : "?", why);
		free(e);
		return fd == -EINVAL ? EXIT_USAGE : EXIT_FAILURE;
	}
	r = mcg_sampler_new(ctx, path, 0, &s.sampler);
	if (r < 0) {
		cli_err("cannot sample the memory cgroups: %s", mcg_strerror(r));
		close(fd);
		return EXIT_FAILURE;
	}
	/*
	 * One thread: requests are answered by MHD_run_wait() below, one at a time.
	 * epoll, not select(): the sampler holds thousands of descriptors, so an
	 * accepted connection is often past FD_SETSIZE.
	 */
	d = MHD_start_daemon(MHD_USE_ERROR_LOG | MHD_USE_EPOLL, 0, NULL, NULL, on_request, &s,
			     MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_TIMEOUT, 10u,
			     MHD_OPTION_CONNECTION_LIMIT, 64u, MHD_OPTION_END);
	if (!d) {
		cli_err("cannot serve HTTP on '%s'", a->listen);
		mcg_sampler_free(s.sampler);
		close(fd);
		return EXIT_FAILURE;
	}
	cli_trap_signals();
	while (!cli_interrupted)
		MHD_run_wait(d, 500);
	MHD_stop_daemon(d);
	close(fd);
	mcg_sampler_free(s.sampler);
	set_free(&s.set);
	return EXIT_OK;
}

static int export_run(struct cli *cli, int argc, char **argv)
{
	struct export_args a = {.depth = -1, .fams = (1u << FAM__COUNT) - 1};
	struct mcg_ctx *ctx;
	struct mcg_group *g;
	struct ex_set set = {0};
	char *path, *buf = NULL;
	size_t len = 0;
	int r, ret;

	r = cli_parse(&export_argp, argc, argv, &a);
	if (r)
		return r;
	ctx = cli_ctx(cli);
	if (!ctx)
		return EXIT_FAILURE;
	r = cli_open_group(cli, a.cgroup ? a.cgroup : "/", &g);
	if (r < 0)
		return cli_status(r);
	path = strdup(mcg_group_path(g));
	mcg_group_close(g);
	if (!path)
		return EXIT_FAILURE;
	if (a.listen)
		ret = run_listen(ctx, path, &a);
	else if (a.textfile)
		ret = run_textfile(ctx, path, &a);
	else {
		r = scrape_walk(ctx, path, &a, &set, &buf, &len);
		if (r < 0) {
			cli_err("cannot export the memory cgroups: %s", mcg_strerror(r));
			ret = EXIT_FAILURE;
		} else {
			ret = fwrite(buf, 1, len, stdout) == len && fflush(stdout) == 0
				      ? EXIT_OK
				      : EXIT_FAILURE;
		}
		free(buf);
		set_free(&set);
	}
	free(path);
	return ret;
}

const struct mcg_cmd cmd_export = {
	.name = "export",
	.summary = "Print the counters of every cgroup for Prometheus (stdout, textfile, HTTP)",
	.argp = &export_argp,
	.run = export_run,
};
