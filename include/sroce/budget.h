/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A device's budget of packets in flight, shared by its RC QPs.
 *
 * Each QP's window (cwnd, up to 64 PSNs) bounds what that QP keeps in the
 * network; nothing bounds what a device's QPs keep there together, and
 * 256 QPs of one host put 256 windows into the queue they share (the
 * receiver's, a switch port's) before any congestion signal can come
 * back. The budget bounds the sum, and shares it: a QP may add packets
 * in flight while the device is under its limit and the QP under its
 * share (the limit over the QPs that hold a part of it), so that QPs
 * that joined late win the budget back from those that came first as
 * their packets are acknowledged. A QP with nothing in flight may always
 * send one request: no QP waits on others forever, and the device holds
 * at most its limit plus one request per QP (a packet, or the PSNs of a
 * READ's response).
 *
 * Pure decisions over plain numbers. The glue owns one per device and
 * serializes what touches it (a lock of its own); a QP's engine is
 * granted its part before the requester runs (sroce_sq_budget_grant())
 * and settles what it holds after (sroce_sq_budget_settle()); the glue
 * keeps the QPs the budget held (SROCE_REQ_BUDGET) in a ring and runs
 * them in turn as packets are acknowledged, round robin.
 */
#ifndef _SROCE_BUDGET_H
#define _SROCE_BUDGET_H

#include "sroce/compat.h"

struct sroce_budget {
	u32	limit;		/* packets in flight for the device; 0: none */
	u32	used;		/* the QPs' charges together */
	u32	qps;		/* QPs with a charge */
};

/* A QP's part of its device's budget */
struct sroce_budget_qp {
	u32	charge;		/* packets in flight it holds */
};

/* A QP's share now: the limit over the QPs that hold a part, at least 1 */
u32 sroce_budget_share(const struct sroce_budget *b,
		       const struct sroce_budget_qp *q);

/* How many packets QP @q may add to those it has in flight, now */
u32 sroce_budget_grant(const struct sroce_budget *b,
		       const struct sroce_budget_qp *q);

/*
 * QP @q has @out packets in flight now: charge it so. Returns how many
 * fewer it holds than before (packets the device may give to others).
 */
u32 sroce_budget_settle(struct sroce_budget *b, struct sroce_budget_qp *q,
			u32 out);

/* used and qps can be what the QPs' charges make them */
bool sroce_budget_check(const struct sroce_budget *b);

#endif /* _SROCE_BUDGET_H */
