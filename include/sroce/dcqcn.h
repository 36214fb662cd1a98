/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * DCQCN reaction point (Zhu et al., SIGCOMM 2015, as RoCE NICs ship it):
 * the rate one QP may send at, cut by the CNPs its peer returns for
 * CE-marked packets and raised again by a timer and a byte counter, and
 * the pacing that holds the QP to it. Pure decisions over plain numbers:
 * the engine owns one per send queue (struct sroce_sq_eng), the glue
 * feeds it the clock and the CNPs and enforces what it decides.
 *
 * Units are the NICs' (mlx5's rp_* knobs): rates in Mbit/s, times in
 * microseconds, alpha and the gain g in 1/1024. Internally rates are in
 * kbit/s and times in ns.
 */
#ifndef _SROCE_DCQCN_H
#define _SROCE_DCQCN_H

#include "sroce/compat.h"

#define SROCE_DCQCN_ONE		1024	/* alpha and g: 1024 is 1.0 */

/*
 * Bytes a limited QP may send back to back after a pause: the pacing
 * allows this much credit, no more (a few MTU-sized packets, so that a
 * timer that fires late does not cost rate).
 */
#define SROCE_DCQCN_BURST	16384

/*
 * Rate increases owed beyond this many periods (a QP idle for long) are
 * not walked one by one: the QP is back at its line rate.
 */
#define SROCE_DCQCN_MAX_STEPS	4096

/*
 * The knobs, with the names and defaults of mlx5's congestion control
 * (ConnectX-4 and later; module parameters dcqcn_*, see the admin guide).
 * Read on every decision: a change applies at once. A zero period or
 * gain is taken as the least that makes sense.
 */
struct sroce_dcqcn_params {
	u32 min_mbps;		/* rpg_min_rate: never below (1) */
	u32 ai_mbps;		/* rpg_ai_rate: additive increase (5) */
	u32 hai_mbps;		/* rpg_hai_rate: hyper increase (50) */
	u32 time_reset_us;	/* rpg_time_reset: increase timer (300) */
	u32 byte_reset;		/* rpg_byte_reset: increase per bytes (32767) */
	u32 threshold;		/* rpg_threshold: fast recovery stages (1) */
	u32 g;			/* dce_tcp_g: alpha keeps g/1024 (1019) */
	u32 alpha_us;		/* dce_tcp_rtt: alpha update period (1) */
	u32 initial_alpha;	/* initial_alpha_value, of 1023 (1023) */
	u32 min_dec_pct;	/* rpg_min_dec_fac: a cut keeps >= this % (50) */
	u32 reduce_us;		/* rate_reduce_monitor_period (4) */
	u32 first_cnp_mbps;	/* rate_to_set_on_first_cnp, 0: cut (0) */
};

/* mlx5's defaults, in the order of struct sroce_dcqcn_params */
#define SROCE_DCQCN_DEFAULTS {						\
	.min_mbps = 1, .ai_mbps = 5, .hai_mbps = 50,			\
	.time_reset_us = 300, .byte_reset = 32767, .threshold = 1,	\
	.g = 1019, .alpha_us = 1, .initial_alpha = 1023,		\
	.min_dec_pct = 50, .reduce_us = 4, .first_cnp_mbps = 0,		\
}

/* One QP's reaction point */
struct sroce_dcqcn {
	u32	line_kbps;	/* where it starts and what it never passes */
	u32	rc_kbps;	/* current rate: what it paces to */
	u32	rt_kbps;	/* target rate: where increases head */
	u32	alpha;		/* of 1024: how much the next CNP cuts */
	u32	bytes;		/* sent since the last byte stage */
	u32	t_stage;	/* timer expiries since the last cut */
	u32	b_stage;	/* byte counter expiries since the last cut */
	bool	limited;	/* rc below line: a CNP cut it, pacing on */
	bool	cnp_seen;	/* a CNP in this alpha period */
	u64	alpha_next;	/* end of this alpha period */
	u64	inc_next;	/* the increase timer's next expiry */
	u64	cut_last;	/* last decrease */
	u64	next_tx;	/* the next packet's earliest start (limited) */
	u32	cuts;		/* decreases made */
	u32	cnps;		/* CNPs taken */
};

/* At line rate @line_mbps (>= 1), unlimited */
void sroce_dcqcn_init(struct sroce_dcqcn *d, u32 line_mbps);

/*
 * A CNP arrived at @now: alpha rises at the end of this period, and the
 * rate is cut unless it was cut less than reduce_us ago. True if cut.
 */
bool sroce_dcqcn_cnp(struct sroce_dcqcn *d, const struct sroce_dcqcn_params *p,
		     u64 now);

/* The clock moved to @now: alpha updates and timer increases owed */
void sroce_dcqcn_update(struct sroce_dcqcn *d,
			const struct sroce_dcqcn_params *p, u64 now);

/* A packet of @bytes (headers included) left at @now: pacing and bytes */
void sroce_dcqcn_sent(struct sroce_dcqcn *d, const struct sroce_dcqcn_params *p,
		      u64 now, u32 bytes);

/* May a packet leave at @now? (Unlimited: always.) */
static inline bool sroce_dcqcn_ready(const struct sroce_dcqcn *d, u64 now)
{
	return !d->limited || d->next_tx <= now;
}

/*
 * Notification point: a CE-marked packet came for a QP at @now, whose
 * last CNP went at *@last (0: none yet). True if a CNP is due: at most
 * one per @gap_us (mlx5's np_min_time_between_cnps); *@last is then @now.
 */
static inline bool sroce_np_cnp_due(u64 *last, u64 now, u32 gap_us)
{
	if (*last && now - *last < (u64)gap_us * 1000)
		return false;
	*last = now;
	return true;
}

/* Invariants; false (and SROCE_ENGINE_WARN) if one is broken */
bool sroce_dcqcn_check(const struct sroce_dcqcn *d,
		       const struct sroce_dcqcn_params *p);

#endif /* _SROCE_DCQCN_H */
