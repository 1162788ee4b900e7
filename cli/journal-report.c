/* journal-report.c: the messages of recovery and of a concurrent change, shared by set-limit, empty and recover. */
#include "journal-report.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *cli_limit_value(uint64_t v, char *buf, size_t len)
{
	char h[32];

	if (v == MCG_MAX)
		snprintf(buf, len, "max");
	else
		snprintf(buf, len, "%llu (%s)", (unsigned long long)v, mcg_size_format(v, h, sizeof(h)));
	return buf;
}

void cli_report_conflict_from(const char *what, const char *path, const char *knob,
			      uint64_t found, uint64_t expected, bool written)
{
	char f[64], e[64], *p = mcg_escape_dup(path);

	cli_err("%s '%s' stopped: another writer changed %s while memcgctl held it (found %s, "
		"expected %s, the value memcgctl %s); kept their value",
		what, p ? p : "?", knob, cli_limit_value(found, f, sizeof(f)),
		cli_limit_value(expected, e, sizeof(e)),
		written ? "had written" : "found before it started");
	free(p);
}

void cli_report_conflict(const char *what, const char *path, const char *knob, uint64_t found,
			 uint64_t expected)
{
	cli_report_conflict_from(what, path, knob, found, expected, true);
}

bool cli_limit_conflict_written(const struct mcg_limit_result *res)
{
	const struct mcg_limit_plan *pl = &res->plan;
	size_t i;

	/*
	 * The knob's value when planned is the one found before the start: a
	 * conflict that expected it means memcgctl had not (yet, or any more)
	 * a value of its own there (set-property changed memory.max while
	 * set-limit was still lowering memory.high).
	 */
	for (i = 0; i < pl->n; i++)
		if (!strcmp(pl->w[i].knob, res->fail.knob))
			return pl->w[i].before != res->fail.expected;
	return true;
}

/* A line for the record: stdout for recover, a warning for the automatic recovery. */
static void note(bool automatic, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(bool automatic, const char *fmt, ...)
{
	char buf[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (automatic)
		cli_warn("%s", buf);
	else
		printf("%s\n", buf);
}

int cli_report_recovery(const struct mcg_recovery *r, bool dry_run, bool automatic)
{
	char *path = mcg_escape_dup(r->path), *j = mcg_escape_dup(r->journal),
	     *to = mcg_escape_dup(r->moved_to), f[64], e[64];
	const char *p = path ? path : "?";
	int status = 0;

	switch (r->error) {
	case 0:
		if (dry_run)
			printf("%s: would restore %d value(s) saved by '%s' (pid %d)\n", p,
			       r->restored, r->op, (int)r->pid);
		else if (automatic)
			cli_warn("'%s' had a journal left by an interrupted '%s' (pid %d): restored "
				 "%d saved value(s) first",
				 p, r->op, (int)r->pid, r->restored);
		else
			printf("%s: restored %d value(s) saved by '%s' (pid %d)\n", p, r->restored,
			       r->op, (int)r->pid);
		break;
	case -ESTALE:
		note(automatic, "%s: %s the journal of '%s' (pid %d) from an earlier boot; its values "
				"did not survive the reboot",
		     p, dry_run ? "would drop" : "dropped", r->op, (int)r->pid);
		break;
	case -ENOENT:
		note(automatic, "%s: the cgroup is gone; %s the journal of '%s' (pid %d)", p,
		     dry_run ? "would drop" : "dropped", r->op, (int)r->pid);
		break;
	case -EIDRM:
		note(automatic, "%s: the cgroup was removed and made again since '%s' (pid %d) "
				"changed it; %s its journal without restoring anything onto the new "
				"cgroup",
		     p, r->op, (int)r->pid, dry_run ? "would drop" : "dropped");
		break;
	case -MCG_E_LOCKED:
		/* not stale: its owner is alive and holds the lock; it restores or commits it */
		note(automatic, "%s: the journal of '%s' is in use: pid %d holds the cgroup's lock "
				"(left to it; recover acts once it is gone)",
		     p, r->op[0] ? r->op : "?", (int)r->pid);
		break;
	case -MCG_E_CORRUPT:
		if (dry_run)
			cli_err("corrupt journal '%s': %s (a real run moves it aside)", j ? j : "?",
				r->reason);
		else
			cli_err("corrupt journal '%s': %s; moved it aside to '%s' (nothing restored)",
				j ? j : "?", r->reason, to ? to : "?");
		status = EXIT_FAILURE;
		break;
	case -MCG_E_CONFLICT:
		if (r->writer.seen && r->writer.overwritten) {
			char w[1024];

			cli_err("'%s': while restoring from the journal of '%s' (pid %d): %s (%d "
				"value(s) restored, journal removed)",
				p, r->op, (int)r->pid, cli_writer_text(&r->writer, w, sizeof(w)),
				r->restored);
			status = EXIT_CONFLICT;
			break;
		}
		cli_err("'%s': %s holds %s, not %s that the interrupted '%s' (pid %d) had written: "
			"another writer changed it since; kept their value (%d other value(s) "
			"restored, journal removed)",
			p, r->knob, cli_limit_value(r->found, f, sizeof(f)),
			cli_limit_value(r->expected, e, sizeof(e)), r->op, (int)r->pid, r->restored);
		status = EXIT_CONFLICT;
		break;
	default:
		cli_err("cannot restore '%s' from the journal of '%s' (pid %d): %s; the journal '%s' "
			"is kept",
			p, r->op, (int)r->pid, mcg_strerror(r->error), j ? j : "?");
		status = EXIT_FAILURE;
		break;
	}
	free(path);
	free(j);
	free(to);
	return status;
}

static const char *clock_text(uint64_t ns, char *buf, size_t len)
{
	time_t s = (time_t)(ns / 1000000000u);
	struct tm tm;

	if (!ns || !gmtime_r(&s, &tm)) {
		snprintf(buf, len, "?");
		return buf;
	}
	snprintf(buf, len, "%02d:%02d:%02d.%03u UTC", tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned)(ns % 1000000000u / 1000000u));
	return buf;
}

const char *cli_writer_text(const struct mcg_writer_seen *w, char *buf, size_t len)
{
	char who[96], st[32], seen[32], v[64], l[64], *c = mcg_escape_dup(w->comm);
	size_t o;

	if (w->pid > 0)
		snprintf(who, sizeof(who), "process %d%s%s%s", (int)w->pid, c && c[0] ? " ('" : "",
			 c && c[0] ? c : "", c && c[0] ? "')" : "");
	else
		snprintf(who, sizeof(who), "process (unknown)");
	free(c);
	o = (size_t)snprintf(buf, len, "another %s wrote %s, seen at %s", who, w->knob,
			     clock_text(w->seen_ns, seen, sizeof(seen)));
	if (o < len && w->step_start_ns)
		o += (size_t)snprintf(buf + o, len - o, " (memcgctl's write of %s began at %s)",
				      cli_limit_value(w->step_value, v, sizeof(v)),
				      clock_text(w->step_start_ns, st, sizeof(st)));
	if (o >= len)
		return buf;
	if (!w->overwritten)
		snprintf(buf + o, len - o, "; kept their value");
	else if (w->left_ok)
		snprintf(buf + o, len - o,
			 "; the kernel completing memcgctl's own write overwrote their value, which "
			 "memcgctl cannot know: it put back the original %s, not its own lowered "
			 "value",
			 cli_limit_value(w->left, l, sizeof(l)));
	else
		snprintf(buf + o, len - o,
			 "; the kernel completing memcgctl's own write overwrote their value, which "
			 "memcgctl cannot know, and putting back the original failed: %s reads %s",
			 w->knob, cli_limit_value(w->left, l, sizeof(l)));
	return buf;
}

bool cli_report_writer(const char *what, const char *path, const struct mcg_writer_seen *w)
{
	char buf[1024], *p;

	if (!w->seen || !w->overwritten)
		return false;
	p = mcg_escape_dup(path);
	cli_err("%s '%s' stopped: %s", what, p ? p : "?", cli_writer_text(w, buf, sizeof(buf)));
	free(p);
	return true;
}

bool cli_report_rundir(struct mcg_ctx *ctx, int err)
{
	char *d;

	if (err != -MCG_E_UNTRUSTED)
		return false;
	d = mcg_escape_dup(mcg_ctx_rundir(ctx));
	cli_err("cannot use run directory '%s': %s", d ? d : "?", mcg_strerror(err));
	free(d);
	return true;
}
