// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce device budget: packets in flight shared by a device's RC QPs
 * (see include/sroce/budget.h for the rules and who calls what).
 */
#include "sroce/budget.h"

u32 sroce_budget_share(const struct sroce_budget *b,
		       const struct sroce_budget_qp *q)
{
	u32 n = b->qps + (q->charge ? 0 : 1);	/* @q counted once */
	u32 share = b->limit / n;

	return share ? share : 1;
}

u32 sroce_budget_grant(const struct sroce_budget *b,
		       const struct sroce_budget_qp *q)
{
	u32 share, room, free;

	if (!b->limit)
		return ~0U;
	share = sroce_budget_share(b, q);
	room = share > q->charge ? share - q->charge : 0;
	free = b->limit > b->used ? b->limit - b->used : 0;
	if (room > free)
		room = free;
	if (!room && !q->charge)
		room = 1;	/* nothing in flight: one packet, always */
	return room;
}

u32 sroce_budget_settle(struct sroce_budget *b, struct sroce_budget_qp *q,
			u32 out)
{
	u32 freed = q->charge > out ? q->charge - out : 0;

	if (SROCE_ENGINE_WARN(b->used < q->charge || (q->charge && !b->qps)))
		return 0;
	b->used = b->used - q->charge + out;
	if (!q->charge && out)
		b->qps++;
	else if (q->charge && !out)
		b->qps--;
	q->charge = out;
	return freed;
}

bool sroce_budget_check(const struct sroce_budget *b)
{
	/* every QP counted holds at least one packet */
	return !SROCE_ENGINE_WARN(b->used < b->qps);
}
