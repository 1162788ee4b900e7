/* policy.c: the async-reclaim daemon's decisions (budget, thrash back-off, clean skip, timer), pure. */
#include "internal.h"

/* Wait for X ns (a double that may be huge or not a number), as a bounded integer. */
static uint64_t wait_ns(double x)
{
	if (!(x > 0))
		return 0;
	if (x >= (double)MCG_POLICY_WAIT_MAX_NS)
		return MCG_POLICY_WAIT_MAX_NS;
	return (uint64_t)x;
}

/* CPU nanoseconds earned per wall nanosecond. */
static double budget_rate(const struct mcg_policy_budget *b)
{
	return b->max_cpu / 100.0;
}

static double budget_cap(const struct mcg_policy_budget *b)
{
	return (double)MCG_POLICY_BUDGET_BURST_NS * budget_rate(b);
}

void mcg_policy_budget_init(struct mcg_policy_budget *b, double max_cpu, uint64_t now)
{
	b->max_cpu = max_cpu > 0 ? max_cpu : 0;
	b->tokens_ns = budget_cap(b);
	b->refill_ns = now;
}

void mcg_policy_budget_refill(struct mcg_policy_budget *b, uint64_t now)
{
	double cap = budget_cap(b);

	/* a clock that went back earns nothing, and is the new reference */
	if (now > b->refill_ns)
		b->tokens_ns += (double)(now - b->refill_ns) * budget_rate(b);
	if (b->tokens_ns > cap)
		b->tokens_ns = cap;
	b->refill_ns = now;
}

void mcg_policy_budget_spend(struct mcg_policy_budget *b, uint64_t cost_ns)
{
	b->tokens_ns -= (double)cost_ns;
}

bool mcg_policy_budget_exhausted(const struct mcg_policy_budget *b, uint64_t used_ns)
{
	return (double)used_ns >= b->tokens_ns;
}

uint64_t mcg_policy_budget_wait(const struct mcg_policy_budget *b)
{
	if (b->tokens_ns > 0)
		return 0;
	if (!(b->max_cpu > 0))
		return MCG_POLICY_WAIT_MAX_NS;
	return wait_ns(-b->tokens_ns * 100.0 / b->max_cpu + (double)MCG_POLICY_BUDGET_SLACK_NS);
}

uint64_t mcg_policy_thrash_window(uint64_t high, uint64_t low)
{
	uint64_t gap = high > low ? high - low : 0, w;

	w = gap > UINT64_MAX / MCG_POLICY_THRASH_WINDOW_GAPS ? UINT64_MAX
							     : gap * MCG_POLICY_THRASH_WINDOW_GAPS;
	return w < MCG_POLICY_THRASH_WINDOW_MIN ? MCG_POLICY_THRASH_WINDOW_MIN : w;
}

void mcg_policy_thrash_reclaimed(struct mcg_policy_thrash *t, uint64_t bytes)
{
	t->reclaimed = bytes > UINT64_MAX - t->reclaimed ? UINT64_MAX : t->reclaimed + bytes;
}

bool mcg_policy_thrash_wants_sample(const struct mcg_policy_thrash *t, uint64_t high, uint64_t low)
{
	return !t->started || t->reclaimed >= mcg_policy_thrash_window(high, low);
}

enum mcg_policy_thrash_verdict mcg_policy_thrash_sample(struct mcg_policy_thrash *t, uint64_t high,
							uint64_t low, bool known, uint64_t refault,
							uint64_t now, uint64_t *ret_refaulted)
{
	uint64_t delta;

	if (!t->started) {
		/* the window starts after the first burst that can be measured */
		t->started = known;
		t->base = refault;
		t->reclaimed = 0;
		return MCG_POLICY_THRASH_OPEN;
	}
	if (!known || t->reclaimed < mcg_policy_thrash_window(high, low))
		return MCG_POLICY_THRASH_OPEN;
	/* a counter that went back (never on a live cgroup): a new base, no refaults */
	delta = refault >= t->base ? refault - t->base : 0;
	t->ratio = (double)delta / (double)t->reclaimed;
	t->base = refault;
	t->reclaimed = 0;
	if (ret_refaulted)
		*ret_refaulted = delta;
	if (t->ratio < MCG_POLICY_THRASH_RATIO) {
		t->backoff_ns = 0;
		return MCG_POLICY_THRASH_CALM;
	}
	t->backoff_ns = t->backoff_ns ? t->backoff_ns * 2 : MCG_POLICY_THRASH_BACKOFF_MIN_NS;
	if (t->backoff_ns > MCG_POLICY_THRASH_BACKOFF_MAX_NS)
		t->backoff_ns = MCG_POLICY_THRASH_BACKOFF_MAX_NS;
	t->until_ns = now > UINT64_MAX - t->backoff_ns ? UINT64_MAX : now + t->backoff_ns;
	return MCG_POLICY_THRASH_BACKOFF;
}

bool mcg_policy_thrash_backing_off(const struct mcg_policy_thrash *t, uint64_t now)
{
	return now < t->until_ns;
}

bool mcg_policy_skip_clean(uint64_t file, uint64_t dirty, uint64_t writeback, uint64_t gap)
{
	uint64_t d = dirty > UINT64_MAX - writeback ? UINT64_MAX : dirty + writeback;
	bool share = d > UINT64_MAX / MCG_POLICY_DIRTY_SHARE || d * MCG_POLICY_DIRTY_SHARE >= file;

	return !(share && d >= gap);
}

uint64_t mcg_policy_next_wakeup(uint64_t usage, uint64_t high, uint64_t last_usage,
				uint64_t last_ns, uint64_t now)
{
	if (last_ns && now > last_ns && usage > last_usage && high > usage) {
		double rate = (double)(usage - last_usage) / (double)(now - last_ns);
		/* half the time to reach high: the rate may grow meanwhile */
		double eta = (double)(high - usage) / rate / 2;

		if (eta < (double)MCG_POLICY_ADAPTIVE_MIN_NS)
			return MCG_POLICY_ADAPTIVE_MIN_NS;
		return eta < (double)MCG_POLICY_FALLBACK_NS ? (uint64_t)eta : MCG_POLICY_FALLBACK_NS;
	}
	return usage >= high ? MCG_POLICY_ADAPTIVE_MIN_NS : MCG_POLICY_FALLBACK_NS;
}
