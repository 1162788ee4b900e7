/* reclaim.c: bounded reclaim steps, memory.reclaim on v2 and a journalled limit step on v1. */
#include "ops/ops.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int mcg_group_usage(const struct mcg_group *g, uint64_t *ret)
{
	return mcg_knob_read_u64(g, mcg_knob_file(g->ctx->version, MCG_K_USAGE), ret);
}

/*
 * A reclaim loop keeps its files open: measured here, an open/write/close of a
 * limit costs ~25 us and an open/read/close of usage ~50 us, against ~16 us and
 * ~2 us on kept descriptors; at 256 steps per GiB that was a third of the time
 * force_empty takes for clean cache.
 */
struct mcg_reclaimer {
	struct mcg_txn *t;
	struct mcg_group *g;
	bool v1;
	const char *limit; /* the limit file (v1: journalled and stepped) */
	int ctl_fd;   /* v2 memory.reclaim, v1 memory.limit_in_bytes (read and written) */
	int usage_fd; /* memory.current / memory.usage_in_bytes */
	char orig[64]; /* v1: the journalled limit, as the kernel printed it */
	uint64_t orig_v; /* v1: the same, normalised */
	/*
	 * v1: what the limit file may hold now, as memcgctl left it: the last
	 * value written (both equal), or after a failed write the value before
	 * and the one asked for (the kernel may or may not have installed it).
	 */
	uint64_t exp1, exp2;
	bool lowered;  /* v1: the limit stands below orig */
	bool forgot;   /* v1: a conflict: the limit is someone else's now */
	uint64_t c_found, c_expected;
	bool have_usage;
	uint64_t usage; /* read after the last step */
	unsigned writes;
};

static int write_all(int fd, const char *s)
{
	size_t len = strlen(s);
	ssize_t n = pwrite(fd, s, len, 0);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

int mcg_reclaimer_new(struct mcg_txn *t, struct mcg_reclaimer **ret)
{
	struct mcg_group *g = mcg_txn_group(t);
	struct mcg_reclaimer *r = calloc(1, sizeof(*r));
	const char *orig;
	int e;

	if (!r)
		return -ENOMEM;
	r->t = t;
	r->g = g;
	r->v1 = g->ctx->version == 1;
	r->limit = mcg_knob_file(g->ctx->version, MCG_K_LIMIT);
	r->ctl_fd = r->usage_fd = -1;
	if (r->v1) {
		/* journalled before the first step, restored on every way out */
		e = mcg_txn_save(t, r->limit);
		if (e < 0)
			goto fail;
		e = mcg__txn_saved(t, r->limit, &orig);
		if (e < 0)
			goto fail;
		snprintf(r->orig, sizeof(r->orig), "%s\n", orig);
		e = mcg__txn_saved_u64(t, r->limit, &r->orig_v);
		if (e < 0)
			goto fail;
		r->exp1 = r->exp2 = r->orig_v;
	}
	e = mcg_knob_open(g, r->v1 ? r->limit : "memory.reclaim",
			  r->v1 ? O_RDWR : O_WRONLY);
	if (e < 0)
		goto fail;
	r->ctl_fd = e;
	e = mcg_knob_open(g, mcg_knob_file(g->ctx->version, MCG_K_USAGE), O_RDONLY);
	if (e < 0)
		goto fail;
	r->usage_fd = e;
	*ret = r;
	return 0;
fail:
	if (r->ctl_fd >= 0)
		close(r->ctl_fd);
	free(r);
	return e;
}

/*
 * Another process wrote the limit (fanotify, see mcg__watch_open): before a
 * step, or while the reclaimer's own write was in the kernel. Theirs kept if
 * it is there; if the file holds ours, theirs was overwritten by the kernel
 * completing our step, and the transaction's rollback puts the original back
 * (the knob stays saved). Either way the reclaimer stops touching the limit.
 */
static int watch(struct mcg_reclaimer *r, uint64_t step_value, uint64_t step_ns)
{
	const char *k;
	int e = mcg__txn_check_writer(r->t, r->limit, r->ctl_fd, r->exp1, r->exp2, step_value,
				      step_ns);

	if (e != -MCG_E_CONFLICT)
		return e;
	r->forgot = true;
	r->lowered = false;
	if (mcg_txn_conflict(r->t, &k, &r->c_found, &r->c_expected) < 0)
		r->c_found = r->c_expected = r->exp2;
	return e;
}

/*
 * v1: does the limit still hold what the reclaimer left there? One pread on
 * the kept descriptor, right before the write it guards. On a mismatch the
 * reclaimer and its transaction forget the limit: nothing of ours is left to
 * put back. A match may still hide a write whose value our last step
 * overwrote: the watch tells.
 */
static int check_limit(struct mcg_reclaimer *r)
{
	char buf[64];
	uint64_t cur;
	ssize_t n;

	if (r->forgot)
		return -MCG_E_CONFLICT;
	n = pread(r->ctl_fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (mcg__limit_parse(buf, &cur) < 0)
		return -EBADMSG;
	if (cur == r->exp1 || cur == r->exp2)
		return watch(r, r->exp2, 0); /* before a write: no step of ours to name */
	r->forgot = true;
	r->lowered = false;
	r->c_found = cur;
	r->c_expected = r->exp2;
	mcg__txn_forget(r->t, r->limit, cur, r->exp2);
	return -MCG_E_CONFLICT;
}

int mcg_reclaimer_conflict(const struct mcg_reclaimer *r, uint64_t *ret_found,
			   uint64_t *ret_expected)
{
	if (!r->forgot)
		return -ENOENT;
	if (ret_found)
		*ret_found = r->c_found;
	if (ret_expected)
		*ret_expected = r->c_expected;
	return 0;
}

/*
 * The trailing newline changes nothing for the kernel (it strips the value)
 * and keeps a fixture file of regular files readable after an in-place pwrite.
 */
static int write_limit_fd(struct mcg_reclaimer *r, const char *s, uint64_t v)
{
	int e = write_all(r->ctl_fd, s);

	r->writes++;
	if (e == 0) {
		r->exp1 = r->exp2 = mcg__limit_norm(v);
	} else {
		/* EBUSY, EINTR: v1 installs a limit only once usage fits; allow both */
		r->exp2 = mcg__limit_norm(v);
	}
	return e;
}

int mcg_reclaimer_restore(struct mcg_reclaimer *r)
{
	int e, w, tries = 0;
	uint64_t ns;

	if (!r->v1 || r->forgot || !r->lowered)
		return 0;
	e = check_limit(r);
	if (e < 0)
		return e;
	/* raising a limit does not reclaim; retry a signal that lands meanwhile */
	ns = mcg__realtime_ns();
	do {
		e = write_limit_fd(r, r->orig, r->orig_v);
	} while (e == -EINTR && ++tries < 100);
	if (e == 0)
		r->lowered = false;
	w = watch(r, r->orig_v, ns);
	return w < 0 ? w : e;
}

int mcg_reclaimer_step(struct mcg_reclaimer *r, uint64_t bytes, bool keep_lowered,
		       struct mcg_step *ret)
{
	struct mcg_step st = {.asked = bytes};
	uint64_t ps = (uint64_t)mcg_page_size(), ns;
	char buf[32];
	int e, e2;

	if (r->have_usage) {
		st.usage_before = r->usage;
	} else {
		e = mcg_fd_read_u64(r->usage_fd, &st.usage_before);
		if (e < 0)
			return e;
	}
	r->have_usage = false;
	if (r->v1) {
		uint64_t target = st.usage_before > bytes ? (st.usage_before - bytes) / ps * ps : 0;

		/*
		 * What recover may find: the value there now (exp1: a failed write
		 * installs nothing on v1), or the one written
		 * next. Journalled before the check, so that the check and the write
		 * are one pread and one write apart.
		 */
		if (r->forgot)
			return -MCG_E_CONFLICT;
		e = mcg__txn_temp(r->t, r->limit, r->exp1, target);
		if (e < 0)
			return e;
		e = check_limit(r);
		if (e < 0)
			return e;
		/* Lowering the limit alone keeps limit <= memsw; the kernel reclaims here. */
		snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)target);
		ns = mcg__realtime_ns();
		e = write_limit_fd(r, buf, target);
		if (e == 0)
			r->lowered = true;
		/* a write that landed while ours reclaimed in the kernel */
		e2 = watch(r, target, ns);
		if (e2 < 0)
			return e2;
		if (e == -EBUSY) {
			st.short_ = true;
			st.kernel_err = EBUSY;
			e = 0;
		}
		if (e < 0 || !keep_lowered) {
			/* Always put the original limit back, even after EINTR. */
			e2 = mcg_reclaimer_restore(r);
			if (e == 0 || e2 == -MCG_E_CONFLICT)
				e = e2;
		}
	} else {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)bytes);
		e = write_all(r->ctl_fd, buf);
		r->writes++;
		if (e == -EAGAIN) {
			st.short_ = true;
			st.kernel_err = EAGAIN;
			e = 0;
		}
	}
	if (e < 0)
		return e;
	e = mcg_fd_read_u64(r->usage_fd, &st.usage_after);
	if (e < 0)
		return e;
	r->usage = st.usage_after;
	r->have_usage = true;
	*ret = st;
	return 0;
}

unsigned mcg_reclaimer_writes(const struct mcg_reclaimer *r)
{
	return r->writes;
}

void mcg_reclaimer_free(struct mcg_reclaimer *r)
{
	if (!r)
		return;
	mcg_reclaimer_restore(r);
	close(r->ctl_fd);
	close(r->usage_fd);
	free(r);
}
