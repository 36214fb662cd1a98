// SPDX-License-Identifier: GPL-2.0-only
/*
 * The requester: turns send queue entries into request packets.
 *
 * Glue around the engine's requester (sroce_rc_sq.c): each entry is
 * copied out of the (possibly user-mapped) ring once, when the requester
 * first reaches it, and validated on the copy; from then on only the
 * copy is used, for the first transmission and every retransmission.
 * The engine decides what each packet is (opcode, PSN, which bytes of the
 * WQE); this file builds it: headers, payload copied from the WQE's
 * SGEs (lkeys checked at use) or its inline bytes.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "sroce/rc_engine.h"
#include "sroce.h"
#include "sroce_cq.h"
#include "sroce_mr.h"
#include "sroce_mw.h"
#include "sroce_net.h"
#include "sroce_param.h"
#include "sroce_qp.h"

static bool sroce_opcode_allowed(u32 opcode)
{
	switch (opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
	case IB_WR_REG_MR:
	case IB_WR_BIND_MW:
	case SROCE_UWR_ATOMIC_WRITE:
		return true;
	default:
		return false;
	}
}

/* Carried out here, no packets: LOCAL_INV, REG_MR, BIND_MW */
static bool sroce_opcode_local(u32 opcode)
{
	return opcode == IB_WR_LOCAL_INV || opcode == IB_WR_REG_MR ||
	       opcode == IB_WR_BIND_MW;
}

static enum sroce_wr_kind sroce_wr_kind(u32 opcode)
{
	switch (opcode) {
	case IB_WR_SEND_WITH_IMM:
		return SROCE_WR_SEND_IMM;
	case IB_WR_RDMA_WRITE:
		return SROCE_WR_WRITE;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return SROCE_WR_WRITE_IMM;
	case IB_WR_RDMA_READ:
		return SROCE_WR_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return SROCE_WR_CMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return SROCE_WR_FETCH_ADD;
	case SROCE_UWR_ATOMIC_WRITE:
		return SROCE_WR_ATOMIC_WRITE;
	case IB_WR_SEND_WITH_INV:
		return SROCE_WR_SEND_INV;
	case IB_WR_LOCAL_INV:
	case IB_WR_REG_MR:
	case IB_WR_BIND_MW:
		return SROCE_WR_LOCAL;
	default:
		return SROCE_WR_SEND;
	}
}

/*
 * Copy the data part of send WQE @slot, whose header is copied in @hdr,
 * into @data: its inline bytes, or its SGE list (lkeys are checked when
 * used). @length gets the message length. IB_WC_LOC_LEN_ERR if the WQE
 * holds more than the QP allows.
 */
enum ib_wc_status sroce_swqe_copy_data(struct sroce_qp *qp,
				       const struct rxe_send_wqe *slot,
				       const struct rxe_send_wqe *hdr,
				       void *data, u64 *length)
{
	const struct rxe_sge *sge = data;
	u32 i;

	if (hdr->wr.send_flags & IB_SEND_INLINE) {
		if (hdr->dma.length > qp->sq_max_inline)
			return IB_WC_LOC_LEN_ERR;
		*length = hdr->dma.length;
		memcpy(data, slot->dma.inline_data, *length);
		return IB_WC_SUCCESS;
	}
	if (hdr->dma.num_sge > qp->sq_max_sge)
		return IB_WC_LOC_LEN_ERR;
	memcpy(data, slot->dma.sge, hdr->dma.num_sge * sizeof(*sge));
	*length = 0;
	for (i = 0; i < hdr->dma.num_sge; i++)
		*length += sge[i].length;
	return IB_WC_SUCCESS;
}

/*
 * Copy SQ slot @idx into its private entries and check it. The slot is
 * shared with userspace and may change under us: read it once, then use
 * only the copy. Returns an ib_wc_status, IB_WC_SUCCESS when usable.
 */
static enum ib_wc_status sroce_req_fetch(struct sroce_qp *qp, u32 idx)
{
	const struct rxe_send_wqe *slot = sroce_queue_slot(&qp->sq, idx);
	struct sroce_wqe *e = &qp->wqe[idx & qp->sq.index_mask];
	struct sroce_swqe *w = &qp->swqe[idx & qp->sq.index_mask];
	struct rxe_send_wqe hdr;
	enum ib_wc_status st;
	u64 total;

	memcpy(&hdr, slot, SROCE_SWQE_HDR);
	memset(w, 0, sizeof(*w));
	memset(e, 0, sizeof(*e));
	w->data = qp->swqe_data + (size_t)(idx & qp->sq.index_mask) *
		  qp->sq_data_size;
	w->wr_id = hdr.wr.wr_id;
	w->opcode = hdr.wr.opcode;
	w->imm = hdr.wr.ex.imm_data;
	e->kind = sroce_wr_kind(w->opcode);
	if (sroce_wr_atomic(w->opcode)) {
		e->remote_addr = hdr.wr.wr.atomic.remote_addr;
		e->rkey = hdr.wr.wr.atomic.rkey;
		if (w->opcode == IB_WR_ATOMIC_CMP_AND_SWP) {
			e->swap_add = hdr.wr.wr.atomic.swap;
			e->compare = hdr.wr.wr.atomic.compare_add;
		} else {
			e->swap_add = hdr.wr.wr.atomic.compare_add;
		}
	} else {
		e->remote_addr = hdr.wr.wr.rdma.remote_addr;
		e->rkey = hdr.wr.wr.rdma.rkey;
	}
	if (hdr.wr.send_flags & IB_SEND_SIGNALED)
		e->flags |= SROCE_WQE_SIGNALED;
	if (hdr.wr.send_flags & IB_SEND_SOLICITED)
		e->flags |= SROCE_WQE_SOLICITED;
	if (hdr.wr.send_flags & IB_SEND_FENCE)
		e->flags |= SROCE_WQE_FENCE;

	if (!sroce_opcode_allowed(w->opcode) ||
	    (qp->ibqp.qp_type == IB_QPT_UC &&
	     (w->opcode == IB_WR_RDMA_READ || sroce_wr_atomic(w->opcode) ||
	      w->opcode == IB_WR_SEND_WITH_INV ||
	      w->opcode == SROCE_UWR_ATOMIC_WRITE)))
		return IB_WC_LOC_QP_OP_ERR;
	if (hdr.wr.send_flags & ~(IB_SEND_FENCE | IB_SEND_SIGNALED |
				  IB_SEND_SOLICITED | IB_SEND_INLINE))
		return IB_WC_LOC_QP_OP_ERR;
	w->inv_rkey = hdr.wr.ex.invalidate_rkey;
	if (sroce_opcode_local(w->opcode)) {
		/*
		 * No data, no SGEs. REG_MR names an ib_mr by its kernel
		 * address: only a kernel QP's ring may hold one.
		 */
		if (w->opcode == IB_WR_REG_MR) {
			if (qp->user)
				return IB_WC_LOC_QP_OP_ERR;
			w->reg_mr = hdr.wr.wr.reg.mr;
			w->reg_key = hdr.wr.wr.reg.key;
			w->reg_access = hdr.wr.wr.reg.access;
		} else if (w->opcode == IB_WR_BIND_MW) {
			w->mw_rkey = hdr.wr.wr.mw.mw_rkey;
			w->bind_rkey = hdr.wr.wr.mw.rkey;
			w->mr_lkey = hdr.wr.wr.mw.mr_lkey;
			w->bind_addr = hdr.wr.wr.mw.addr;
			w->bind_length = hdr.wr.wr.mw.length;
			w->bind_access = hdr.wr.wr.mw.access;
		} else {
			/* nothing before it may be sent again after it */
			e->flags |= SROCE_WQE_ORDERED;
		}
		return IB_WC_SUCCESS;
	}

	if (w->opcode == SROCE_UWR_ATOMIC_WRITE) {
		/*
		 * Its 8 bytes are in the slot (no SGEs, no inline flag
		 * needed), read once: every slot's data area holds at
		 * least one SGE. The address's alignment is the
		 * responder's to check, as for the other atomics.
		 */
		BUILD_BUG_ON(sizeof(struct rxe_sge) < 8);
		memcpy(&e->swap_add, slot->dma.inline_data, 8);
		e->length = 8;
		return IB_WC_SUCCESS;
	}
	/* A READ or an atomic has nowhere to take inline data from */
	if ((hdr.wr.send_flags & IB_SEND_INLINE) &&
	    (w->opcode == IB_WR_RDMA_READ || sroce_wr_atomic(w->opcode)))
		return IB_WC_LOC_LEN_ERR;
	/*
	 * The remote address of an atomic is not checked here: a
	 * misaligned one is the responder's to refuse (NAK invalid
	 * request), as on the wire from any other requester.
	 */
	st = sroce_swqe_copy_data(qp, slot, &hdr, w->data, &total);
	if (st != IB_WC_SUCCESS)
		return st;
	if (hdr.wr.send_flags & IB_SEND_INLINE)
		w->inlined = true;
	else
		w->num_sge = hdr.dma.num_sge;
	/*
	 * At most 2 GiB, and fewer than 2^23 packets: PSNs are compared
	 * over half their space (a 2 GiB message at path MTU 256 is
	 * refused).
	 */
	if (total > SROCE_PORT_MAX_MSG_SZ ||
	    sroce_msg_npkts(total, qp->sq_eng.mtu) >= SROCE_PSN_HALF)
		return IB_WC_LOC_LEN_ERR;
	e->length = total;
	if (sroce_wr_atomic(w->opcode)) {
		/* the original value lands in the first 8 bytes */
		if (total < 8)
			return IB_WC_LOC_LEN_ERR;
		e->length = 8;
	}
	return IB_WC_SUCCESS;
}

/*
 * Take the next posted WQE into the engine. False when none is posted.
 * A WQE that fails validation is taken too, and fails the QP.
 */
static bool sroce_req_take(struct sroce_qp *qp)
{
	struct sroce_sq_eng *e = &qp->sq_eng;
	u32 mask = qp->sq.index_mask;
	u32 prod = sroce_queue_producer(&qp->sq);
	enum ib_wc_status st;
	u32 idx = e->fetch;

	/*
	 * Only what the producer index says is posted beyond the entries we
	 * hold: a process moving it backwards must not make us wrap onto
	 * WQEs still in flight.
	 */
	if (!sroce_sq_room(e) ||
	    e->fetch - e->comp >= ((prod - e->comp) & mask))
		return false;
	st = sroce_req_fetch(qp, idx);
	if (st != IB_WC_SUCCESS) {
		/* only failed: the engine sees an empty Send, nothing else */
		struct sroce_wqe *w = &qp->wqe[idx & mask];

		w->kind = SROCE_WR_SEND;
		w->length = 0;
	}
	sroce_sq_push(e);
	if (st != IB_WC_SUCCESS) {
		struct sroce_sq_act act = { .error = true };

		sroce_sq_fail(e, idx, st);
		sroce_sq_apply(qp, e->comp, &act);
		return false;
	}
	return true;
}

/*
 * Walk @sge from message offset @off for @len bytes, copying to or from
 * @buf. Each SGE's lkey is checked (PD, range and, when writing,
 * LOCAL_WRITE) at the moment of use.
 */
int sroce_sge_copy(struct sroce_qp *qp, const struct rxe_sge *sge, u32 nsge,
		   u32 off, void *buf, u32 len, enum sroce_copy_dir dir)
{
	u32 access = dir == SROCE_TO_MR ? IB_ACCESS_LOCAL_WRITE : 0;
	u32 i;

	for (i = 0; i < nsge && len; i++) {
		struct sroce_mr *mr;
		u32 n;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = min(len, sge[i].length - off);
		mr = sroce_mr_get(qp->sdev, qp->ibqp.pd, sge[i].lkey, access,
				  sge[i].addr + off, n);
		if (!mr)
			return -EACCES;
		sroce_mr_copy(mr, sge[i].addr + off, buf, n, dir);
		sroce_mr_put(mr);
		buf += n;
		len -= n;
		off = 0;
	}
	return len ? -EINVAL : 0;
}

enum ib_wc_opcode sroce_wc_opcode(u32 wr_opcode)
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

/* Build the request packet @tx the engine decided on. */
static int sroce_req_build(struct sroce_qp *qp, const struct sroce_tx_req *tx,
			   struct sk_buff_head *out)
{
	const struct sroce_swqe *w = &qp->swqe[tx->idx & qp->sq.index_mask];
	struct sroce_hdrs h = {};
	struct sk_buff *skb;
	u8 *payload;

	h.bth.opcode = tx->opcode;
	h.bth.se = tx->se;
	h.bth.ackreq = tx->ackreq;
	h.bth.pkey = SROCE_DEFAULT_PKEY;
	h.bth.dqpn = qp->dest_qpn;
	h.bth.psn = tx->psn;
	if (tx->reth) {
		h.reth.va = tx->va;
		h.reth.rkey = tx->rkey;
		h.reth.len = tx->dma_len;
	}
	if (tx->imm)
		h.imm = be32_to_cpu(w->imm);
	if (tx->ieth)
		h.ieth_rkey = w->inv_rkey;
	if (tx->atomic) {
		h.atmeth.va = tx->va;
		h.atmeth.rkey = tx->rkey;
		h.atmeth.swap_add = tx->swap_add;
		h.atmeth.compare = tx->compare;
	}

	skb = sroce_pkt_new(qp, &h, tx->len, &payload);
	if (!skb)
		return -ENOMEM;	/* lost like on the wire: resent later */
	if (tx->awrite) {
		memcpy(payload, &tx->swap_add, 8);	/* as the WQE had it */
	} else if (tx->len) {
		if (w->inlined) {
			memcpy(payload, w->data + tx->off, tx->len);
		} else if (sroce_sge_copy(qp, w->data, w->num_sge, tx->off,
					  payload, tx->len, SROCE_FROM_MR)) {
			kfree_skb(skb);
			return -EACCES;
		}
	}
	if (tx->retransmit)
		sroce_count(qp->sdev, SROCE_CNT_RETRANSMITS);
	sroce_pkt_seal(&qp->av, skb);
	__skb_queue_tail(out, skb);
	return 0;
}

/*
 * Carry out local WQE @idx (REG_MR, LOCAL_INV, BIND_MW) on the key
 * table; an ib_wc_status. A key the QP's PD does not own, a stale key
 * byte, an MR not free for REG_MR: IB_WC_LOC_QP_OP_ERR, as rdma_rxe; a
 * bind refused: IB_WC_MW_BIND_ERR.
 */
static u8 sroce_req_local(struct sroce_qp *qp, u32 idx)
{
	const struct sroce_swqe *w = &qp->swqe[idx & qp->sq.index_mask];
	int err;

	if (w->opcode == IB_WR_BIND_MW)
		return sroce_mw_bind(qp, w);
	if (w->opcode == IB_WR_REG_MR)
		err = sroce_mr_fast_reg(qp->sdev, qp->ibqp.pd, w->reg_mr,
					w->reg_key, w->reg_access);
	else
		err = sroce_key_invalidate(qp, w->inv_rkey);
	if (err) {
		sroce_count(qp->sdev, SROCE_CNT_LOCAL_OP_ERRORS);
		pr_warn_ratelimited("%s: QP %u: %s of key %#x refused\n",
				    dev_name(&qp->sdev->ibdev.dev),
				    qp->ibqp.qp_num,
				    w->opcode == IB_WR_REG_MR ? "REG_MR" :
								"LOCAL_INV",
				    w->opcode == IB_WR_REG_MR ? w->reg_key :
								w->inv_rkey);
		return IB_WC_LOC_QP_OP_ERR;
	}
	sroce_count(qp->sdev, w->opcode == IB_WR_REG_MR ? SROCE_CNT_FAST_REGS :
							  SROCE_CNT_LOCAL_INVS);
	return IB_WC_SUCCESS;
}

/*
 * Send up to @budget packets. Returns true if it stopped on the budget
 * with more to send (the caller reschedules), false when idle or blocked
 * (window, RNR wait, error): an ACK or a timer restarts it then.
 * qp->lock held.
 */
bool sroce_req_run(struct sroce_qp *qp, struct sk_buff_head *out, int budget)
{
	struct sroce_sq_eng *e = &qp->sq_eng;

	while (budget > 0) {
		struct sroce_sq_act act;
		struct sroce_tx_req tx;
		u32 comp = e->comp;

		switch (sroce_req_next(e, &tx, &act)) {
		case SROCE_REQ_IDLE:
			return false;
		case SROCE_REQ_FETCH:
			if (!sroce_req_take(qp))
				return false;
			continue;
		case SROCE_REQ_LOCAL:
			sroce_sq_local_done(e, tx.idx, sroce_req_local(qp, tx.idx),
					    &act);
			sroce_sq_apply(qp, comp, &act);
			if (act.error)
				return false;
			budget--;
			continue;
		case SROCE_REQ_SEND:
			break;
		}
		budget--;
		if (sroce_req_build(qp, &tx, out) == -EACCES) {
			sroce_sq_fail(e, tx.idx, IB_WC_LOC_PROT_ERR);
			act.error = true;
		}
		sroce_sq_apply(qp, comp, &act);
		if (act.error)
			return false;
	}
	return true;
}
