// SPDX-License-Identifier: GPL-2.0-only
/*
 * DCQCN reaction point: one QP's rate, its cuts and increases, and the
 * pacing to it (include/sroce/dcqcn.h). Time-driven parts (alpha's
 * decay, the increase timer) are computed when the clock is next read,
 * not on a tick: a QP that sends nothing costs nothing.
 *
 * The rules, after the paper and the NICs' documented knobs:
 * - alpha: at the end of each alpha period, alpha = alpha * g +
 *   (1 - g) if a CNP came in it, else alpha * g.
 * - A CNP cuts (at most once per reduce period): target = current,
 *   current = current * (1 - alpha / 2), kept at least min_dec_pct % of
 *   what it was and at least the minimum rate. The first CNP of a QP at
 *   line rate starts alpha at initial_alpha (or sets both rates to
 *   first_cnp_mbps, if given).
 * - Each expiry of the increase timer (time_reset_us) or the byte counter
 *   (byte_reset bytes sent) raises the rate: while both stage counts are
 *   below threshold, fast recovery (current halfway to target); once both
 *   are past it, hyper increase (target + hai); else additive increase
 *   (target + ai), then current halfway to target. Back at line rate the
 *   QP is no longer limited, and the next CNP is a first one again.
 */
#include "sroce/dcqcn.h"

#define NS_PER_US	1000ULL
#define KBPS_PER_MBPS	1000U
/* ns to send one byte at 1 kbit/s */
#define NS_BYTE_KBPS	8000000ULL

static u64 us_ns(u32 us)
{
	return (u64)(us ? us : 1) * NS_PER_US;
}

static u32 min_kbps(const struct sroce_dcqcn *d,
		    const struct sroce_dcqcn_params *p)
{
	u64 m = (u64)(p->min_mbps ? p->min_mbps : 1) * KBPS_PER_MBPS;

	return m < d->line_kbps ? (u32)m : d->line_kbps;
}

void sroce_dcqcn_init(struct sroce_dcqcn *d, u32 line_mbps)
{
	memset(d, 0, sizeof(*d));
	if (!line_mbps)
		line_mbps = 1;
	if (line_mbps > 0xffffffffU / KBPS_PER_MBPS)
		line_mbps = 0xffffffffU / KBPS_PER_MBPS;
	d->line_kbps = line_mbps * KBPS_PER_MBPS;
	d->rc_kbps = d->line_kbps;
	d->rt_kbps = d->line_kbps;
}

/* (@g / 1024) ^ @n, in 1/2^20 */
static u64 gain_pow(u32 g, u64 n)
{
	u64 f = 1ULL << 20, b = (u64)g << 10;

	while (n && f) {
		if (n & 1)
			f = (f * b) >> 20;
		b = (b * b) >> 20;
		n >>= 1;
	}
	return f;
}

static void back_to_line(struct sroce_dcqcn *d)
{
	d->rc_kbps = d->line_kbps;
	d->rt_kbps = d->line_kbps;
	d->limited = false;
	d->t_stage = 0;
	d->b_stage = 0;
	d->bytes = 0;
}

/*
 * One increase step, by the stage counts as they are before it; then
 * @stage (the timer's or the byte counter's) counts it, unless the QP is
 * back at line rate.
 */
static void increase(struct sroce_dcqcn *d, const struct sroce_dcqcn_params *p,
		     u32 *stage)
{
	u32 hi = d->t_stage > d->b_stage ? d->t_stage : d->b_stage;
	u32 lo = d->t_stage < d->b_stage ? d->t_stage : d->b_stage;
	u64 rt = d->rt_kbps;

	if (hi >= p->threshold) {
		if (lo > p->threshold)
			rt += (u64)p->hai_mbps * KBPS_PER_MBPS;
		else
			rt += (u64)p->ai_mbps * KBPS_PER_MBPS;
	}
	if (rt > d->line_kbps)
		rt = d->line_kbps;
	d->rt_kbps = (u32)rt;
	d->rc_kbps = (u32)(((u64)d->rc_kbps + rt + 1) / 2);
	if (d->rc_kbps >= d->line_kbps)
		back_to_line(d);
	else
		(*stage)++;
}

static void alpha_update(struct sroce_dcqcn *d,
			 const struct sroce_dcqcn_params *p, u64 now)
{
	u64 period = us_ns(p->alpha_us), n;
	u32 g = p->g < SROCE_DCQCN_ONE ? p->g : SROCE_DCQCN_ONE;

	if (now < d->alpha_next)
		return;
	n = (now - d->alpha_next) / period;	/* whole periods after the first */
	d->alpha = d->alpha * g / SROCE_DCQCN_ONE +
		   (d->cnp_seen ? SROCE_DCQCN_ONE - g : 0);
	d->cnp_seen = false;
	if (n)
		d->alpha = (u32)((d->alpha * gain_pow(g, n)) >> 20);
	d->alpha_next += (n + 1) * period;
}

void sroce_dcqcn_update(struct sroce_dcqcn *d,
			const struct sroce_dcqcn_params *p, u64 now)
{
	u64 period = us_ns(p->time_reset_us), n;

	if (!d->limited)
		return;
	alpha_update(d, p, now);
	if (now < d->inc_next)
		return;
	n = (now - d->inc_next) / period + 1;
	d->inc_next += n * period;
	if (n > SROCE_DCQCN_MAX_STEPS) {
		back_to_line(d);
		return;
	}
	while (n-- && d->limited)
		increase(d, p, &d->t_stage);
}

bool sroce_dcqcn_cnp(struct sroce_dcqcn *d, const struct sroce_dcqcn_params *p,
		     u64 now)
{
	u32 pct = p->min_dec_pct < 100 ? p->min_dec_pct : 100;
	u64 old, cut, floor;

	sroce_dcqcn_update(d, p, now);
	d->cnps++;
	d->cnp_seen = true;
	if (!d->limited) {
		/* the first CNP of a QP at line rate */
		d->alpha = p->initial_alpha < SROCE_DCQCN_ONE ?
			   p->initial_alpha : SROCE_DCQCN_ONE;
		d->alpha_next = now + us_ns(p->alpha_us);
		d->next_tx = now;
		d->limited = true;
		if (p->first_cnp_mbps) {
			u64 r = (u64)p->first_cnp_mbps * KBPS_PER_MBPS;

			if (r > d->line_kbps)
				r = d->line_kbps;
			if (r < min_kbps(d, p))
				r = min_kbps(d, p);
			d->rc_kbps = (u32)r;
			d->rt_kbps = (u32)r;
			goto cut_done;
		}
	} else if (now - d->cut_last < us_ns(p->reduce_us)) {
		return false;
	}
	old = d->rc_kbps;
	cut = old - old * d->alpha / (2 * SROCE_DCQCN_ONE);
	floor = old * pct / 100;
	if (cut < floor)
		cut = floor;
	if (cut < min_kbps(d, p))
		cut = min_kbps(d, p);
	if (cut > old)
		cut = old;
	d->rt_kbps = (u32)old;
	d->rc_kbps = (u32)cut;
cut_done:
	d->t_stage = 0;
	d->b_stage = 0;
	d->bytes = 0;
	d->inc_next = now + us_ns(p->time_reset_us);
	d->cut_last = now;
	d->cuts++;
	sroce_dcqcn_check(d, p);
	return true;
}

void sroce_dcqcn_sent(struct sroce_dcqcn *d, const struct sroce_dcqcn_params *p,
		      u64 now, u32 bytes)
{
	u32 unit = p->byte_reset > 64 ? p->byte_reset : 64;
	u64 burst, floor;

	sroce_dcqcn_update(d, p, now);
	if (!d->limited)
		return;
	/* credit for a pause, up to a burst */
	burst = SROCE_DCQCN_BURST * NS_BYTE_KBPS / d->rc_kbps;
	floor = now > burst ? now - burst : 0;
	if (d->next_tx < floor)
		d->next_tx = floor;
	d->next_tx += (u64)bytes * NS_BYTE_KBPS / d->rc_kbps;
	d->bytes += bytes;
	if (d->bytes / unit > SROCE_DCQCN_MAX_STEPS) {
		/* a byte_reset lowered under a counter that ran long */
		back_to_line(d);
		return;
	}
	while (d->bytes >= unit && d->limited) {
		d->bytes -= unit;
		increase(d, p, &d->b_stage);
	}
}

bool sroce_dcqcn_check(const struct sroce_dcqcn *d,
		       const struct sroce_dcqcn_params *p)
{
	bool bad = false;

	(void)p;
	bad |= SROCE_ENGINE_WARN(!d->line_kbps);
	bad |= SROCE_ENGINE_WARN(!d->rc_kbps || d->rc_kbps > d->rt_kbps);
	bad |= SROCE_ENGINE_WARN(d->rt_kbps > d->line_kbps);
	bad |= SROCE_ENGINE_WARN(d->alpha > SROCE_DCQCN_ONE);
	/* unlimited is at line rate, nothing owed */
	bad |= SROCE_ENGINE_WARN(!d->limited &&
				 (d->rc_kbps != d->line_kbps || d->t_stage ||
				  d->b_stage || d->bytes));
	return !bad;
}
