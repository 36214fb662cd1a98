// SPDX-License-Identifier: GPL-2.0-only
/*
 * The queue pair as an object: found by number from the receive path,
 * referenced while used there, and the one place where a QP's
 * completions enter its CQs. The verbs that create, modify and destroy
 * QPs are in sroce_qp_verbs.c.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "sroce.h"
#include "sroce_cq.h"
#include "sroce_qp.h"

struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn)
{
	struct sroce_qp *qp;

	rcu_read_lock();
	qp = xa_load(&sdev->qp_table, qpn);
	if (qp && !refcount_inc_not_zero(&qp->refs))
		qp = NULL;
	rcu_read_unlock();
	return qp;
}

void sroce_qp_put(struct sroce_qp *qp)
{
	if (refcount_dec_and_test(&qp->refs))
		complete(&qp->released);
}

/* A completion for @qp's @cq; qp->lock held. */
void sroce_qp_post_cqe(struct sroce_qp *qp, struct sroce_cq *cq,
		       const struct ib_wc *wc, bool solicited)
{
	if (sroce_cq_post(cq, wc, solicited))
		qp->notify |= cq == qp->scq ? SROCE_NOTIFY_SCQ : SROCE_NOTIFY_RCQ;
}
