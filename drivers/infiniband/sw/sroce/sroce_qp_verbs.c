// SPDX-License-Identifier: GPL-2.0-only
/*
 * The QP verbs: create/modify/query/destroy, the IBTA state machine and
 * the QP number table. Posting is in sroce_post.c; scheduling, and
 * moving a QP to the error state with its flush, in sroce_sched.c.
 *
 * RC, UC, UD and GSI QPs; the datagram path is sroce_glue_ud.c.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce/psn.h"
#include "sroce/ud.h"
#include "sroce.h"
#include "sroce_cc.h"
#include "sroce_cq.h"
#include "sroce_glue.h"
#include "sroce_mcast.h"
#include "sroce_mr.h"
#include "sroce_net.h"
#include "sroce_param.h"
#include "sroce_qp.h"
#include "sroce_sched.h"
#include "sroce_verbs.h"
#include "sroce_wqe.h"
#include "sroce_trace.h"

static int sroce_qp_check_caps(struct ib_device *ibdev,
			       const struct ib_qp_cap *cap)
{
	if (cap->max_send_wr > SROCE_MAX_QP_WR ||
	    cap->max_recv_wr > SROCE_MAX_QP_WR ||
	    cap->max_send_sge > SROCE_MAX_SGE ||
	    cap->max_recv_sge > SROCE_MAX_SGE ||
	    cap->max_inline_data > SROCE_MAX_INLINE)
		return sroce_refuse(ibdev, -EINVAL,
				    "create QP: caps over the device's (wr %u/%u of %u, sge %u/%u of %u, inline %u of %u)\n",
				    cap->max_send_wr, cap->max_recv_wr,
				    SROCE_MAX_QP_WR, cap->max_send_sge,
				    cap->max_recv_sge, SROCE_MAX_SGE,
				    cap->max_inline_data, SROCE_MAX_INLINE);
	return 0;
}

static int sroce_qp_init_queues(struct sroce_qp *qp, struct ib_qp_cap *cap,
				struct ib_udata *udata)
{
	u32 data, slots;
	int err;

	/* A WQE's data area holds either its SGE list or its inline data. */
	data = max_t(u32, max_t(u32, cap->max_send_sge, 1) *
		     sizeof(struct rxe_sge), cap->max_inline_data);
	data = roundup_pow_of_two(SROCE_SWQE_HDR + data) - SROCE_SWQE_HDR;
	data = min_t(u32, data, max_t(u32, SROCE_MAX_SGE * sizeof(struct rxe_sge),
				      SROCE_MAX_INLINE));
	qp->sq_data_size = data;
	qp->sq_max_sge = min_t(u32, data / sizeof(struct rxe_sge), SROCE_MAX_SGE);
	qp->sq_max_inline = min_t(u32, data, SROCE_MAX_INLINE);
	err = sroce_queue_init(&qp->sq, udata, max_t(u32, cap->max_send_wr, 1),
			       SROCE_SWQE_HDR + data);
	if (err)
		return err;

	/*
	 * With an SRQ, receive WQEs come from it: the QP's own RQ is a
	 * kernel-only stub that stays empty, and userspace gets no mapping.
	 */
	if (qp->srq) {
		qp->rq_max_sge = qp->srq->max_sge;
		err = sroce_queue_init(&qp->rq, NULL, 1, SROCE_RWQE_HDR);
	} else {
		qp->rq_max_sge = max_t(u32, cap->max_recv_sge, 1);
		err = sroce_queue_init(&qp->rq, udata,
				       max_t(u32, cap->max_recv_wr, 1),
				       SROCE_RWQE_HDR +
				       qp->rq_max_sge * sizeof(struct rxe_sge));
	}
	if (err)
		goto err_sq;

	slots = sroce_queue_slots(&qp->sq);
	qp->wqe = kvcalloc(slots, sizeof(*qp->wqe), GFP_KERNEL);
	qp->swqe = kvcalloc(slots, sizeof(*qp->swqe), GFP_KERNEL);
	qp->swqe_data = kvmalloc_array(slots, data, GFP_KERNEL);
	qp->rwqe = kzalloc(struct_size(qp->rwqe, sge, qp->rq_max_sge),
			   GFP_KERNEL);
	qp->rd_res = kcalloc(SROCE_MAX_QP_RD_ATOM, sizeof(*qp->rd_res),
			     GFP_KERNEL);
	if (!qp->wqe || !qp->swqe || !qp->swqe_data || !qp->rwqe ||
	    !qp->rd_res) {
		err = -ENOMEM;
		goto err_mem;
	}
	sroce_sq_init(&qp->sq_eng, qp->wqe, slots);
	sroce_cc_qp_init(qp);
	sroce_rq_init(&qp->rq_eng, qp->rd_res, SROCE_MAX_QP_RD_ATOM);

	cap->max_send_wr = slots - 1;
	cap->max_send_sge = qp->sq_max_sge;
	cap->max_inline_data = qp->sq_max_inline;
	cap->max_recv_wr = qp->srq ? 0 : sroce_queue_slots(&qp->rq) - 1;
	cap->max_recv_sge = qp->srq ? 0 : qp->rq_max_sge;
	return 0;

err_mem:
	kfree(qp->rd_res);
	kfree(qp->rwqe);
	kvfree(qp->swqe_data);
	kvfree(qp->swqe);
	kvfree(qp->wqe);
	sroce_queue_destroy(&qp->rq);
err_sq:
	sroce_queue_destroy(&qp->sq);
	return err;
}

static void sroce_qp_free_queues(struct sroce_qp *qp)
{
	kfree(qp->rd_res);
	kfree(qp->rwqe);
	kvfree(qp->swqe_data);
	kvfree(qp->swqe);
	kvfree(qp->wqe);
	sroce_queue_destroy(&qp->rq);
	sroce_queue_destroy(&qp->sq);
}

int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	u32 qpn;
	int err;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		/* The MAD layer's, one per port */
		if (udata || init->port_num != SROCE_PORT)
			return sroce_refuse(ibqp->device, -EINVAL,
					    "create QP: GSI QP from userspace or on port %u\n",
					    init->port_num);
		break;
	default:
		return sroce_refuse(ibqp->device, -EOPNOTSUPP,
				    "create QP: type %d not supported\n",
				    init->qp_type);
	}
	if (init->create_flags)
		return sroce_refuse(ibqp->device, -EOPNOTSUPP,
				    "create QP: create_flags 0x%x not supported\n",
				    init->create_flags);
	if (udata && udata->inlen)
		return sroce_refuse(ibqp->device, -EINVAL,
				    "create QP: %zu bytes of driver input, none expected\n",
				    udata->inlen);
	err = sroce_qp_check_caps(ibqp->device, &init->cap);
	if (err)
		return err;

	qp->sdev = sdev;
	qp->user = !!udata;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->srq = init->srq ? to_ssrq(init->srq) : NULL;
	qp->scq = to_scq(init->send_cq);
	qp->rcq = to_scq(init->recv_cq);
	qp->state = IB_QPS_RESET;
	qp->mtu = 256;
	qp->path_mtu = IB_MTU_256;
	spin_lock_init(&qp->lock);
	__skb_queue_head_init(&qp->txq);
	INIT_LIST_HEAD(&qp->mca_list);
	refcount_set(&qp->refs, 1);
	init_completion(&qp->released);
	INIT_WORK(&qp->work, sroce_qp_work);
	timer_setup(&qp->retrans_timer, sroce_retrans_timer, 0);
	timer_setup(&qp->rnr_timer, sroce_rnr_timer, 0);
	hrtimer_init(&qp->pace_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	qp->pace_timer.function = sroce_pace_timer;

	sroce_route_init(&qp->route);
	err = sroce_tx_ctx_create(qp);
	if (err)
		return err;
	err = sroce_qp_init_queues(qp, &init->cap, udata);
	if (err)
		goto err_tx;
	/* zero copy: user RC requesters only (sroce_pkt_zcopy()) */
	if (init->qp_type == IB_QPT_RC && udata) {
		err = sroce_tx_ctx_zc_init(qp->tx, qp->sq.index_mask + 1);
		if (err)
			goto err_queues;
	}
	if (init->qp_type == IB_QPT_UC) {
		sroce_sq_set_uc(&qp->sq_eng);
		sroce_rq_set_uc(&qp->rq_eng);
	}

	if (init->qp_type == IB_QPT_GSI) {
		qpn = SROCE_GSI_QPN;
		err = xa_insert(&sdev->qp_table, qpn, qp, GFP_KERNEL);
	} else {
		/*
		 * Cyclic, as MR indexes and AH numbers: a destroyed QP's
		 * number comes back only after the whole range, so a stale
		 * peer's packets, or forged ones aimed at the old QP, do not
		 * reach the next QP created (1 means the range wrapped).
		 */
		err = xa_alloc_cyclic(&sdev->qp_table, &qpn, qp,
				      XA_LIMIT(SROCE_MIN_QPN, SROCE_MAX_QPN),
				      &sdev->qp_next, GFP_KERNEL);
		if (err > 0)
			err = 0;
		/* max_qp reached, as for every other object */
		if (err == -EBUSY)
			err = -ENOMEM;
	}
	if (err)
		goto err_queues;
	ibqp->qp_num = qpn;
	qp->uid = atomic64_inc_return(&sdev->qp_uid);

	if (udata) {
		struct rxe_create_qp_resp resp = {};

		sroce_queue_mminfo(&qp->rq, &resp.rq_mi);
		sroce_queue_mminfo(&qp->sq, &resp.sq_mi);
		err = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (err)
			goto err_xa;
	}
	return 0;

err_xa:
	xa_erase(&sdev->qp_table, qpn);
	/*
	 * A packet may have found it meanwhile (a forged one, at a guessed
	 * QPN): as in destroy_qp, wait for such readers before the core
	 * frees it.
	 */
	synchronize_rcu();
	sroce_qp_put(qp);
	wait_for_completion(&qp->released);
err_queues:
	sroce_qp_free_queues(qp);
err_tx:
	sroce_tx_ctx_put(qp->tx);
	return err;
}

/* Engine state back to zero; qp->lock held. */
static void sroce_qp_reset(struct sroce_qp *qp)
{
	sroce_sq_reset(&qp->sq_eng);
	sroce_cc_budget_settle(qp);	/* gives back what it held */
	sroce_rq_reset(&qp->rq_eng);
	qp->rwqe_valid = false;
	qp->last_wqe_sent = false;
	qp->ud_psn = 0;
	/* The queues start empty again, as the provider expects. */
	qp->sq.own = 0;
	qp->sq_done = 0;
	qp->sq_drained_owed = false;
	qp->rq.own = 0;
	qp->sq.buf->producer_index = 0;
	qp->sq.buf->consumer_index = 0;
	qp->rq.buf->producer_index = 0;
	qp->rq.buf->consumer_index = 0;
}

/* Hand the engines the attributes they act on. qp->lock held. */
static void sroce_qp_config_engines(struct sroce_qp *qp)
{
	sroce_sq_config(&qp->sq_eng, qp->mtu, qp->max_rd_atomic,
			qp->retry_cnt, qp->rnr_retry, qp->timeout);
	sroce_rq_config(&qp->rq_eng, qp->mtu, qp->max_dest_rd_atomic,
			qp->access & (IB_ACCESS_REMOTE_WRITE |
				      IB_ACCESS_REMOTE_READ |
				      IB_ACCESS_REMOTE_ATOMIC),
			qp->min_rnr_timer);
}

static int sroce_qp_set_av(struct sroce_qp *qp, struct rdma_ah_attr *ah)
{
	__be16 sport = qp->av.sport;	/* set with the destination QPN */
	u32 gen = qp->av.gen;
	int err;

	err = sroce_av_from_attr(&qp->av, ah);
	if (err)
		return err;
	qp->av.sport = sport;
	/* packets built from now on take a route of the new path */
	qp->av.gen = gen + 1;
	qp->ah_attr = *ah;
	qp->ah_attr.grh.sgid_attr = NULL;
	return 0;
}

/*
 * modify_qp's attributes, each within what IBA and the device allow, or
 * the request is refused (why: sroce_refuse()). @cur is the QP's state.
 */
static int sroce_qp_check_attr(struct sroce_qp *qp,
			       const struct ib_qp_attr *attr, int mask,
			       enum ib_qp_state cur)
{
	struct ib_qp *ibqp = &qp->ibqp;
	enum ib_mtu port_mtu;

	if ((mask & IB_QP_PORT) && attr->port_num != SROCE_PORT)
		return sroce_refuse(ibqp->device, -EINVAL,
				    "QP %u: modify: port %u, the device has port 1\n",
				    ibqp->qp_num, attr->port_num);
	if ((mask & IB_QP_PKEY_INDEX) &&
	    attr->pkey_index >= SROCE_PORT_PKEY_TBL_LEN)
		return sroce_refuse(ibqp->device, -EINVAL,
				    "QP %u: modify: P_Key index %u out of the table\n",
				    ibqp->qp_num, attr->pkey_index);
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > SROCE_MAX_QP_RD_ATOM)
		return sroce_refuse(ibqp->device, -EINVAL,
				    "QP %u: modify: max_rd_atomic %u over %u\n",
				    ibqp->qp_num, attr->max_rd_atomic,
				    SROCE_MAX_QP_RD_ATOM);
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SROCE_MAX_QP_RD_ATOM)
		return sroce_refuse(ibqp->device, -EINVAL,
				    "QP %u: modify: max_dest_rd_atomic %u over %u\n",
				    ibqp->qp_num, attr->max_dest_rd_atomic,
				    SROCE_MAX_QP_RD_ATOM);
	/*
	 * The responder's ring of READ and atomic resources is laid out
	 * at RTR; resizing it under a live connection (SQD -> SQD) would
	 * drop results still owed to the requester.
	 */
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) && cur == IB_QPS_SQD &&
	    attr->max_dest_rd_atomic != qp->max_dest_rd_atomic)
		return sroce_refuse(ibqp->device, -EINVAL,
				    "QP %u: modify: max_dest_rd_atomic changed in SQD\n",
				    ibqp->qp_num);
	if (((mask & IB_QP_TIMEOUT) && attr->timeout > 31) ||
	    ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7) ||
	    ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7) ||
	    ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31))
		return sroce_refuse(ibqp->device, -EINVAL,
				    "QP %u: modify: timeout %u, retry_cnt %u, rnr_retry %u or min_rnr_timer %u out of range\n",
				    ibqp->qp_num, attr->timeout,
				    attr->retry_cnt, attr->rnr_retry,
				    attr->min_rnr_timer);
	/*
	 * Packets of a larger path MTU would not fit the netdev: refused,
	 * like hardware does, rather than quietly lowered.
	 */
	port_mtu = sroce_active_mtu(qp->sdev);
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > port_mtu))
		return sroce_refuse(ibqp->device, -EINVAL,
				    "QP %u: modify: path MTU %d over the port's %d\n",
				    ibqp->qp_num, ib_mtu_enum_to_int(attr->path_mtu),
				    ib_mtu_enum_to_int(port_mtu));
	return 0;
}

int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	enum ib_qp_state cur, next;
	unsigned long flags;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return sroce_refuse(ibqp->device, -EOPNOTSUPP,
				    "QP %u: modify: attribute mask 0x%x not supported\n",
				    ibqp->qp_num, mask);
	if (udata && udata->inlen)
		return sroce_refuse(ibqp->device, -EINVAL,
				    "QP %u: modify: %zu bytes of driver input, none expected\n",
				    ibqp->qp_num, udata->inlen);

	/* The QP's state is ours to know: a caller's claim must match it */
	cur = READ_ONCE(qp->state);
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur)
		return sroce_refuse(ibqp->device, -EINVAL,
				    "QP %u: modify: current state %d claimed, %d it is\n",
				    ibqp->qp_num, attr->cur_qp_state, cur);
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask))
		return sroce_refuse(ibqp->device, -EINVAL,
				    "QP %u: modify: %d -> %d with mask 0x%x is not a transition IBA allows\n",
				    ibqp->qp_num, cur, next, mask);

	err = sroce_qp_check_attr(qp, attr, mask, cur);
	if (err)
		return err;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state != cur) {
		/* another modify, or an error, came in between */
		sroce_qp_unlock(qp, flags);
		return -EINVAL;
	}
	if (mask & IB_QP_AV) {
		err = sroce_qp_set_av(qp, &attr->ah_attr);
		if (err) {
			sroce_qp_unlock(qp, flags);
			return err;
		}
	}
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		qp->pkey_index = attr->pkey_index;
	if (mask & IB_QP_QKEY)
		qp->qkey = attr->qkey;
	if (mask & IB_QP_PATH_MTU) {
		qp->path_mtu = attr->path_mtu;
		qp->mtu = ib_mtu_enum_to_int(qp->path_mtu);
	}
	if (mask & IB_QP_TIMEOUT)
		qp->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		qp->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		qp->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_RQ_PSN)
		sroce_rq_set_psn(&qp->rq_eng, attr->rq_psn);
	if (mask & IB_QP_SQ_PSN) {
		qp->sq_psn = sroce_psn_mask(attr->sq_psn);
		qp->ud_psn = qp->sq_psn;
		sroce_sq_set_psn(&qp->sq_eng, attr->sq_psn);
	}
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_DEST_QPN) {
		qp->dest_qpn = attr->dest_qp_num & SROCE_QPN_MASK;
		qp->av.sport = sroce_flow_sport(qp->ibqp.qp_num,
						qp->dest_qpn);
	}

	sroce_qp_config_engines(qp);

	if (next != cur || (mask & IB_QP_STATE)) {
		struct sroce_sq_act act = {};

		if (next == IB_QPS_RESET)
			sroce_qp_reset(qp);
		if (next == IB_QPS_RTR || next == IB_QPS_RTS ||
		    next == IB_QPS_SQD)
			sroce_rq_start(&qp->rq_eng);
		if (next == IB_QPS_RTS)
			sroce_sq_start(&qp->sq_eng);
		if (next == IB_QPS_SQD && cur == IB_QPS_RTS)
			sroce_sq_drain(&qp->sq_eng, &act);
		trace_sroce_qp_state(qp->ibqp.device, qp->ibqp.qp_num, cur,
				     next);
		WRITE_ONCE(qp->state, next);
		if (act.drained)
			sroce_glue_sq_drained(qp);
		if (next == IB_QPS_ERR)
			sroce_qp_fail(qp);
	}
	sroce_qp_unlock(qp, flags);

	if (next == IB_QPS_RTS || next == IB_QPS_ERR)
		sroce_qp_kick(qp);
	return 0;
}

int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	unsigned long flags;

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	spin_lock_irqsave(&qp->lock, flags);
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->path_mtu = qp->path_mtu;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = qp->qkey;
	attr->rq_psn = qp->rq_eng.epsn;
	attr->sq_psn = qp->sq_psn;
	attr->dest_qp_num = qp->dest_qpn;
	attr->qp_access_flags = qp->access;
	attr->pkey_index = qp->pkey_index;
	attr->port_num = SROCE_PORT;
	attr->timeout = qp->timeout;
	attr->retry_cnt = qp->retry_cnt;
	attr->rnr_retry = qp->rnr_retry;
	attr->min_rnr_timer = qp->min_rnr_timer;
	attr->max_rd_atomic = qp->max_rd_atomic;
	attr->max_dest_rd_atomic = qp->max_dest_rd_atomic;
	attr->ah_attr = qp->ah_attr;
	attr->cap.max_send_wr = sroce_queue_slots(&qp->sq) - 1;
	attr->cap.max_recv_wr = qp->srq ? 0 : sroce_queue_slots(&qp->rq) - 1;
	attr->cap.max_send_sge = qp->sq_max_sge;
	attr->cap.max_recv_sge = qp->srq ? 0 : qp->rq_max_sge;
	attr->cap.max_inline_data = qp->sq_max_inline;
	sroce_qp_unlock(qp, flags);

	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	unsigned long flags;

	sroce_mcast_detach_all(qp);
	/*
	 * No new packet finds it, and no destructor of a packet the stack
	 * still holds wakes it, once readers that found it before are gone
	 * (a grace period: the RDMA core frees the QP when we return).
	 * Those packets reference only qp->tx: we do not wait for them.
	 */
	xa_erase(&qp->sdev->qp_table, ibqp->qp_num);
	sroce_tx_ctx_detach(qp);

	/*
	 * Engines back to idle: from now on no packet, timer, work item or
	 * kick finds anything to do, so none sends more or re-arms a timer
	 * after the syncs below.
	 */
	spin_lock_irqsave(&qp->lock, flags);
	WRITE_ONCE(qp->state, IB_QPS_RESET);
	sroce_sq_reset(&qp->sq_eng);
	sroce_cc_budget_settle(qp);	/* gives back what it held */
	qp->sq_done = 0;
	qp->sq_drained_owed = false;
	sroce_rq_reset(&qp->rq_eng);
	sroce_qp_unlock(qp, flags);
	/*
	 * Expedited: a normal grace period is several ticks (12 ms per QP
	 * in a guest), and a process that exits with 4096 QPs waits for
	 * one per QP, 50 s in all; expedited, each is an IPI to the other
	 * CPUs, done at once.
	 */
	synchronize_rcu_expedited();

	/* Wait for the packets being received. */
	sroce_qp_put(qp);
	wait_for_completion(&qp->released);
	del_timer_sync(&qp->retrans_timer);
	del_timer_sync(&qp->rnr_timer);
	hrtimer_cancel(&qp->pace_timer);
	cancel_work_sync(&qp->work);
	/* every context that queued a packet has sent it (sroce_qp_xmit()) */
	WARN_ON_ONCE(!skb_queue_empty(&qp->txq));
	__skb_queue_purge(&qp->txq);
	sroce_tx_ctx_put(qp->tx);

	sroce_qp_free_queues(qp);
	sroce_route_release(&qp->route);
	/* the core unbound it from its counter before calling us */
	sroce_qp_stats_drop(qp);
	return 0;
}
