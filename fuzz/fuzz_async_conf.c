/*
 * fuzz_async_conf.c: the async-reclaim state files reclaimd trusts as root: an
 * enable file (mcg__async_conf_parse) and a stats file (mcg__async_stats_parse),
 * both parsers on every input. Whatever a parser accepts must be something
 * memcgctl writes (a clean non-root path, values in range), and the library's
 * own writer (mcg_async_enable, mcg_async_stats_write) must write it back as a
 * file the parser accepts and reads back the same.
 */
#include "fuzz.h"

#include "memcg/async.h"

static char statedir[4096];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_mkdir("async-reclaim", statedir, sizeof(statedir));
	if (mcg__async_mkdirs(statedir) < 0)
		abort();
	return 0;
}

/* Read FILE (under the state directory) whole into a malloc'd buffer. */
static char *slurp(const char *file, size_t *len)
{
	char path[8400], *buf = malloc(65536);
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", statedir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (!buf || fd < 0)
		fz_fail("cannot read back %s", path);
	n = read(fd, buf, 65536);
	close(fd);
	if (n < 0)
		fz_fail("cannot read back %s", path);
	*len = (size_t)n;
	return buf;
}

static void conf(const char *buf, size_t size)
{
	struct mcg_async_conf *c = malloc(sizeof(*c)), *c2 = malloc(sizeof(*c2));
	char name[300], *back;
	const char *why = NULL;
	size_t n;
	int r;

	if (!c || !c2)
		abort();
	r = mcg__async_conf_parse_why(buf, size, c, &why);
	if (!fz_parsed("mcg__async_conf_parse", r, why))
		goto out;
	FZ_CHECK(mcg__async_conf_parse(buf, size, c2) == 0, "conf: parse and parse_why disagree");
	FZ_CHECK(memchr(c->path, '\0', sizeof(c->path)) && fz_path_clean(c->path),
		 "conf: accepted the cgroup path '%.100s'", c->path);
	FZ_CHECK(memchr(c->root, '\0', sizeof(c->root)) && c->root[0] == '/',
		 "conf: accepted the root '%.100s'", c->root);
	FZ_CHECK(c->batch >= 1 && c->batch <= MCG_ASYNC_MAX_BATCH, "conf: batch %u", c->batch);
	FZ_CHECK(c->max_cpu >= 0.001 && c->max_cpu <= 100, "conf: max_cpu %g", c->max_cpu);
	FZ_CHECK(!(c->flags & ~0x1fu), "conf: flags %#x", c->flags);

	/* the writer writes it back; the parser reads the same conf */
	r = mcg_async_enable(statedir, c);
	FZ_CHECK(r == 0, "mcg_async_enable refused a conf the parser accepted: %d", r);
	mcg__cgroup_file_name(c->root, c->path, name, sizeof(name) - 5);
	strcat(name, ".conf");
	back = slurp(name, &n);
	r = mcg__async_conf_parse_why(back, n, c2, &why);
	FZ_CHECK(r == 0, "the conf written back is refused (%s):\n%.*s", why, (int)n, back);
	FZ_CHECK(!strcmp(c->path, c2->path) && !strcmp(c->root, c2->root) && c->dev == c2->dev &&
			 c->ino == c2->ino && c->high == c2->high && c->low == c2->low &&
			 c->flags == c2->flags && c->batch == c2->batch && c->max_cpu == c2->max_cpu,
		 "the conf written back parses differently:\n%.*s", (int)n, back);
	free(back);
	mcg_async_disable(statedir, c->root, c->path);
out:
	free(c2);
	free(c);
}

static void stats(const char *buf, size_t size)
{
	struct mcg_async_stats *s = malloc(sizeof(*s)), *s2 = malloc(sizeof(*s2));
	char name[300], *back;
	const char *why = NULL;
	size_t n;
	int r;

	if (!s || !s2)
		abort();
	r = mcg__async_stats_parse_why(buf, size, s, &why);
	if (!fz_parsed("mcg__async_stats_parse", r, why))
		goto out;
	FZ_CHECK(mcg__async_stats_parse(buf, size, s2) == 0, "stats: parse and parse_why disagree");
	FZ_CHECK(memchr(s->path, '\0', sizeof(s->path)) && fz_path_clean(s->path),
		 "stats: accepted the cgroup path '%.100s'", s->path);
	FZ_CHECK(memchr(s->event_source, '\0', sizeof(s->event_source)), "stats: event source");
	FZ_CHECK(mcg_async_state_name(s->state), "stats: state %d has no name", (int)s->state);

	r = mcg_async_stats_write(statedir, s);
	FZ_CHECK(r == 0, "mcg_async_stats_write refused stats the parser accepted: %d", r);
	mcg__cgroup_file_name(s->root, s->path, name + 6, sizeof(name) - 6);
	memcpy(name, "stats/", 6);
	back = slurp(name, &n);
	r = mcg__async_stats_parse_why(back, n, s2, &why);
	FZ_CHECK(r == 0, "the stats written back are refused (%s):\n%.*s", why, (int)n, back);
	FZ_CHECK(!strcmp(s->path, s2->path) && !strcmp(s->root, s2->root) &&
			 s->state == s2->state && s->reclaimed == s2->reclaimed &&
			 s->dev == s2->dev && s->ino == s2->ino &&
			 s->last_error == s2->last_error,
		 "the stats written back parse differently:\n%.*s", (int)n, back);
	free(back);
	{
		char path[8400];

		snprintf(path, sizeof(path), "%s/%s", statedir, name);
		unlink(path);
	}
out:
	free(s2);
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* exactly SIZE bytes, no terminating NUL: the parsers take a length */
	char *buf;

	if (size > 2 * MCG__ASYNC_FILE_MAX)
		return -1;
	buf = malloc(size ? size : 1);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	conf(buf, size);
	stats(buf, size);
	free(buf);
	return 0;
}
