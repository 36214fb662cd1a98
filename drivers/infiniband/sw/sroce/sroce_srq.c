// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared receive queues: create, modify (limit, resize), query, destroy.
 * (Kernel callers post in sroce_post.c; the responders take a receive
 * WQE from a QP's own RQ or its SRQ with sroce_wqe_take_recv().)
 *
 * An SRQ is a ring in the rxe provider's layout, like an RQ: userspace
 * produces, the kernel consumes under srq->lock (taken inside the QP
 * lock of whichever QP receives). Each WQE is copied once and checked
 * on the copy. When the posted count falls below an armed limit, the
 * limit disarms and IB_EVENT_SRQ_LIMIT_REACHED is raised once the QP
 * lock is dropped.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/uaccess.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "sroce_param.h"
#include "sroce_qp.h"
#include "sroce_srq.h"

static u32 sroce_srq_elem_size(u32 max_sge)
{
	return SROCE_RWQE_HDR + max_sge * sizeof(struct rxe_sge);
}

int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibsrq->device);
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct ib_srq_attr *a = &init->attr;
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return sroce_refuse(ibsrq->device, -EOPNOTSUPP,
				    "create_srq: type %d: basic SRQs only\n",
				    init->srq_type);
	if (udata && udata->inlen)
		return sroce_refuse(ibsrq->device, -EINVAL,
				    "create_srq: unexpected driver data\n");
	if (a->max_wr < 1 || a->max_wr > SROCE_MAX_SRQ_WR ||
	    a->max_sge > SROCE_MAX_SRQ_SGE)
		return sroce_refuse(ibsrq->device, -EINVAL,
				    "create_srq: max_wr %u (1 to %u), max_sge %u (at most %u)\n",
				    a->max_wr, SROCE_MAX_SRQ_WR, a->max_sge,
				    SROCE_MAX_SRQ_SGE);
	if (!atomic_add_unless(&sdev->nsrq, 1, SROCE_MAX_SRQ))
		return sroce_refuse(ibsrq->device, -ENOMEM,
				    "create_srq: the device's %u SRQs exist\n",
				    SROCE_MAX_SRQ);

	spin_lock_init(&srq->lock);
	mutex_init(&srq->modify_mutex);
	srq->user = !!udata;
	srq->max_sge = max_t(u32, a->max_sge, 1);
	srq->srq_num = atomic_inc_return(&sdev->srq_next);
	err = sroce_queue_init(&srq->q, udata, a->max_wr,
			       sroce_srq_elem_size(srq->max_sge));
	if (err)
		goto uncount;
	a->max_wr = sroce_queue_slots(&srq->q) - 1;
	a->max_sge = srq->max_sge;
	/* An armed limit at create, as the spec allows */
	srq->limit = a->srq_limit <= a->max_wr ? a->srq_limit : 0;

	if (udata) {
		struct rxe_create_srq_resp resp = { .srq_num = srq->srq_num };

		sroce_queue_mminfo(&srq->q, &resp.mi);
		err = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (err)
			goto free_queue;
	}
	return 0;

free_queue:
	sroce_queue_destroy(&srq->q);
uncount:
	atomic_dec(&sdev->nsrq);
	return err;
}

/*
 * A new ring of at least @max_wr slots holding the WQEs posted and not
 * yet taken, in order, and the limit @limit (if given) checked against
 * it, all applied at once or not at all. Called under srq->modify_mutex;
 * a user SRQ's provider also holds its own lock around the command, so
 * its producer index stands still.
 */
static int sroce_srq_resize(struct sroce_srq *srq, u32 max_wr,
			    const u32 *limit, struct ib_udata *udata)
{
	u32 elem = sroce_srq_elem_size(srq->max_sge);
	struct rxe_modify_srq_cmd cmd;
	struct sroce_queue nq, old;
	unsigned long flags;
	u32 n, i, new_limit;
	int err;

	if (max_wr < 1 || max_wr > SROCE_MAX_SRQ_WR)
		return sroce_refuse(srq->ibsrq.device, -EINVAL,
				    "modify_srq: max_wr %u (1 to %u)\n", max_wr,
				    SROCE_MAX_SRQ_WR);
	/* Where the provider wants the new ring's mminfo */
	if (udata) {
		if (udata->inlen < sizeof(cmd))
			return sroce_refuse(srq->ibsrq.device, -EINVAL,
					    "modify_srq: driver data short\n");
		if (ib_copy_from_udata(&cmd, udata, sizeof(cmd)))
			return -EFAULT;
	}
	err = sroce_queue_init(&nq, udata, max_wr, elem);
	if (err)
		return err;
	if (udata) {
		struct mminfo mi;

		sroce_queue_mminfo(&nq, &mi);
		if (copy_to_user(u64_to_user_ptr(cmd.mmap_info_addr), &mi,
				 sizeof(mi))) {
			sroce_queue_destroy(&nq);
			return -EFAULT;
		}
	}

	spin_lock_irqsave(&srq->lock, flags);
	n = sroce_queue_count(&srq->q);
	new_limit = limit ? *limit : srq->limit;
	if (n > sroce_queue_slots(&nq) - 1 ||
	    new_limit > sroce_queue_slots(&nq) - 1) {
		spin_unlock_irqrestore(&srq->lock, flags);
		sroce_queue_destroy(&nq);
		return sroce_refuse(srq->ibsrq.device, -EINVAL,
				    "modify_srq: %u entries cannot hold the %u posted, or a limit of %u\n",
				    max_wr, n, new_limit);
	}
	for (i = 0; i < n; i++)
		memcpy(sroce_queue_slot(&nq, i),
		       sroce_queue_slot(&srq->q, srq->q.own + i), elem);
	nq.buf->producer_index = n;
	old = srq->q;
	srq->q = nq;
	srq->limit = new_limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	sroce_queue_destroy(&old);
	return 0;
}

int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;
	int err = 0;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return sroce_refuse(ibsrq->device, -EINVAL,
				    "modify_srq: attribute mask %#x\n", mask);
	/* uverbs lets two modify commands of one SRQ run at once */
	mutex_lock(&srq->modify_mutex);
	if (mask & IB_SRQ_MAX_WR) {
		err = sroce_srq_resize(srq, attr->max_wr,
				       mask & IB_SRQ_LIMIT ? &attr->srq_limit :
							     NULL, udata);
	} else if (mask & IB_SRQ_LIMIT) {
		spin_lock_irqsave(&srq->lock, flags);
		if (attr->srq_limit > sroce_queue_slots(&srq->q) - 1)
			err = sroce_refuse(ibsrq->device, -EINVAL,
					   "modify_srq: limit %u over the %u entries\n",
					   attr->srq_limit,
					   sroce_queue_slots(&srq->q) - 1);
		else
			srq->limit = attr->srq_limit;
		spin_unlock_irqrestore(&srq->lock, flags);
	}
	mutex_unlock(&srq->modify_mutex);
	return err;
}

int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	attr->max_wr = sroce_queue_slots(&srq->q) - 1;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

/* The core calls this once no QP uses the SRQ. */
int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	sroce_queue_destroy(&to_ssrq(ibsrq)->q);
	atomic_dec(&to_sdev(ibsrq->device)->nsrq);
	return 0;
}
