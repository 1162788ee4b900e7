/* policy.c: the async-reclaim daemon's decisions (budget, thrash back-off, clean skip, timer), pure. */
#include "ops/ops.h"

#include <math.h>

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

static double ewma(double avg, double x, double dt, double tau)
{
	return avg + (x - avg) * (dt / (dt + tau));
}

void mcg_policy_rate_update(struct mcg_policy_rate *r, uint64_t charged, uint64_t now)
{
	double dt, sample;

	if (!r->started || now < r->ns) {
		/* the first look, or a clock that went back: a new reference */
		r->started = true;
		r->base = charged;
		r->ns = now;
		return;
	}
	if (now - r->ns < MCG_POLICY_RATE_MIN_DT_NS)
		return; /* merged into the next sample */
	dt = (double)(now - r->ns);
	/* freed by someone else (the kernel, the workload): no charge, not a negative one */
	sample = charged > r->base ? (double)(charged - r->base) / dt * (double)MCG_POLICY_NSEC : 0;
	r->bps = ewma(r->bps, sample, dt,
		      sample > r->bps ? (double)MCG_POLICY_RATE_RISE_NS
				      : (double)MCG_POLICY_RATE_FALL_NS);
	r->base = charged;
	r->ns = now;
}

/* One in eight: a sample moves the average by an eighth of the difference. */
#define COST_WEIGHT 0.125

void mcg_policy_cost_step(struct mcg_policy_cost *c, uint64_t wall_ns)
{
	c->step_ns += ((double)wall_ns - c->step_ns) * COST_WEIGHT;
}

void mcg_policy_cost_late(struct mcg_policy_cost *c, uint64_t late_ns)
{
	c->late_ns += ((double)late_ns - c->late_ns) * COST_WEIGHT;
}

void mcg_policy_cost_look(struct mcg_policy_cost *c, uint64_t cpu_ns)
{
	c->look_ns += ((double)cpu_ns - c->look_ns) * COST_WEIGHT;
}

void mcg_policy_miss_init(struct mcg_policy_miss *m, uint64_t now)
{
	m->boost = 1;
	m->ns = now;
}

void mcg_policy_miss_update(struct mcg_policy_miss *m, bool hits_rose, uint64_t now)
{
	if (now > m->ns && m->boost > 1) {
		m->boost *= exp2(-(double)(now - m->ns) / (double)MCG_POLICY_MISS_HALF_NS);
		if (m->boost < 1)
			m->boost = 1;
	}
	m->ns = now; /* a clock that went back is the new reference */
	if (hits_rose) {
		m->boost *= 2;
		if (m->boost > MCG_POLICY_MISS_BOOST_MAX)
			m->boost = MCG_POLICY_MISS_BOOST_MAX;
	}
}

uint64_t mcg_policy_poll_floor(double look_ns, double max_cpu)
{
	double f;

	if (!(max_cpu > 0))
		return MCG_POLICY_FALLBACK_NS;
	f = (look_ns > 0 ? look_ns : 0) * MCG_POLICY_POLL_SHARE * 100.0 / max_cpu;
	if (f < (double)MCG_POLICY_POLL_MIN_NS)
		return MCG_POLICY_POLL_MIN_NS;
	return f < (double)MCG_POLICY_FALLBACK_NS ? (uint64_t)f : MCG_POLICY_FALLBACK_NS;
}

uint64_t mcg_policy_react_ns(uint64_t floor_ns, const struct mcg_policy_cost *c)
{
	double r = (double)floor_ns + (c->late_ns > 0 ? c->late_ns : 0) +
		   (c->step_ns > 0 ? c->step_ns : 0);

	return wait_ns(r);
}

/* X bytes as a whole number of bytes at most MAX (X may be huge or not a number). */
static uint64_t bytes_at_most(double x, uint64_t max)
{
	if (!(x > 0))
		return 0;
	return x >= (double)max ? max : (uint64_t)x;
}

void mcg_policy_watermarks(uint64_t limit, uint64_t high, uint64_t low, double rate_bps,
			   uint64_t react_ns, double boost, uint64_t *ret_high, uint64_t *ret_low)
{
	uint64_t hmax = limit / MCG_POLICY_MARGIN_MAX_DIV, lmax = 2 * hmax;
	uint64_t hm0 = limit - high, lm0 = limit - low; /* as configured: 0 < hm0 < lm0 < limit */
	uint64_t hm = hm0, gap, lm;
	double need = rate_bps * (double)react_ns / (double)MCG_POLICY_NSEC;

	if (!(low < high && high < limit)) {
		/* not resolved watermarks: nothing to widen */
		*ret_high = high;
		*ret_low = low;
		return;
	}
	if (!(boost >= 1))
		boost = 1;
	/* widened, up to the cap; a configured margin above the cap stays */
	if (bytes_at_most(2 * need, hmax) > hm)
		hm = bytes_at_most(2 * need, hmax);
	if (bytes_at_most((double)hm * boost, hmax) > hm)
		hm = bytes_at_most((double)hm * boost, hmax);
	gap = lm0 - hm0;
	if (bytes_at_most(need, lmax) > gap)
		gap = bytes_at_most(need, lmax);
	lm = hm + gap;
	if (lm > (lm0 > lmax ? lm0 : lmax))
		lm = lm0 > lmax ? lm0 : lmax;
	if (lm < lm0)
		lm = lm0;
	if (lm <= hm) /* a degenerate cap (a tiny limit): the configured pair */
		hm = hm0, lm = lm0;
	*ret_high = limit - hm;
	*ret_low = limit - lm;
}

uint64_t mcg_policy_step(double rate_bps, uint64_t react_ns, uint64_t batch_bytes, uint64_t page)
{
	uint64_t s = bytes_at_most(rate_bps * (double)react_ns / (double)MCG_POLICY_NSEC, batch_bytes);

	if (s < MCG_POLICY_STEP_MIN)
		s = MCG_POLICY_STEP_MIN;
	if (s > batch_bytes)
		s = batch_bytes;
	if (page)
		s = s / page * page;
	return s ? s : page;
}

uint64_t mcg_policy_poll(uint64_t usage, uint64_t high, double rate_bps, uint64_t floor_ns)
{
	double eta;

	if (usage >= high)
		return floor_ns;
	if (!(rate_bps > 0))
		return MCG_POLICY_FALLBACK_NS > floor_ns ? MCG_POLICY_FALLBACK_NS : floor_ns;
	/* half the time to reach high: the rate may grow meanwhile */
	eta = (double)(high - usage) / rate_bps * (double)MCG_POLICY_NSEC / 2;
	if (eta < (double)floor_ns)
		return floor_ns;
	return eta < (double)MCG_POLICY_FALLBACK_NS ? (uint64_t)eta
		: (MCG_POLICY_FALLBACK_NS > floor_ns ? MCG_POLICY_FALLBACK_NS : floor_ns);
}

bool mcg_policy_behind(uint64_t usage, uint64_t limit, uint64_t step, bool hits_rose, bool stalled)
{
	return hits_rose || stalled || usage >= limit || limit - usage <= step;
}

uint64_t mcg_policy_clean_wait(uint64_t prev_ns)
{
	if (prev_ns < MCG_POLICY_CLEAN_MIN_NS)
		return MCG_POLICY_CLEAN_MIN_NS;
	return prev_ns >= MCG_POLICY_CLEAN_MAX_NS / 2 ? MCG_POLICY_CLEAN_MAX_NS : 2 * prev_ns;
}

uint64_t mcg_policy_clean_file(uint64_t inactive, uint64_t active, uint64_t dirty,
			       uint64_t writeback)
{
	uint64_t file = inactive > UINT64_MAX - active ? UINT64_MAX : inactive + active;
	uint64_t d = dirty > UINT64_MAX - writeback ? UINT64_MAX : dirty + writeback;

	return file > d ? file - d : 0;
}

bool mcg_policy_aside_wants_sample(const struct mcg_policy_aside *a, uint64_t now)
{
	return !a->open || !a->samples || now < a->sample_ns ||
	       now - a->sample_ns >= MCG_POLICY_ASIDE_SAMPLE_NS;
}

static void aside_open(struct mcg_policy_aside *a, uint64_t now)
{
	a->open = true;
	a->start_ns = now;
	a->samples = a->low = 0;
	a->clean_sum = 0;
}

/* Clean below this is short of a burst: twice GAP stepping, four times standing aside. */
static uint64_t aside_threshold(const struct mcg_policy_aside *a, uint64_t gap)
{
	uint64_t k = a->mode == MCG_POLICY_ASIDE_STEP ? 2 : 4;

	return gap > UINT64_MAX / k ? UINT64_MAX : k * gap;
}

static void aside_sample(struct mcg_policy_aside *a, const struct mcg_policy_aside_sample *s,
			 uint64_t gap, uint64_t now)
{
	if (!a->samples)
		a->first = *s;
	a->last = *s;
	a->sample_ns = now;
	a->samples++;
	if (s->clean < aside_threshold(a, gap))
		a->low++;
	a->clean_sum = s->clean > UINT64_MAX - a->clean_sum ? UINT64_MAX : a->clean_sum + s->clean;
}

/* Stand aside for the current period from NOW. */
static void aside_hold(struct mcg_policy_aside *a, uint64_t now)
{
	a->mode = MCG_POLICY_ASIDE_HOLD;
	a->until_ns = now > UINT64_MAX - a->period_ns ? UINT64_MAX : now + a->period_ns;
}

/* The window's verdict: the charges met the limit as often as they came, with little clean. */
static bool aside_bound(const struct mcg_policy_aside *a)
{
	uint64_t hits, charges;

	if (a->samples < 2)
		return false;
	hits = a->last.hits - a->first.hits;
	charges = a->last.charges - a->first.charges;
	return hits > 0 && hits >= charges && 2 * (uint64_t)a->low > a->samples;
}

/* A window closed at NOW, BOUND or not: the next mode. */
static enum mcg_policy_aside_verdict aside_decide(struct mcg_policy_aside *a, bool bound,
						  uint64_t now)
{
	switch (a->mode) {
	case MCG_POLICY_ASIDE_STEP:
		if (!bound) {
			a->bound = 0;
			return MCG_POLICY_ASIDE_NONE;
		}
		if (++a->bound < MCG_POLICY_ASIDE_ENTER)
			return MCG_POLICY_ASIDE_NONE;
		a->bound = 0;
		a->period_ns = MCG_POLICY_ASIDE_MIN_NS;
		aside_hold(a, now);
		return MCG_POLICY_ASIDE_ENTERED;
	case MCG_POLICY_ASIDE_HOLD:
		if (!bound)
			break;
		if (now < a->until_ns)
			return MCG_POLICY_ASIDE_NONE;
		a->mode = MCG_POLICY_ASIDE_PROBE;
		return MCG_POLICY_ASIDE_PROBING;
	case MCG_POLICY_ASIDE_PROBE:
		if (!bound)
			break;
		a->period_ns = a->period_ns >= MCG_POLICY_ASIDE_MAX_NS / 2 ? MCG_POLICY_ASIDE_MAX_NS
									  : 2 * a->period_ns;
		aside_hold(a, now);
		return MCG_POLICY_ASIDE_ENTERED;
	}
	a->mode = MCG_POLICY_ASIDE_STEP;
	a->bound = 0;
	a->period_ns = 0;
	a->until_ns = 0;
	return MCG_POLICY_ASIDE_RESUMED;
}

enum mcg_policy_aside_verdict mcg_policy_aside_look(struct mcg_policy_aside *a,
						    const struct mcg_policy_aside_sample *s,
						    uint64_t gap, uint64_t now)
{
	enum mcg_policy_aside_verdict v;
	bool bound;

	if (s && !s->known)
		s = NULL;
	if (!a->open || now < a->start_ns ||
	    (s && a->samples && (s->hits < a->last.hits || s->charges < a->last.charges))) {
		/* the first look, a clock or a counter that went back: a new window */
		if (a->mode == MCG_POLICY_ASIDE_STEP)
			a->bound = 0; /* and the evidence starts over */
		aside_open(a, now);
		if (s)
			aside_sample(a, s, gap, now);
		return MCG_POLICY_ASIDE_NONE;
	}
	if (s)
		aside_sample(a, s, gap, now);
	if (now - a->start_ns < MCG_POLICY_ASIDE_WINDOW_NS)
		return MCG_POLICY_ASIDE_NONE;
	bound = aside_bound(a);
	a->last_clean = a->samples ? a->clean_sum / a->samples : 0;
	v = aside_decide(a, bound, now);
	/* the next window starts from this look's sample (the same counters), in the new mode */
	aside_open(a, now);
	if (s)
		aside_sample(a, s, gap, now);
	return v;
}

bool mcg_policy_aside_holds(const struct mcg_policy_aside *a)
{
	return a->mode == MCG_POLICY_ASIDE_HOLD;
}
