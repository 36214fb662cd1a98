// SPDX-License-Identifier: GPL-2.0-only
/*
 * Work-queue formats: the rxe provider's ring entries, both ways.
 *
 * Kernel callers' work requests are written into the rings in the format
 * the provider writes (sroce_wqe_post_send(), sroce_wqe_post_recv()), so
 * that the engines read one format only. Reading, every entry is copied
 * out of its ring once, when an engine first reaches it, and checked on
 * the copy: the ring is shared with userspace and may change under us.
 * The checks are the core's (core/sroce_ring.c: pure, unit-tested and
 * fuzzed on the host), for user rings and kernel posts alike.
 * An RC or UC send entry goes to its private slot (sroce_wqe_fetch_rc()),
 * a UD one to the datagram it describes (sroce_wqe_fetch_ud()), a receive
 * entry to qp->rwqe (sroce_wqe_take_recv()). The data an entry's SGEs
 * name is copied by sroce_wqe_sge_copy(), or attached to a packet as
 * page fragments by sroce_wqe_sge_frags(), lkeys checked at each use.
 *
 * Objects only below this file (queues, MRs, AHs, the port): nothing here
 * sends, completes or schedules.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "sroce/psn.h"
#include "sroce/rc_engine.h"
#include "sroce/ring.h"
#include "sroce/ud.h"
#include "sroce.h"
#include "sroce_param.h"
#include "sroce_qp.h"
#include "sroce_wqe.h"
/*
 * Walk @sge from message offset @off for @len bytes, calling @fn on each
 * SGE's piece (its MR referenced for the call), until @fn fails. Each
 * SGE's lkey is checked (PD, range and @access) at the moment of use:
 * -EACCES if one fails, -EINVAL if the SGEs hold fewer bytes.
 */
static int sroce_wqe_sge_walk(struct sroce_qp *qp, const struct rxe_sge *sge,
			      u32 nsge, u32 off, u32 len, u32 access,
			      int (*fn)(struct sroce_mr *mr, u64 iova, u32 n,
					void *arg),
			      void *arg)
{
	u32 i;

	for (i = 0; i < nsge && len; i++) {
		struct sroce_mr *mr;
		u32 n;
		int err;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = min(len, sge[i].length - off);
		mr = sroce_mr_get(qp->sdev, qp->ibqp.pd, sge[i].lkey, access,
				  sge[i].addr + off, n);
		if (!mr)
			return -EACCES;
		err = fn(mr, sge[i].addr + off, n, arg);
		sroce_mr_put(mr);
		if (err)
			return err;
		len -= n;
		off = 0;
	}
	return len ? -EINVAL : 0;
}

struct sroce_sge_copy {
	void			*buf;
	enum sroce_copy_dir	dir;
};

static int sroce_sge_copy_one(struct sroce_mr *mr, u64 iova, u32 n, void *arg)
{
	struct sroce_sge_copy *c = arg;

	sroce_mr_copy(mr, iova, c->buf, n, c->dir);
	c->buf += n;
	return 0;
}

int sroce_wqe_sge_copy(struct sroce_qp *qp, const struct rxe_sge *sge, u32 nsge,
		       u32 off, void *buf, u32 len, enum sroce_copy_dir dir)
{
	struct sroce_sge_copy c = { .buf = buf, .dir = dir };

	return sroce_wqe_sge_walk(qp, sge, nsge, off, len,
				  dir == SROCE_TO_MR ? IB_ACCESS_LOCAL_WRITE : 0,
				  sroce_sge_copy_one, &c);
}

static int sroce_sge_frags_one(struct sroce_mr *mr, u64 iova, u32 n, void *arg)
{
	/* one fragment slot stays free for the pad and ICRC */
	return sroce_mr_frags(mr, iova, n, arg, MAX_SKB_FRAGS - 1);
}

int sroce_wqe_sge_frags(struct sroce_qp *qp, const struct rxe_sge *sge,
			u32 nsge, u32 off, u32 len, struct sk_buff *skb)
{
	return sroce_wqe_sge_walk(qp, sge, nsge, off, len, 0,
				  sroce_sge_frags_one, skb);
}

enum ib_wc_opcode sroce_wqe_wc_opcode(u32 wr_opcode)
{
	switch (wr_opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case SROCE_UWR_ATOMIC_WRITE:
		return (enum ib_wc_opcode)SROCE_UWC_ATOMIC_WRITE;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case IB_WR_BIND_MW:
		return IB_WC_BIND_MW;
	default:
		return IB_WC_SEND;
	}
}

/* What @qp's send queue takes, for the ring-entry checks */
static void sroce_sq_caps(const struct sroce_qp *qp, struct sroce_sq_caps *caps)
{
	if (sroce_qp_is_ud(qp))
		caps->type = SROCE_QPT_UD;
	else if (qp->ibqp.qp_type == IB_QPT_UC)
		caps->type = SROCE_QPT_UC;
	else
		caps->type = SROCE_QPT_RC;
	caps->user = qp->user;
	caps->max_sge = qp->sq_max_sge;
	caps->max_inline = qp->sq_max_inline;
	caps->mtu = qp->sq_eng.mtu;
}

/*
 * Copy send entry @slot (shared with userspace, which may change it under
 * us) once and have it checked on the copy: the header into @hdr, then
 * the data area it describes into @data. Returns an ib_wc_status; @e is
 * filled either way (wr_id and opcode always hold).
 */
static enum ib_wc_status sroce_wqe_fetch(struct sroce_qp *qp,
					 const struct rxe_send_wqe *slot,
					 u8 *hdr, void *data,
					 struct sroce_send_entry *e)
{
	struct sroce_sq_caps caps;
	u8 st;

	memcpy(hdr, slot, SROCE_SWQE_HDR_LEN);
	sroce_sq_caps(qp, &caps);
	st = sroce_ring_send_hdr(hdr, &caps, e);
	if (st != SROCE_WC_SUCCESS)
		return st;
	/* at most max_sge SGEs or max_inline bytes: the slot's data area */
	memcpy(data, slot->dma.inline_data, e->data_len);
	return sroce_ring_send_data(data, &caps, e);
}

/*
 * Copy SQ slot @idx of an RC or UC QP into its private entries (the
 * engine's and the glue's) and check it; from then on only the copy is
 * used. Returns an ib_wc_status, IB_WC_SUCCESS when usable.
 */
enum ib_wc_status sroce_wqe_fetch_rc(struct sroce_qp *qp, u32 idx)
{
	const struct rxe_send_wqe *slot = sroce_queue_slot(&qp->sq, idx);
	struct sroce_wqe *w = &qp->wqe[idx & qp->sq.index_mask];
	struct sroce_swqe *sw = &qp->swqe[idx & qp->sq.index_mask];
	u8 hdr[SROCE_SWQE_HDR_LEN];
	struct sroce_send_entry e;
	enum ib_wc_status st;

	memset(sw, 0, sizeof(*sw));
	memset(w, 0, sizeof(*w));
	sw->data = qp->swqe_data + (size_t)(idx & qp->sq.index_mask) *
		   qp->sq_data_size;
	st = sroce_wqe_fetch(qp, slot, hdr, sw->data, &e);
	w->kind = e.kind;
	w->flags = e.wqe_flags;
	w->remote_addr = e.remote_addr;
	w->rkey = e.rkey;
	w->swap_add = e.swap_add;
	w->compare = e.compare;
	w->length = e.length;
	sw->wr_id = e.wr_id;
	sw->opcode = e.opcode;
	sw->imm = (__force __be32)e.ex;
	sw->inv_rkey = e.ex;
	sw->inlined = e.inlined;
	sw->num_sge = e.inlined ? 0 : e.num_sge;
	sw->reg_mr = (struct ib_mr *)(uintptr_t)e.reg_mr;
	sw->reg_key = e.reg_key;
	sw->reg_access = e.reg_access;
	sw->mw_rkey = e.mw_rkey;
	sw->bind_rkey = e.mw_new_rkey;
	sw->mr_lkey = e.mw_lkey;
	sw->bind_addr = e.mw_addr;
	sw->bind_length = e.mw_length;
	sw->bind_access = e.mw_access;
	return st;
}

/*
 * Copy the UD send entry at @slot and check it; on success @e, @s and
 * @av describe the datagram and the SGE list or inline bytes are in
 * @data. @e->wr_id holds either way.
 */
enum ib_wc_status sroce_wqe_fetch_ud(struct sroce_qp *qp,
				     const struct rxe_send_wqe *slot,
				     struct sroce_send_entry *e,
				     struct sroce_ud_send *s,
				     struct sroce_av *av, void *data)
{
	u8 hdr[SROCE_SWQE_HDR_LEN];
	enum ib_wc_status st;

	st = sroce_wqe_fetch(qp, slot, hdr, data, e);
	if (st != IB_WC_SUCCESS)
		return st;
	memset(s, 0, sizeof(*s));
	s->imm = e->opcode == IB_WR_SEND_WITH_IMM;
	s->imm_data = be32_to_cpu((__force __be32)e->ex);
	s->se = e->flags & IB_SEND_SOLICITED;
	s->remote_qpn = e->remote_qpn;
	s->remote_qkey = e->remote_qkey;
	s->length = e->length;
	/*
	 * A user WQE names its AH by number; a kernel WQE (in kernel
	 * memory) carries the address vector, copied at post time.
	 */
	if (!qp->user)
		memcpy(av, hdr + SROCE_SWQE_WR + SROCE_SWR_UD_AV, sizeof(*av));
	else if (!sroce_ah_get_av(qp->sdev, qp->ibqp.pd, e->ah_num, av))
		return IB_WC_LOC_QP_OP_ERR;
	av->sport = sroce_flow_sport(qp->ibqp.qp_num, s->remote_qpn);
	return IB_WC_SUCCESS;
}

/*
 * Kernel callers: turn an ib_send_wr into an SQ entry, and refuse it
 * (-EINVAL) unless it passes the checks every entry passes when the
 * requester takes it (sroce_ring_send_hdr(), sroce_ring_send_data()):
 * a kernel caller learns at once. A few rules only a kernel caller's WR
 * can break are checked before that: the WR container its opcode names,
 * the AH and its PD, a LOCAL_INV or REG_MR with data, a misaligned
 * atomic (refused now rather than NAKed by the peer), a datagram beyond
 * the active MTU. qp->lock held.
 */
int sroce_wqe_post_send(struct sroce_qp *qp, const struct ib_send_wr *wr)
{
	u32 prod = qp->sq.buf->producer_index;
	struct sroce_send_entry e;
	struct rxe_send_wqe *wqe;
	struct sroce_sq_caps caps;
	int i;

	if (wr->num_sge < 0 || wr->num_sge > qp->sq_max_sge)
		return -EINVAL;
	/* which of the WR's containers to read depends on these */
	if (sroce_qp_is_ud(qp) && (!ud_wr(wr)->ah ||
				   ud_wr(wr)->ah->pd != qp->ibqp.pd ||
				   (wr->opcode != IB_WR_SEND &&
				    wr->opcode != IB_WR_SEND_WITH_IMM)))
		return -EINVAL;
	switch (wr->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_READ:
		break;
	case IB_WR_LOCAL_INV:
	case IB_WR_REG_MR:
		/* nothing to send: no data, no SGEs */
		if (wr->num_sge || (wr->send_flags & IB_SEND_INLINE) ||
		    (wr->opcode == IB_WR_REG_MR && !reg_wr(wr)->mr))
			return -EINVAL;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		if (atomic_wr(wr)->remote_addr & 7)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	wqe = sroce_queue_tail(&qp->sq, prod);
	if (!wqe)
		return -ENOMEM;

	memset(wqe, 0, SROCE_SWQE_HDR);
	wqe->wr.wr_id = wr->wr_id;
	wqe->wr.opcode = wr->opcode;
	wqe->wr.send_flags = wr->send_flags;
	if (wr->opcode == IB_WR_SEND_WITH_INV ||
	    wr->opcode == IB_WR_LOCAL_INV)
		wqe->wr.ex.invalidate_rkey = wr->ex.invalidate_rkey;
	else
		wqe->wr.ex.imm_data = wr->ex.imm_data;
	if (wr->opcode == IB_WR_REG_MR) {
		/* the ring is kernel memory: the ib_mr itself */
		wqe->wr.wr.reg.mr = reg_wr(wr)->mr;
		wqe->wr.wr.reg.key = reg_wr(wr)->key;
		wqe->wr.wr.reg.access = reg_wr(wr)->access;
	}
	if (wr->opcode == IB_WR_RDMA_WRITE ||
	    wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM ||
	    wr->opcode == IB_WR_RDMA_READ) {
		wqe->wr.wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.wr.rdma.rkey = rdma_wr(wr)->rkey;
	}
	if (sroce_wr_atomic(wr->opcode)) {
		wqe->wr.wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->wr.wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->wr.wr.atomic.swap = atomic_wr(wr)->swap;
		wqe->wr.wr.atomic.rkey = atomic_wr(wr)->rkey;
	}
	if (sroce_qp_is_ud(qp)) {
		wqe->wr.wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		wqe->wr.wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		wqe->wr.wr.ud.pkey_index = ud_wr(wr)->pkey_index;
		/* The ring is kernel memory: the AV itself, not a number */
		BUILD_BUG_ON(sizeof(struct sroce_av) >
			     sizeof(wqe->wr.wr.ud.av));
		memcpy(&wqe->wr.wr.ud.av, &to_sah(ud_wr(wr)->ah)->av,
		       sizeof(struct sroce_av));
	}
	if (wr->send_flags & IB_SEND_INLINE) {
		u32 len = 0;

		for (i = 0; i < wr->num_sge; i++) {
			u32 n = wr->sg_list[i].length;

			/* The room left: a sum could wrap past the limit. */
			if (n > qp->sq_max_inline - len)
				return -EINVAL;
			len += n;
		}
		wqe->dma.length = len;
	} else {
		wqe->dma.num_sge = wr->num_sge;
	}
	/*
	 * Kernel memory, written just now: checked in place, the header
	 * before a byte of data is read (an inline atomic, say, is refused
	 * without its addresses being touched), the data after.
	 */
	sroce_sq_caps(qp, &caps);
	if (sroce_ring_send_hdr((const u8 *)wqe, &caps, &e))
		return -EINVAL;
	if (wr->send_flags & IB_SEND_INLINE) {
		u8 *p = wqe->dma.inline_data;
		u32 len = 0;

		for (i = 0; i < wr->num_sge; i++) {
			u32 n = wr->sg_list[i].length;

			/* Kernel callers hand kernel virtual addresses. */
			memcpy(p + len, (void *)(uintptr_t)wr->sg_list[i].addr, n);
			len += n;
		}
	} else {
		for (i = 0; i < wr->num_sge; i++) {
			wqe->dma.sge[i].addr = wr->sg_list[i].addr;
			wqe->dma.sge[i].length = wr->sg_list[i].length;
			wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
		}
	}
	if (sroce_ring_send_data(wqe->dma.inline_data, &caps, &e))
		return -EINVAL;
	if (sroce_qp_is_ud(qp) &&
	    e.length > ib_mtu_enum_to_int(sroce_active_mtu(qp->sdev)))
		return -EINVAL;
	sroce_queue_publish(&qp->sq, &prod);
	return 0;
}

/*
 * Kernel callers' receive WRs into ring @q, a QP's RQ or an SRQ, each of
 * at most @max_sge SGEs. The ring's lock is held. Returns 0, or the error
 * with *@bad_wr set to the WR refused.
 */
int sroce_wqe_post_recv(struct sroce_queue *q, u32 max_sge,
			const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	int i;

	for (; wr; wr = wr->next) {
		u32 prod = q->buf->producer_index;
		struct rxe_recv_wqe *wqe = sroce_queue_tail(q, prod);

		if (!wqe || wr->num_sge < 0 || wr->num_sge > max_sge) {
			*bad_wr = wr;
			return wqe ? -EINVAL : -ENOMEM;
		}
		memset(wqe, 0, SROCE_RWQE_HDR);
		wqe->wr_id = wr->wr_id;
		wqe->dma.num_sge = wr->num_sge;
		for (i = 0; i < wr->num_sge; i++) {
			wqe->dma.sge[i].addr = wr->sg_list[i].addr;
			wqe->dma.sge[i].length = wr->sg_list[i].length;
			wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
		}
		sroce_queue_publish(q, &prod);
	}
	return 0;
}

/*
 * Copy the WQE at @slot into qp->rwqe: its SGE list, checked. False if
 * it has more SGEs than allowed: it then holds nothing, and any payload
 * completes it in error.
 */
static bool sroce_recv_copy(struct sroce_qp *qp,
			    const struct rxe_recv_wqe *slot, u32 max_sge)
{
	u8 hdr[SROCE_RWQE_HDR_LEN];
	bool ok;

	memcpy(hdr, slot, sizeof(hdr));
	ok = sroce_ring_recv_hdr(hdr, max_sge, &qp->rwqe->wr_id,
				 &qp->rwqe->num_sge);
	qp->rwqe->length = 0;
	if (ok) {
		memcpy(qp->rwqe->sge, slot->dma.sge,
		       qp->rwqe->num_sge * sizeof(struct rxe_sge));
		qp->rwqe->length = sroce_ring_recv_len((const u8 *)qp->rwqe->sge,
						       qp->rwqe->num_sge);
	}
	qp->rwqe_valid = true;
	return ok;
}

/*
 * A well-formed WQE too small for a datagram of @need bytes is left
 * posted, and the datagram dropped (IBTA class D): otherwise anyone could
 * empty a GSI QP's receive queue with datagrams bigger than a MAD, and
 * the MAD layer does not repost a receive that failed.
 */
static bool sroce_recv_short(struct sroce_qp *qp, bool wellformed, u32 need)
{
	if (!wellformed || qp->rwqe->length >= need)
		return false;
	qp->rwqe_valid = false;
	return true;
}

/*
 * Take the next receive WQE for @qp, from its SRQ if it has one, into
 * qp->rwqe, if it holds @need bytes (see sroce_recv_short(); RC passes
 * 0: its messages span WQE checks of their own). qp->lock held.
 */
enum sroce_recv sroce_wqe_take_recv(struct sroce_qp *qp, u32 need)
{
	struct sroce_srq *srq = qp->srq;
	const struct rxe_recv_wqe *slot;
	bool wellformed;
	u32 left;

	if (!srq) {
		slot = sroce_queue_head(&qp->rq);
		if (!slot)
			return SROCE_RECV_NONE;
		wellformed = sroce_recv_copy(qp, slot, qp->rq_max_sge);
		if (sroce_recv_short(qp, wellformed, need))
			return SROCE_RECV_SHORT;
		sroce_queue_pop(&qp->rq);
		return SROCE_RECV_TAKEN;
	}

	spin_lock(&srq->lock);
	slot = sroce_queue_head(&srq->q);
	if (!slot) {
		spin_unlock(&srq->lock);
		return SROCE_RECV_NONE;
	}
	wellformed = sroce_recv_copy(qp, slot, srq->max_sge);
	if (sroce_recv_short(qp, wellformed, need)) {
		spin_unlock(&srq->lock);
		return SROCE_RECV_SHORT;
	}
	sroce_queue_pop(&srq->q);
	left = sroce_queue_count(&srq->q);
	if (srq->limit && left < srq->limit) {
		srq->limit = 0;		/* one event per arming */
		qp->notify |= SROCE_NOTIFY_SRQ_LIMIT;
	}
	spin_unlock(&srq->lock);
	return SROCE_RECV_TAKEN;
}
