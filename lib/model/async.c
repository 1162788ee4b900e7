/* async.c: async-reclaim's persistent state: watermarks, enable files, per-cgroup stats. */
#include "model/model.h"
#include <memcg/async-persist.h>

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIB (1024ULL * 1024)
#define CONF_MAGIC "memcgctl-async-reclaim 2"
#define STATS_MAGIC "memcgctl-async-stats 2"
#define TOTALS_MAGIC "memcgctl-reclaimd 1"
/* Watermarks and margins beyond 1 EiB are nobody's. */
#define MARK_MAX (1ULL << 60)
#define PID_MAX 4194304 /* the kernel's PID_MAX_LIMIT */

static uint64_t clamp_u64(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * The 2011 patch started reclaiming a little below the limit and stopped a
 * little lower. Scaled with the limit: wake limit/40 below it (4 MiB..1 GiB)
 * and reclaim to three times that below it. Measured side by side with
 * bench/async-reclaim (320 MiB limit, a writer dirtying its cache, 5 rounds):
 * margins of 8/24 MiB gave req/s x1.24 against the limit alone, 4/12 MiB
 * x1.20 and 32/64 MiB (limit/10, the earlier default) x1.13, all with p99.9
 * x0.07: the smaller the margins, the more of the limit stays usable as
 * cache, until the writer meets the limit between wake-ups. Small limits keep
 * the margins at most 1/8 and 1/4 of the limit.
 */
void mcg_async_default_margins(uint64_t limit, uint64_t *ret_high_margin, uint64_t *ret_low_margin)
{
	uint64_t ps = (uint64_t)mcg_page_size();
	uint64_t high = clamp_u64(limit / 40, 4 * MIB, 1024 * MIB), low;

	if (high > limit / 8)
		high = limit / 8;
	high = high / ps * ps;
	low = 3 * high;
	if (low > limit / 4) /* still at least twice high: high <= limit/8 */
		low = limit / 4 / ps * ps;
	*ret_high_margin = high;
	*ret_low_margin = low;
}

int mcg_async_watermarks(const struct mcg_async_conf *c, uint64_t limit, uint64_t *ret_high,
			 uint64_t *ret_low)
{
	uint64_t dh, dl, high, low;

	if (limit == MCG_MAX)
		return -EDOM;
	mcg_async_default_margins(limit, &dh, &dl);
	if (!(c->flags & MCG_ASYNC_HIGH_SET))
		high = limit - dh;
	else if (c->flags & MCG_ASYNC_HIGH_MARGIN)
		high = c->high >= limit ? 0 : limit - c->high;
	else
		high = c->high;
	if (!(c->flags & MCG_ASYNC_LOW_SET)) {
		/* keep the default gap below an explicit high */
		uint64_t gap = dl - dh;

		low = high > gap ? high - gap : 0;
	} else if (c->flags & MCG_ASYNC_LOW_MARGIN) {
		low = c->low >= limit ? 0 : limit - c->low;
	} else {
		low = c->low;
	}
	if (high == 0 || high >= limit || low == 0 || low >= high)
		return -ERANGE;
	*ret_high = high;
	*ret_low = low;
	return 0;
}

int mcg_async_statedir(const struct mcg_ctx *ctx, char *buf, size_t len)
{
	if ((size_t)snprintf(buf, len, "%s/async-reclaim", ctx->rundir) >= len)
		return -ENAMETOOLONG;
	return 0;
}

int mcg__async_mkdirs(const char *statedir)
{
	struct mcg_async_dir d;
	int r = mcg_async_dir_open(statedir, true, &d);

	if (r == 0)
		mcg_async_dir_close(&d);
	return r;
}

int mcg_async_dir_open(const char *statedir, bool create, struct mcg_async_dir *ret)
{
	struct mcg_async_dir d = {-1, -1};
	int r;

	/* mode 0755: status is for everyone; the files hold no secrets */
	r = mcg_trusted_dir(statedir, 0755, create, &d.fd);
	if (r < 0)
		return r;
	r = mcg__trusted_subdir(d.fd, "stats", 0755, create, &d.statsfd);
	if (r == -ENOENT && !create) {
		d.statsfd = -1; /* no stats yet */
		r = 0;
	}
	if (r < 0) {
		close(d.fd);
		return r;
	}
	*ret = d;
	return 0;
}

void mcg_async_dir_close(struct mcg_async_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	if (d->statsfd >= 0)
		close(d->statsfd);
	d->fd = d->statsfd = -1;
}

/* ---- fields: the same encoding as the journals -------------------------- */

/* A decimal number as printf writes it: no sign, no leading zero, no overflow. */
static bool dec_u64(const char *s, size_t n, uint64_t *ret)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0 || n > 20 || (n > 1 && s[0] == '0'))
		return false;
	for (i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*ret = v;
	return true;
}

/* "I.FFF..." with exactly FRAC digits after the point, as "%.Nf" writes it. */
static bool dec_fixed(const char *s, size_t n, unsigned frac, uint64_t *ret)
{
	uint64_t ip, fp, scale = 1;
	unsigned i;

	if (n < frac + 2 || s[n - frac - 1] != '.' || !dec_u64(s, n - frac - 1, &ip))
		return false;
	for (i = 0; i < frac; i++) {
		if (s[n - frac + i] < '0' || s[n - frac + i] > '9')
			return false;
		scale *= 10;
	}
	for (i = 0, fp = 0; i < frac; i++)
		fp = fp * 10 + (uint64_t)(s[n - frac + i] - '0');
	if (ip > UINT64_MAX / scale / 2)
		return false;
	*ret = ip * scale + fp;
	return true;
}

/* A signed decimal as printf's %d/%lld writes it, within [LO, HI]. */
static bool dec_i64(const char *s, size_t n, int64_t lo, int64_t hi, int64_t *ret)
{
	uint64_t v;
	bool neg = n > 0 && s[0] == '-';

	if (neg && (n == 1 || s[1] == '0'))
		return false;
	if (!dec_u64(s + neg, n - neg, &v) || v > (uint64_t)INT64_MAX)
		return false;
	if ((neg ? -(int64_t)v : (int64_t)v) < lo || (neg ? -(int64_t)v : (int64_t)v) > hi)
		return false;
	*ret = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

/*
 * Walk "KEY VALUE\n" lines after the magic line, each key of KEYS exactly
 * once; FIELD(key index, value, length, userdata) checks and stores one.
 */
static int parse_lines(const char *buf, size_t len, const char *magic, const char *const *keys,
		       size_t nkeys, const char *(*field)(size_t k, const char *v, size_t n, void *u),
		       void *u, const char **why)
{
	const char *p = buf, *end = buf + len, *nl;
	uint64_t seen = 0;
	size_t k, ml = strlen(magic);

	*why = "";
	if (len == 0)
		return *why = "empty file", -MCG_E_CORRUPT;
	if (len > MCG__ASYNC_FILE_MAX)
		return *why = "too large", -MCG_E_CORRUPT;
	if (memchr(buf, '\0', len))
		return *why = "binary data", -MCG_E_CORRUPT;
	if (buf[len - 1] != '\n')
		return *why = "truncated (no final newline)", -MCG_E_CORRUPT;
	nl = memchr(p, '\n', len);
	if ((size_t)(nl - p) != ml || memcmp(p, magic, ml)) {
		/* same name, other version: an older or newer memcgctl wrote it */
		const char *sp = memchr(magic, ' ', ml);
		size_t pre = (size_t)(sp - magic) + 1;

		if ((size_t)(nl - p) > pre && !memcmp(p, magic, pre))
			return *why = "a format version this memcgctl does not read", -MCG_E_CORRUPT;
		return *why = "not a memcgctl file (no magic line)", -MCG_E_CORRUPT;
	}
	for (p = nl + 1; p < end; p = nl + 1) {
		const char *sp, *bad;
		size_t n, kl;

		nl = memchr(p, '\n', (size_t)(end - p));
		n = (size_t)(nl - p);
		sp = memchr(p, ' ', n);
		if (!sp)
			return *why = "a line without a value", -MCG_E_CORRUPT;
		kl = (size_t)(sp - p);
		for (k = 0; k < nkeys; k++)
			if (strlen(keys[k]) == kl && !memcmp(p, keys[k], kl))
				break;
		if (k == nkeys)
			return *why = "an unknown line", -MCG_E_CORRUPT;
		if (seen & (1ULL << k))
			return *why = "a repeated line", -MCG_E_CORRUPT;
		seen |= 1ULL << k;
		bad = field(k, sp + 1, n - kl - 1, u);
		if (bad)
			return *why = bad, -MCG_E_CORRUPT;
	}
	if (seen != (nkeys == 64 ? ~0ULL : (1ULL << nkeys) - 1))
		return *why = "a line is missing", -MCG_E_CORRUPT;
	return 0;
}

/* parse_lines into a zeroed SIZE-byte scratch copy: *RET changes only if it all parses. */
static int parse_into(const char *buf, size_t len, const char *magic, const char *const *keys,
		      size_t nkeys, const char *(*field)(size_t k, const char *v, size_t n, void *u),
		      size_t size, void *ret, const char **why)
{
	void *tmp = calloc(1, size);
	int r;

	if (!tmp)
		return -ENOMEM;
	r = parse_lines(buf, len, magic, keys, nkeys, field, tmp, why);
	if (r == 0)
		memcpy(ret, tmp, size);
	free(tmp);
	return r;
}

static const char *root_field(const char *v, size_t n, char *buf, size_t len)
{
	if (!mcg__field_decode(v, n, buf, len) || !mcg__abs_path_ok(buf))
		return "a bad hierarchy root";
	return NULL;
}

static const char *path_field(const char *v, size_t n, char *buf, size_t len)
{
	if (!mcg__field_decode(v, n, buf, len) || !mcg__abs_path_ok(buf))
		return "a bad cgroup path";
	if (!strcmp(buf, "/"))
		return "names the root cgroup";
	return NULL;
}

/* ---- enable files -------------------------------------------------------- */

static const char *const conf_keys[] = {"root", "path", "dev",     "ino",   "high",
					"low",  "batch", "max_cpu", "clean"};

static const char *mark_field(const char *v, size_t n, uint64_t *ret, unsigned *flags, unsigned set,
			      unsigned margin)
{
	const char *sp = memchr(v, ' ', n);
	size_t nl = sp ? (size_t)(sp - v) : n;

	if (!dec_u64(v, nl, ret) || *ret > MARK_MAX)
		return "a watermark out of range";
	if (!sp) {
		*flags |= set;
		return NULL;
	}
	if (n - nl - 1 == 7 && !memcmp(sp + 1, "default", 7))
		return *ret == 0 ? NULL : "a default watermark with a value";
	if (n - nl - 1 == 6 && !memcmp(sp + 1, "margin", 6)) {
		*flags |= set | margin;
		return NULL;
	}
	return "a watermark that is not N, N margin or 0 default";
}

static const char *conf_field(size_t k, const char *v, size_t n, void *u)
{
	struct mcg_async_conf *c = u;
	uint64_t x;

	switch (k) {
	case 0:
		return root_field(v, n, c->root, sizeof(c->root));
	case 1:
		return path_field(v, n, c->path, sizeof(c->path));
	case 2:
		return dec_u64(v, n, &c->dev) ? NULL : "a bad device number";
	case 3:
		return dec_u64(v, n, &c->ino) && c->ino ? NULL : "a bad inode number";
	case 4:
		return mark_field(v, n, &c->high, &c->flags, MCG_ASYNC_HIGH_SET,
				  MCG_ASYNC_HIGH_MARGIN);
	case 5:
		return mark_field(v, n, &c->low, &c->flags, MCG_ASYNC_LOW_SET,
				  MCG_ASYNC_LOW_MARGIN);
	case 6:
		if (!dec_u64(v, n, &x) || x == 0 || x > MCG_ASYNC_MAX_BATCH)
			return "a batch out of range";
		c->batch = (unsigned)x;
		return NULL;
	case 7:
		if (!dec_fixed(v, n, 3, &x) || x == 0 || x > 100000)
			return "a CPU budget out of range";
		c->max_cpu = (double)x / 1000.0;
		return NULL;
	case 8:
		if (n != 1 || (v[0] != '0' && v[0] != '1'))
			return "clean is not 0 or 1";
		if (v[0] == '1')
			c->flags |= MCG_ASYNC_CLEAN;
		return NULL;
	}
	return "an unknown line";
}

int mcg__async_conf_parse_why(const char *buf, size_t len, struct mcg_async_conf *ret,
			      const char **why)
{
	return parse_into(buf, len, CONF_MAGIC, conf_keys, MCG_ARRAY_SIZE(conf_keys), conf_field,
			  sizeof(*ret), ret, why);
}

int mcg__async_conf_parse(const char *buf, size_t len, struct mcg_async_conf *ret)
{
	const char *why;

	return mcg__async_conf_parse_why(buf, len, ret, &why);
}

/* CPU budget in thousandths of a percent; 0 if it does not round to 1..100000. */
static unsigned max_cpu_milli(double v)
{
	if (!(v >= 0.0005 && v < 100.0005))
		return 0;
	return (unsigned)llround(v * 1000.0);
}

static int format_conf(const struct mcg_async_conf *c, char *buf, size_t len)
{
	char root[12400], path[12400];
	unsigned m = max_cpu_milli(c->max_cpu);
	int n;

	mcg__field_encode(c->root, root, sizeof(root));
	mcg__field_encode(c->path, path, sizeof(path));
	n = snprintf(buf, len,
		     "%s\nroot %s\npath %s\ndev %llu\nino %llu\nhigh %llu%s\nlow %llu%s\nbatch %u\n"
		     "max_cpu %u.%03u\nclean %d\n",
		     CONF_MAGIC, root, path, (unsigned long long)c->dev, (unsigned long long)c->ino,
		     (unsigned long long)(c->flags & MCG_ASYNC_HIGH_SET ? c->high : 0),
		     !(c->flags & MCG_ASYNC_HIGH_SET)     ? " default"
		     : (c->flags & MCG_ASYNC_HIGH_MARGIN) ? " margin"
							  : "",
		     (unsigned long long)(c->flags & MCG_ASYNC_LOW_SET ? c->low : 0),
		     !(c->flags & MCG_ASYNC_LOW_SET)     ? " default"
		     : (c->flags & MCG_ASYNC_LOW_MARGIN) ? " margin"
							 : "",
		     c->batch, m / 1000, m % 1000, !!(c->flags & MCG_ASYNC_CLEAN));
	if (n < 0 || (size_t)n >= len || (size_t)n > MCG__ASYNC_FILE_MAX)
		return -ENAMETOOLONG;
	return n;
}

static void conf_name(const char *root, const char *path, char *buf, size_t len)
{
	char esc[300];

	mcg__cgroup_file_name(root, path, esc, sizeof(esc));
	snprintf(buf, len, "%s.conf", esc);
}

int mcg_async_conf_init(struct mcg_async_conf *c, const struct mcg_group *g)
{
	struct stat st;

	if (fstat(mcg_group_dirfd(g), &st) < 0)
		return -errno;
	memset(c, 0, sizeof(*c));
	snprintf(c->path, sizeof(c->path), "%s", mcg_group_path(g));
	snprintf(c->root, sizeof(c->root), "%s", mcg_ctx_root(mcg_group_ctx(g)));
	c->dev = (uint64_t)st.st_dev;
	c->ino = (uint64_t)st.st_ino;
	c->batch = MCG_ASYNC_DEFAULT_BATCH;
	c->max_cpu = MCG_ASYNC_DEFAULT_MAX_CPU;
	return 0;
}

/* C as an enable file's text (malloc'd into *RET): its length, or -EINVAL. */
static int conf_text(const struct mcg_async_conf *c, char **ret)
{
	struct mcg_async_conf back;
	char *text;
	int n;

	if (!mcg__abs_path_ok(c->path) || !strcmp(c->path, "/") || !mcg__abs_path_ok(c->root) ||
	    c->batch == 0 || c->batch > MCG_ASYNC_MAX_BATCH || !max_cpu_milli(c->max_cpu) ||
	    c->ino == 0 || (c->flags & MCG_ASYNC_HIGH_SET && c->high > MARK_MAX) ||
	    (c->flags & MCG_ASYNC_LOW_SET && c->low > MARK_MAX))
		return -EINVAL;
	text = malloc(MCG__ASYNC_FILE_MAX + 1);
	if (!text)
		return -ENOMEM;
	n = format_conf(c, text, MCG__ASYNC_FILE_MAX + 1);
	/* what is written must read back: never leave a file reclaimd refuses */
	if (n < 0 || mcg__async_conf_parse(text, (size_t)n, &back) < 0) {
		free(text);
		return n < 0 ? n : -EINVAL;
	}
	*ret = text;
	return n;
}

int mcg_async_enable(const char *statedir, const struct mcg_async_conf *c)
{
	struct mcg_async_dir d;
	char name[320], *text;
	int r, n;

	n = conf_text(c, &text);
	if (n < 0)
		return n;
	r = mcg_async_dir_open(statedir, true, &d);
	if (r == 0) {
		conf_name(c->root, c->path, name, sizeof(name));
		r = mcg_write_atomic_at(d.fd, name, text, (size_t)n, 0644);
		mcg_async_dir_close(&d);
	}
	free(text);
	return r;
}

int mcg_async_disable(const char *statedir, const char *root, const char *path)
{
	struct mcg_async_dir d;
	char name[320];
	bool had_stats = false;
	int r;

	r = mcg_async_dir_open(statedir, false, &d);
	if (r < 0)
		return r;
	conf_name(root, path, name, sizeof(name));
	if (d.statsfd >= 0) {
		char esc[300];

		mcg__cgroup_file_name(root, path, esc, sizeof(esc));
		had_stats = unlinkat(d.statsfd, esc, 0) == 0;
	}
	r = unlinkat(d.fd, name, 0) < 0 ? (errno == ENOENT && had_stats ? 0 : -errno) : 0;
	mcg_async_dir_close(&d);
	return r;
}

/* Read NAME under DIRFD for a parser: the reason when it cannot be used. */
static int read_for_parse(int dirfd, const char *name, char **ret, size_t *ret_len,
			  const char **why)
{
	int r = mcg__read_at(dirfd, name, MCG__ASYNC_FILE_MAX, ret, ret_len);

	if (r == -MCG_E_UNTRUSTED)
		*why = "not a regular file owned by memcgctl's user (a link?)";
	else if (r == -EFBIG)
		*why = "too large";
	else if (r == -ELOOP)
		*why = "a symlink";
	else
		return r;
	return -MCG_E_CORRUPT;
}

/* The enable file NAME under D, checked against the cgroup it names. */
static int conf_load(int dirfd, const char *name, struct mcg_async_conf *ret, const char **why)
{
	char want[320], *buf;
	size_t len;
	int r;

	*why = "";
	r = read_for_parse(dirfd, name, &buf, &len, why);
	if (r < 0)
		return r;
	r = mcg__async_conf_parse_why(buf, len, ret, why);
	free(buf);
	if (r < 0)
		return r;
	conf_name(ret->root, ret->path, want, sizeof(want));
	if (strcmp(want, name)) {
		*why = "the file name does not match the cgroup it names";
		return -MCG_E_CORRUPT;
	}
	return 0;
}

int mcg_async_conf_read(const char *file, struct mcg_async_conf *ret)
{
	char dir[4200];
	const char *slash = strrchr(file, '/'), *why;
	int fd, r;

	if (!slash || !slash[1] || (size_t)(slash - file) >= sizeof(dir))
		return -EINVAL;
	memcpy(dir, file, (size_t)(slash - file));
	dir[slash - file] = '\0';
	r = mcg_trusted_dir(dir[0] ? dir : "/", 0755, false, &fd);
	if (r < 0)
		return r;
	r = conf_load(fd, slash + 1, ret, &why);
	close(fd);
	return r;
}

int mcg__async_conf_read_at(const struct mcg_async_dir *d, const char *root, const char *path,
			    struct mcg_async_conf *ret)
{
	char name[320];
	const char *why;

	conf_name(root, path, name, sizeof(name));
	return conf_load(d->fd, name, ret, &why);
}

int mcg_async_conf_unlink_same(const struct mcg_async_dir *d, const struct mcg_async_conf *c)
{
	struct mcg_async_conf now;
	char name[320];
	const char *why;
	int r;

	conf_name(c->root, c->path, name, sizeof(name));
	r = conf_load(d->fd, name, &now, &why);
	if (r == -ENOENT)
		return 0;
	if (r == 0 && (now.dev != c->dev || now.ino != c->ino))
		return -EEXIST;
	/*
	 * The same cgroup (or a corrupt file, which is never served): remove it.
	 * Re-read and unlink cannot be one step; an enable landing between them
	 * (microseconds) is lost, and says so by 'status' listing it disabled.
	 */
	if (unlinkat(d->fd, name, 0) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

struct load_ctx {
	const char *prefix;
	bool (*accept)(const char *name);
	int (*load)(int dirfd, const char *name, void *elem, const char **why);
	mcg_async_bad_fn bad;
	void *userdata;
};

static int take_file(int dirfd, const struct dirent *de, void *elem, void *ud)
{
	const struct load_ctx *c = ud;
	const char *why = "";
	int r;

	if (!c->accept(de->d_name))
		return 0;
	r = c->load(dirfd, de->d_name, elem, &why);
	if (r == -MCG_E_CORRUPT && c->bad) {
		char file[600];

		snprintf(file, sizeof(file), "%s%s", c->prefix, de->d_name);
		c->bad(file, why, c->userdata);
	}
	return r == 0;
}

/*
 * Every file of DIRFD that ACCEPT takes, loaded by LOAD into an array of
 * SIZE-byte elements, sorted with CMP; BAD hears of each file LOAD refuses
 * as corrupt. free() the array.
 */
static int load_dir(int dirfd, const char *prefix, size_t size, bool (*accept)(const char *name),
		    int (*load)(int dirfd, const char *name, void *elem, const char **why),
		    int (*cmp)(const void *, const void *), void **ret, size_t *ret_n,
		    mcg_async_bad_fn bad, void *userdata)
{
	struct load_ctx c = {prefix, accept, load, bad, userdata};
	int r;

	*ret = NULL;
	*ret_n = 0;
	if (dirfd < 0)
		return 0;
	r = mcg__dir_load(dirfd, size, take_file, NULL, &c, ret, ret_n);
	if (r < 0)
		return r;
	if (*ret_n)
		qsort(*ret, *ret_n, size, cmp);
	return 0;
}

static int cmp_conf(const void *a, const void *b)
{
	const struct mcg_async_conf *x = a, *y = b;
	int r = strcmp(x->root, y->root);

	return r ? r : strcmp(x->path, y->path);
}

static bool is_conf(const char *name)
{
	size_t len = strlen(name);

	return len >= 6 && !strcmp(name + len - 5, ".conf");
}

static int load_conf(int dirfd, const char *name, void *elem, const char **why)
{
	return conf_load(dirfd, name, elem, why);
}

/* ---- the configuration kept under /etc (memcg/async-persist.h) ---- */

int mcg_async_persist(const char *dir, const struct mcg_async_conf *c)
{
	char name[320], *text;
	int fd, r, n;

	n = conf_text(c, &text);
	if (n < 0)
		return n;
	r = mcg_trusted_dir(dir ? dir : MCG_ASYNC_PERSIST_DIR, 0755, true, &fd);
	if (r == 0) {
		conf_name(c->root, c->path, name, sizeof(name));
		r = mcg_write_atomic_at(fd, name, text, (size_t)n, 0644);
		close(fd);
	}
	free(text);
	return r;
}

int mcg_async_unpersist(const char *dir, const char *root, const char *path)
{
	char name[320];
	int fd, r;

	r = mcg_trusted_dir(dir ? dir : MCG_ASYNC_PERSIST_DIR, 0755, false, &fd);
	if (r < 0)
		return r;
	conf_name(root, path, name, sizeof(name));
	r = unlinkat(fd, name, 0) < 0 ? -errno : 0;
	close(fd);
	return r;
}

/*
 * Every cgroup kept under PFD that exists now and has no enable file in D
 * naming it (its identity: st_dev, st_ino) is enabled in D with its current
 * identity. The cgroup is looked up from its root's descriptor, never through
 * a link. The number enabled, or -errno.
 */
static int reapply_at(int pfd, const struct mcg_async_dir *d, unsigned *ret_waiting)
{
	struct mcg_async_conf *confs;
	unsigned waiting = 0;
	size_t n, i;
	int r, done = 0;

	r = load_dir(pfd, "", sizeof(*confs), is_conf, load_conf, cmp_conf, (void **)&confs, &n,
		     NULL, NULL);
	if (r < 0)
		return r;
	for (i = 0; i < n; i++) {
		struct mcg_async_conf *c = &confs[i], cur;
		char name[320], *text;
		struct stat st;
		int rootfd, len;

		rootfd = open(c->root, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		r = rootfd < 0 ? -1 : fstatat(rootfd, c->path + 1, &st, AT_SYMLINK_NOFOLLOW);
		if (rootfd >= 0)
			close(rootfd);
		if (r < 0 || !S_ISDIR(st.st_mode)) {
			waiting++; /* not there (yet): the next listing looks again */
			continue;
		}
		if (!d)
			continue; /* only counting */
		if (mcg__async_conf_read_at(d, c->root, c->path, &cur) == 0 &&
		    cur.dev == (uint64_t)st.st_dev && cur.ino == (uint64_t)st.st_ino)
			continue; /* served as it is */
		c->dev = (uint64_t)st.st_dev;
		c->ino = (uint64_t)st.st_ino;
		len = conf_text(c, &text);
		if (len < 0)
			continue;
		conf_name(c->root, c->path, name, sizeof(name));
		if (mcg_write_atomic_at(d->fd, name, text, (size_t)len, 0644) == 0)
			done++;
		free(text);
	}
	free(confs);
	if (ret_waiting)
		*ret_waiting = waiting;
	return done;
}

int mcg_async_reapply(const char *dir, const char *statedir)
{
	struct mcg_async_dir d;
	int pfd, r;

	r = mcg_trusted_dir(dir ? dir : MCG_ASYNC_PERSIST_DIR, 0755, false, &pfd);
	if (r < 0)
		return r;
	r = mcg_async_dir_open(statedir, true, &d);
	if (r == 0) {
		r = reapply_at(pfd, &d, NULL);
		mcg_async_dir_close(&d);
	}
	close(pfd);
	return r;
}

int mcg_async_kept_waiting(const char *dir)
{
	unsigned waiting = 0;
	int pfd, r;

	r = mcg_trusted_dir(dir ? dir : MCG_ASYNC_PERSIST_DIR, 0755, false, &pfd);
	if (r < 0)
		return r == -ENOENT ? 0 : r;
	r = reapply_at(pfd, NULL, &waiting);
	close(pfd);
	return r < 0 ? r : (int)waiting;
}

/* Is D the default state directory (the one the kept configuration is for)? */
static bool is_default_statedir(const struct mcg_async_dir *d)
{
	struct stat a, b;

	return fstat(d->fd, &a) == 0 && stat(MCG_ASYNC_DEFAULT_STATEDIR, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int mcg_async_list_at(const struct mcg_async_dir *d, struct mcg_async_conf **ret, size_t *ret_n,
		       mcg_async_bad_fn bad, void *userdata)
{
	int pfd;

	/*
	 * The administrator's configuration first: each listing (the daemon's
	 * rescans) brings in the kept cgroups that exist now, after a reboot or
	 * made again (a restarted unit). A missing or untrusted /etc directory
	 * changes nothing here ('async-reclaim enable' reports an untrusted one).
	 */
	if (is_default_statedir(d) &&
	    mcg_trusted_dir(MCG_ASYNC_PERSIST_DIR, 0755, false, &pfd) == 0) {
		reapply_at(pfd, d, NULL);
		close(pfd);
	}
	return load_dir(d->fd, "", sizeof(**ret), is_conf, load_conf, cmp_conf, (void **)ret, ret_n,
			bad, userdata);
}

/* ---- stats files --------------------------------------------------------- */

static const char *const state_names[] = {
	[MCG_ASYNC_WAITING] = "waiting",     [MCG_ASYNC_RECLAIMING] = "reclaiming",
	[MCG_ASYNC_THROTTLED] = "throttled", [MCG_ASYNC_THRASHING] = "thrashing",
	[MCG_ASYNC_GONE] = "gone",           [MCG_ASYNC_NOLIMIT] = "no-limit",
	[MCG_ASYNC_ERROR] = "error",         [MCG_ASYNC_CLEAN_SKIP] = "clean",
	[MCG_ASYNC_WRITEBACK] = "writeback",
};

const char *mcg_async_state_name(enum mcg_async_state s)
{
	if ((unsigned)s >= MCG_ARRAY_SIZE(state_names))
		return "unknown";
	return state_names[s];
}

/* What reclaimd writes as event_source. */
static const char *const sources[] = {"none",         "eventfd",           "timer",
				      "psi+timer",    "events+timer",      "psi+events+timer"};

enum {
	S_ROOT, S_PATH, S_DEV, S_INO, S_STATE, S_PID, S_LIMIT, S_HIGH, S_LOW, S_USAGE,
	S_RECLAIMED, S_WAKEUPS, S_STEPS, S_SHORT, S_CPU, S_DEFERRED, S_REFAULTED, S_THRASH,
	S_RATIO, S_CLEAN, S_CONFLICTS, S_ERR, S_ERR_TIME, S_ENABLED, S_UPDATED, S_SOURCE,
};
static const char *const stats_keys[] = {
	[S_ROOT] = "root",		[S_PATH] = "path",
	[S_DEV] = "dev",		[S_INO] = "ino",
	[S_STATE] = "state",		[S_PID] = "pid",
	[S_LIMIT] = "limit",		[S_HIGH] = "high",
	[S_LOW] = "low",		[S_USAGE] = "usage",
	[S_RECLAIMED] = "reclaimed",	[S_WAKEUPS] = "wakeups",
	[S_STEPS] = "steps",		[S_SHORT] = "short_steps",
	[S_CPU] = "cpu_ns",		[S_DEFERRED] = "deferred",
	[S_REFAULTED] = "refaulted",	[S_THRASH] = "thrash_episodes",
	[S_RATIO] = "refault_ratio",	[S_CLEAN] = "clean_skips",
	[S_CONFLICTS] = "conflicts",	[S_ERR] = "last_error",
	[S_ERR_TIME] = "last_error_time", [S_ENABLED] = "enabled_time",
	[S_UPDATED] = "updated",	[S_SOURCE] = "event_source",
};

static uint64_t *stats_u64(struct mcg_async_stats *s, size_t k)
{
	switch (k) {
	case S_DEV: return &s->dev;
	case S_INO: return &s->ino;
	case S_LIMIT: return &s->limit;
	case S_HIGH: return &s->high;
	case S_LOW: return &s->low;
	case S_USAGE: return &s->usage;
	case S_RECLAIMED: return &s->reclaimed;
	case S_WAKEUPS: return &s->wakeups;
	case S_STEPS: return &s->steps;
	case S_SHORT: return &s->short_steps;
	case S_CPU: return &s->cpu_ns;
	case S_DEFERRED: return &s->deferred;
	case S_REFAULTED: return &s->refaulted;
	case S_THRASH: return &s->thrash_episodes;
	case S_CLEAN: return &s->clean_skips;
	case S_CONFLICTS: return &s->conflicts;
	}
	return NULL;
}

static int64_t *stats_time(struct mcg_async_stats *s, size_t k)
{
	switch (k) {
	case S_ERR_TIME: return &s->last_error_time;
	case S_ENABLED: return &s->enabled_time;
	case S_UPDATED: return &s->updated;
	}
	return NULL;
}

static const char *stats_field(size_t k, const char *v, size_t n, void *u)
{
	struct mcg_async_stats *s = u;
	uint64_t x, *p;
	int64_t t, *tp;
	size_t i;

	if ((p = stats_u64(s, k)))
		return dec_u64(v, n, p) && (k != S_INO || *p) ? NULL : "a bad number";
	if ((tp = stats_time(s, k)))
		return dec_i64(v, n, 0, INT64_MAX, tp) ? NULL : "a bad time";
	switch (k) {
	case S_ROOT:
		return root_field(v, n, s->root, sizeof(s->root));
	case S_PATH:
		return path_field(v, n, s->path, sizeof(s->path));
	case S_STATE:
		for (i = 0; i < MCG_ARRAY_SIZE(state_names); i++)
			if (strlen(state_names[i]) == n && !memcmp(v, state_names[i], n)) {
				s->state = (enum mcg_async_state)i;
				return NULL;
			}
		return "an unknown state";
	case S_PID:
		if (!dec_u64(v, n, &x) || x == 0 || x > PID_MAX)
			return "a bad pid";
		s->pid = (pid_t)x;
		return NULL;
	case S_RATIO:
		/* refaults / reclaimed: at most a million, in ten-thousandths */
		if (!dec_fixed(v, n, 4, &x) || x > 1000000ULL * 10000)
			return "a bad refault ratio";
		s->refault_ratio = (double)x / 10000.0;
		return NULL;
	case S_ERR:
		/* 0 or a negative errno / -MCG_E_* */
		if (!dec_i64(v, n, -(int64_t)MCG_E__END, 0, &t))
			return "a bad error number";
		s->last_error = (int)t;
		return NULL;
	case S_SOURCE:
		for (i = 0; i < MCG_ARRAY_SIZE(sources); i++)
			if (strlen(sources[i]) == n && !memcmp(v, sources[i], n)) {
				snprintf(s->event_source, sizeof(s->event_source), "%s",
					 i ? sources[i] : "");
				return NULL;
			}
		return "an unknown event source";
	}
	return "an unknown line";
}

int mcg__async_stats_parse_why(const char *buf, size_t len, struct mcg_async_stats *ret,
			       const char **why)
{
	return parse_into(buf, len, STATS_MAGIC, stats_keys, MCG_ARRAY_SIZE(stats_keys), stats_field,
			  sizeof(*ret), ret, why);
}

int mcg__async_stats_parse(const char *buf, size_t len, struct mcg_async_stats *ret)
{
	const char *why;

	return mcg__async_stats_parse_why(buf, len, ret, &why);
}

static const char *source_name(const char *s)
{
	size_t i;

	for (i = 1; i < MCG_ARRAY_SIZE(sources); i++)
		if (!strcmp(s, sources[i]))
			return sources[i];
	return "none";
}

int mcg_async_stats_write_at(const struct mcg_async_dir *d, const struct mcg_async_stats *s)
{
	char root[12400], path[12400], name[300], *text;
	int n, r;
	double ratio = s->refault_ratio;

	if (d->statsfd < 0)
		return -ENOENT;
	if (!mcg__abs_path_ok(s->path) || !strcmp(s->path, "/") || !mcg__abs_path_ok(s->root) || !s->ino ||
	    s->pid <= 0 || s->last_error > 0 || s->last_error < -(int)MCG_E__END)
		return -EINVAL;
	if (!(ratio >= 0))
		ratio = 0;
	if (ratio > 1000000)
		ratio = 1000000;
	text = malloc(MCG__ASYNC_FILE_MAX + 1);
	if (!text)
		return -ENOMEM;
	mcg__field_encode(s->root, root, sizeof(root));
	mcg__field_encode(s->path, path, sizeof(path));
	n = snprintf(text, MCG__ASYNC_FILE_MAX + 1,
		     "%s\nroot %s\npath %s\ndev %llu\nino %llu\nstate %s\npid %d\nlimit %llu\n"
		     "high %llu\nlow %llu\nusage %llu\nreclaimed %llu\nwakeups %llu\nsteps %llu\n"
		     "short_steps %llu\ncpu_ns %llu\ndeferred %llu\nrefaulted %llu\n"
		     "thrash_episodes %llu\nrefault_ratio %.4f\nclean_skips %llu\nconflicts %llu\n"
		     "last_error %d\nlast_error_time %lld\nenabled_time %lld\nupdated %lld\n"
		     "event_source %s\n",
		     STATS_MAGIC, root, path, (unsigned long long)s->dev, (unsigned long long)s->ino,
		     mcg_async_state_name(s->state), (int)s->pid, (unsigned long long)s->limit,
		     (unsigned long long)s->high, (unsigned long long)s->low,
		     (unsigned long long)s->usage, (unsigned long long)s->reclaimed,
		     (unsigned long long)s->wakeups, (unsigned long long)s->steps,
		     (unsigned long long)s->short_steps, (unsigned long long)s->cpu_ns,
		     (unsigned long long)s->deferred, (unsigned long long)s->refaulted,
		     (unsigned long long)s->thrash_episodes, ratio,
		     (unsigned long long)s->clean_skips, (unsigned long long)s->conflicts,
		     s->last_error, (long long)(s->last_error_time > 0 ? s->last_error_time : 0),
		     (long long)(s->enabled_time > 0 ? s->enabled_time : 0),
		     (long long)(s->updated > 0 ? s->updated : 0), source_name(s->event_source));
	if (n < 0 || n > MCG__ASYNC_FILE_MAX) {
		free(text);
		return -ENAMETOOLONG;
	}
	mcg__cgroup_file_name(s->root, s->path, name, sizeof(name));
	r = mcg_write_atomic_at(d->statsfd, name, text, (size_t)n, 0644);
	free(text);
	return r;
}

int mcg_async_stats_write(const char *statedir, const struct mcg_async_stats *s)
{
	struct mcg_async_dir d;
	int r = mcg_async_dir_open(statedir, true, &d);

	if (r < 0)
		return r;
	r = mcg_async_stats_write_at(&d, s);
	mcg_async_dir_close(&d);
	return r;
}

static int stats_load(int dirfd, const char *name, struct mcg_async_stats *ret, const char **why)
{
	char want[300], *buf;
	size_t len;
	int r;

	*why = "";
	r = read_for_parse(dirfd, name, &buf, &len, why);
	if (r < 0)
		return r;
	r = mcg__async_stats_parse_why(buf, len, ret, why);
	free(buf);
	if (r < 0)
		return r;
	mcg__cgroup_file_name(ret->root, ret->path, want, sizeof(want));
	if (strcmp(want, name)) {
		*why = "the file name does not match the cgroup it names";
		return -MCG_E_CORRUPT;
	}
	return 0;
}

int mcg_async_stats_read_at(const struct mcg_async_dir *d, const char *root, const char *path,
			     struct mcg_async_stats *ret)
{
	char name[300];
	const char *why;

	if (d->statsfd < 0)
		return -ENOENT;
	mcg__cgroup_file_name(root, path, name, sizeof(name));
	return stats_load(d->statsfd, name, ret, &why);
}

int mcg_async_stats_read(const char *statedir, const char *root, const char *path,
			 struct mcg_async_stats *ret)
{
	struct mcg_async_dir d;
	int r = mcg_async_dir_open(statedir, false, &d);

	if (r < 0)
		return r;
	r = mcg_async_stats_read_at(&d, root, path, ret);
	mcg_async_dir_close(&d);
	return r;
}

static int cmp_stats(const void *a, const void *b)
{
	const struct mcg_async_stats *x = a, *y = b;
	int r = strcmp(x->root, y->root);

	return r ? r : strcmp(x->path, y->path);
}

/* Everything in stats/ is a cgroup's stats but the daemon's totals and temporary files. */
static bool is_stats(const char *name)
{
	size_t len = strlen(name);

	return strcmp(name, ".") && strcmp(name, "..") && strcmp(name, "reclaimd") &&
	       !(len > 4 && !strcmp(name + len - 4, ".tmp"));
}

static int load_stats(int dirfd, const char *name, void *elem, const char **why)
{
	return stats_load(dirfd, name, elem, why);
}

static int stats_list_at(const struct mcg_async_dir *d, struct mcg_async_stats **ret,
			 size_t *ret_n, mcg_async_bad_fn bad, void *userdata)
{
	return load_dir(d->statsfd, "stats/", sizeof(**ret), is_stats, load_stats, cmp_stats,
			(void **)ret, ret_n, bad, userdata);
}

/* The enable files (STATS false) or the statistics files of STATEDIR; none when it does not exist. */
static int list_statedir(const char *statedir, bool stats, void **ret, size_t *ret_n)
{
	struct mcg_async_dir d;
	int r = mcg_async_dir_open(statedir, false, &d);

	if (r == -ENOENT) {
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	if (r < 0)
		return r;
	r = stats ? stats_list_at(&d, (struct mcg_async_stats **)ret, ret_n, NULL, NULL)
		  : mcg_async_list_at(&d, (struct mcg_async_conf **)ret, ret_n, NULL, NULL);
	mcg_async_dir_close(&d);
	return r;
}

int mcg_async_list(const char *statedir, struct mcg_async_conf **ret, size_t *ret_n)
{
	return list_statedir(statedir, false, (void **)ret, ret_n);
}

int mcg_async_stats_list(const char *statedir, struct mcg_async_stats **ret, size_t *ret_n)
{
	return list_statedir(statedir, true, (void **)ret, ret_n);
}

/* ---- corrupt files -------------------------------------------------------- */

struct bad_list {
	struct mcg_async_corrupt *v;
	size_t n, cap;
	int err;
};

static void copy_cut(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void add_bad(const char *file, const char *why, void *userdata)
{
	struct bad_list *b = userdata;

	if (b->n == b->cap) {
		struct mcg_async_corrupt *nv;

		b->cap = b->cap ? 2 * b->cap : 4;
		nv = realloc(b->v, b->cap * sizeof(*nv));
		if (!nv) {
			b->err = -ENOMEM;
			return;
		}
		b->v = nv;
	}
	/* both cut to fit: a name past the field is reported by its start */
	copy_cut(b->v[b->n].file, sizeof(b->v[b->n].file), file);
	copy_cut(b->v[b->n].why, sizeof(b->v[b->n].why), why);
	b->n++;
}

static int cmp_bad(const void *a, const void *b)
{
	return strcmp(((const struct mcg_async_corrupt *)a)->file,
		      ((const struct mcg_async_corrupt *)b)->file);
}

int mcg_async_corrupt_list(const char *statedir, struct mcg_async_corrupt **ret, size_t *ret_n)
{
	struct bad_list b = {0};
	struct mcg_async_conf *c = NULL;
	struct mcg_async_stats *s = NULL;
	struct mcg_async_dir d;
	size_t n;
	int r = mcg_async_dir_open(statedir, false, &d);

	*ret = NULL;
	*ret_n = 0;
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = mcg_async_list_at(&d, &c, &n, add_bad, &b);
	if (r == 0)
		r = stats_list_at(&d, &s, &n, add_bad, &b);
	mcg_async_dir_close(&d);
	free(c);
	free(s);
	if (r == 0)
		r = b.err;
	if (r < 0) {
		free(b.v);
		return r;
	}
	if (b.n)
		qsort(b.v, b.n, sizeof(*b.v), cmp_bad);
	*ret = b.v;
	*ret_n = b.n;
	return 0;
}

int mcg_async_log_open(const char *statedir)
{
	struct mcg_async_dir d;
	int r = mcg_async_dir_open(statedir, true, &d);

	if (r < 0)
		return r;
	r = mcg_openat_file(d.fd, "reclaimd.log", O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (r == -MCG_E_UNTRUSTED) {
		/* a link or another user's file where the log goes: never written through */
		if (unlinkat(d.fd, "reclaimd.log", 0) == 0)
			r = mcg_openat_file(d.fd, "reclaimd.log",
					     O_WRONLY | O_CREAT | O_EXCL | O_APPEND, 0644);
	}
	mcg_async_dir_close(&d);
	return r;
}

/* ---- the daemon's pid file and totals ------------------------------------- */

static const char *const totals_keys[] = {"pid", "started", "cpu_ns", "wakeups", "max_cpu"};

static const char *totals_field(size_t k, const char *v, size_t n, void *u)
{
	struct mcg_reclaimd_info *t = u;
	uint64_t x;
	int64_t s;

	switch (k) {
	case 0:
		if (!dec_u64(v, n, &x) || x == 0 || x > PID_MAX)
			return "a bad pid";
		t->pid = (pid_t)x;
		return NULL;
	case 1:
		if (!dec_i64(v, n, 0, INT64_MAX, &s))
			return "a bad time";
		t->started = s;
		return NULL;
	case 2:
		return dec_u64(v, n, &t->cpu_ns) ? NULL : "a bad number";
	case 3:
		return dec_u64(v, n, &t->wakeups) ? NULL : "a bad number";
	case 4:
		if (!dec_fixed(v, n, 3, &x) || x > 100000)
			return "a CPU budget out of range";
		t->max_cpu = (double)x / 1000.0;
		return NULL;
	}
	return "an unknown line";
}

int mcg_reclaimd_totals_write(const struct mcg_async_dir *d, const struct mcg_reclaimd_info *i)
{
	char text[256];
	unsigned m = max_cpu_milli(i->max_cpu);
	int n;

	if (d->statsfd < 0)
		return -ENOENT;
	n = snprintf(text, sizeof(text),
		     "%s\npid %d\nstarted %lld\ncpu_ns %llu\nwakeups %llu\nmax_cpu %u.%03u\n",
		     TOTALS_MAGIC, (int)i->pid, (long long)(i->started > 0 ? i->started : 0),
		     (unsigned long long)i->cpu_ns, (unsigned long long)i->wakeups, m / 1000,
		     m % 1000);
	return mcg_write_atomic_at(d->statsfd, "reclaimd", text, (size_t)n, 0644);
}

int mcg_reclaimd_info(const char *statedir, struct mcg_reclaimd_info *ret)
{
	struct mcg_reclaimd_info info = {0};
	struct mcg_async_dir d;
	char buf[32];
	ssize_t n;
	int fd, r;

	r = mcg_async_dir_open(statedir, false, &d);
	if (r == -ENOENT) {
		*ret = info;
		return 0;
	}
	if (r < 0)
		return r;
	fd = mcg_openat_file(d.fd, "reclaimd.pid", O_RDONLY, 0);
	if (fd < 0) {
		mcg_async_dir_close(&d);
		/* a link is no daemon's pid file (a daemon replaces it) */
		if (fd != -ENOENT && fd != -MCG_E_UNTRUSTED)
			return fd;
		*ret = info;
		return 0;
	}
	/* The daemon holds an exclusive flock on its pid file while it runs. */
	if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
		close(fd);
		mcg_async_dir_close(&d);
		*ret = info;
		return 0;
	}
	/* the pid file is the authority; the totals count only if the same daemon wrote them */
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	info.pid = -1;
	if (n > 0) {
		long p;

		buf[n] = '\0';
		p = strtol(buf, NULL, 10);
		/* a new daemon may not have replaced its dead predecessor's pid yet */
		if (p > 0 && p <= PID_MAX && !(kill((pid_t)p, 0) < 0 && errno == ESRCH))
			info.pid = (pid_t)p;
	}
	if (d.statsfd >= 0) {
		struct mcg_reclaimd_info t = {0};
		const char *why;
		char *text;
		size_t len;

		if (mcg__read_at(d.statsfd, "reclaimd", 1024, &text, &len) == 0) {
			if (parse_lines(text, len, TOTALS_MAGIC, totals_keys,
					MCG_ARRAY_SIZE(totals_keys), totals_field, &t, &why) == 0 &&
			    t.pid == info.pid)
				info = t;
			free(text);
		}
	}
	mcg_async_dir_close(&d);
	*ret = info;
	return 0;
}
