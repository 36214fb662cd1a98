// SPDX-License-Identifier: GPL-2.0-only
/*
 * Completion queues: create, resize, destroy, the kernel poll path, arming
 * and the one place completions enter a CQ (sroce_cq_post()).
 *
 * The CQ lock is taken from any context (engines in softirq, kernel
 * callers polling from hard irq): always irqsave. The completion handler
 * is called with no lock held, QP locks included, since it may poll and
 * post (see sroce_qp_unlock()).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "sroce_compat.h"
#include "sroce_cq.h"
#include "sroce_param.h"
#include "sroce_trace.h"

/* libibverbs' IBV_WC_* flag values, which differ from the kernel's. */
#define SROCE_UWC_GRH		BIT(0)
#define SROCE_UWC_WITH_IMM	BIT(1)
#define SROCE_UWC_WITH_INV	BIT(3)

/*
 * A datagram's RoCE packet type in a user completion's SL, as RoCE
 * hardware reports it: bit 3 for a UDP header (RoCEv2), bits 2:0 the L3
 * header, 1 IPv6 and 2 IPv4. UCX's UD transport reads it to find the
 * destination address in the 40 bytes before the payload, and drops
 * every IPv4 datagram without it (Documentation/abi.rst).
 */
#define SROCE_UWC_SL_ROCEV2_IPV6	0x9
#define SROCE_UWC_SL_ROCEV2_IPV4	0xa

static u32 sroce_elem_size(bool user)
{
	return user ? sizeof(struct ib_uverbs_wc) : sizeof(struct ib_wc);
}

static void sroce_wc_to_user(struct ib_uverbs_wc *u, const struct ib_wc *wc)
{
	memset(u, 0, sizeof(*u));
	u->wr_id = wc->wr_id;
	u->status = wc->status;
	u->opcode = wc->opcode;
	u->vendor_err = wc->vendor_err;
	u->byte_len = wc->byte_len;
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE)
		u->ex.invalidate_rkey = wc->ex.invalidate_rkey;
	else
		u->ex.imm_data = wc->ex.imm_data;
	u->qp_num = wc->qp->qp_num;
	u->src_qp = wc->src_qp;
	if (wc->wc_flags & IB_WC_GRH)
		u->wc_flags |= SROCE_UWC_GRH;
	if (wc->wc_flags & IB_WC_WITH_IMM)
		u->wc_flags |= SROCE_UWC_WITH_IMM;
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE)
		u->wc_flags |= SROCE_UWC_WITH_INV;
	u->pkey_index = wc->pkey_index;
	u->sl = wc->sl;
	if (wc->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE)
		u->sl = wc->network_hdr_type == RDMA_NETWORK_IPV4 ?
			SROCE_UWC_SL_ROCEV2_IPV4 : SROCE_UWC_SL_ROCEV2_IPV6;
	u->port_num = wc->port_num;
}

/*
 * IB_EVENT_CQ_ERR, in process context: completions are posted under the
 * QP lock with interrupts off, and an event handler runs with no lock
 * held (Documentation/datapath.rst).
 */
static void sroce_cq_err_work(struct work_struct *work)
{
	struct sroce_cq *cq = container_of(work, struct sroce_cq, err_work);
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

/*
 * Add one completion. Returns true if the CQ's completion handler must be
 * called for it, which the caller does with sroce_cq_notify() once it
 * holds no lock (a handler may post to the very QP that completed). If
 * the consumer let the queue fill up, the entry is lost, as on hardware,
 * and IB_EVENT_CQ_ERR is raised from a work item: once per overflow,
 * i.e. until an entry fits again.
 */
bool sroce_cq_post(struct sroce_cq *cq, const struct ib_wc *wc,
		   bool solicited)
{
	unsigned long flags;
	bool notify = false;
	bool first;
	void *slot;

	spin_lock_irqsave(&cq->lock, flags);
	slot = sroce_queue_tail(&cq->q, cq->q.own);
	if (!slot) {
		first = !cq->overflow;
		cq->overflow = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		sroce_count(to_sdev(cq->ibcq.device), SROCE_CNT_CQ_OVERFLOWS);
		if (first)
			queue_work(sroce_wq, &cq->err_work);
		return false;
	}
	cq->overflow = false;
	if (cq->user)
		sroce_wc_to_user(slot, wc);
	else
		memcpy(slot, wc, sizeof(*wc));
	sroce_queue_publish(&cq->q, &cq->q.own);
	trace_sroce_cqe(cq->ibcq.device, cq->ibcq.res.id, wc);

	if ((cq->notify & IB_CQ_NEXT_COMP) ||
	    ((cq->notify & IB_CQ_SOLICITED) &&
	     (solicited || wc->status != IB_WC_SUCCESS))) {
		cq->notify = 0;
		notify = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return notify;
}

void sroce_cq_notify(struct sroce_cq *cq)
{
	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

static int sroce_cq_respond(struct sroce_cq *cq, struct ib_udata *udata)
{
	struct rxe_create_cq_resp resp;

	if (!udata)
		return 0;
	sroce_queue_mminfo(&cq->q, &resp.mi);
	return ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
}

/*
 * create_cq gets the udata, or (6.11+) the uverbs attribute bundle that
 * holds it; a kernel caller passes neither.
 */
#ifdef SROCE_HAVE_CREATE_CQ_ATTRS
int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct uverbs_attr_bundle *attrs)
{
	struct ib_udata *udata = attrs ? &attrs->driver_udata : NULL;
#else
int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata)
{
#endif
	struct sroce_cq *cq = to_scq(ibcq);
	int err;

	if (attr->flags)
		return sroce_refuse(ibcq->device, -EOPNOTSUPP,
				    "create_cq: flags %#x not supported\n",
				    attr->flags);
	if (attr->cqe < 1 || attr->cqe > SROCE_MAX_CQE ||
	    attr->comp_vector >= ibcq->device->num_comp_vectors)
		return sroce_refuse(ibcq->device, -EINVAL,
				    "create_cq: %d entries (1 to %u), completion vector %u (of %d)\n",
				    attr->cqe, SROCE_MAX_CQE, attr->comp_vector,
				    ibcq->device->num_comp_vectors);
	if (udata && udata->inlen)
		return sroce_refuse(ibcq->device, -EINVAL,
				    "create_cq: unexpected driver data\n");
	if (!atomic_add_unless(&to_sdev(ibcq->device)->ncq, 1, SROCE_MAX_CQ))
		return sroce_refuse(ibcq->device, -ENOMEM,
				    "create_cq: the device's %u CQs exist\n",
				    SROCE_MAX_CQ);

	spin_lock_init(&cq->lock);
	INIT_WORK(&cq->err_work, sroce_cq_err_work);
	cq->user = !!udata;
	err = sroce_queue_init(&cq->q, udata, attr->cqe,
			       sroce_elem_size(cq->user));
	if (err)
		goto uncount;
	ibcq->cqe = sroce_queue_slots(&cq->q) - 1;

	err = sroce_cq_respond(cq, udata);
	if (err)
		goto free_queue;
	return 0;

free_queue:
	sroce_queue_destroy(&cq->q);
uncount:
	atomic_dec(&to_sdev(ibcq->device)->ncq);
	return err;
}

int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);

	/* No QP uses the CQ any more: nothing queues the work again. */
	cancel_work_sync(&cq->err_work);
	sroce_queue_destroy(&cq->q);
	atomic_dec(&to_sdev(ibcq->device)->ncq);
	return 0;
}

/* Move the unpolled entries, oldest first, to a new queue. */
int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_queue nq, old;
	unsigned long flags;
	u32 cons, n, i;
	int err;

	if (cqe < 1 || cqe > SROCE_MAX_CQE)
		return sroce_refuse(ibcq->device, -EINVAL,
				    "resize_cq: %d entries (1 to %u)\n", cqe,
				    SROCE_MAX_CQE);
	err = sroce_queue_init(&nq, udata, cqe, sroce_elem_size(cq->user));
	if (err)
		return err;

	spin_lock_irqsave(&cq->lock, flags);
	cons = READ_ONCE(cq->q.buf->consumer_index) & cq->q.index_mask;
	n = (cq->q.own - cons) & cq->q.index_mask;
	if (n > sroce_queue_slots(&nq) - 1) {
		spin_unlock_irqrestore(&cq->lock, flags);
		sroce_queue_destroy(&nq);
		return sroce_refuse(ibcq->device, -EINVAL,
				    "resize_cq: %d entries cannot hold the %u unpolled\n",
				    cqe, n);
	}
	for (i = 0; i < n; i++)
		memcpy(sroce_queue_slot(&nq, i),
		       sroce_queue_slot(&cq->q, cons + i),
		       sroce_elem_size(cq->user));
	nq.own = n;
	nq.buf->producer_index = n;
	nq.buf->consumer_index = 0;
	old = cq->q;
	cq->q = nq;
	ibcq->cqe = sroce_queue_slots(&nq) - 1;
	spin_unlock_irqrestore(&cq->lock, flags);

	sroce_queue_destroy(&old);
	if (udata) {
		struct rxe_resize_cq_resp resp;

		sroce_queue_mminfo(&cq->q, &resp.mi);
		err = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
	}
	return err;
}

/* Kernel CQs only: user CQs are polled from the shared ring. */
int sroce_poll_cq(struct ib_cq *ibcq, int n, struct ib_wc *wc)
{
	struct sroce_cq *cq = to_scq(ibcq);
	unsigned long flags;
	int i = 0;

	spin_lock_irqsave(&cq->lock, flags);
	while (i < n) {
		u32 cons = cq->q.buf->consumer_index;

		if (cons == cq->q.own)
			break;
		memcpy(&wc[i++], sroce_queue_slot(&cq->q, cons), sizeof(*wc));
		sroce_queue_set_consumer(&cq->q, cons + 1);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return i;
}

int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sroce_cq *cq = to_scq(ibcq);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = flags & IB_CQ_SOLICITED_MASK;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    sroce_queue_consumer(&cq->q) != cq->q.own)
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
