// SPDX-License-Identifier: GPL-2.0-only
/*
 * Work-queue formats: the rxe provider's ring entries, both ways.
 *
 * Kernel callers' work requests are written into the rings in the format
 * the provider writes (sroce_wqe_post_send(), sroce_wqe_post_recv()), so
 * that the engines read one format only. Reading, every entry is copied
 * out of its ring once, when an engine first reaches it, and checked on
 * the copy: the ring is shared with userspace and may change under us.
 * An RC or UC send entry goes to its private slot (sroce_wqe_fetch_rc()),
 * a UD one to the datagram it describes (sroce_wqe_fetch_ud()), a receive
 * entry to qp->rwqe (sroce_wqe_take_recv()). The data an entry's SGEs
 * name is copied by sroce_wqe_sge_copy(), lkeys checked at each use.
 *
 * Objects only below this file (queues, MRs, AHs, the port): nothing here
 * sends, completes or schedules.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "sroce/psn.h"
#include "sroce/rc_engine.h"
#include "sroce/ud.h"
#include "sroce.h"
#include "sroce_param.h"
#include "sroce_qp.h"
#include "sroce_wqe.h"
/*
 * Walk @sge from message offset @off for @len bytes, copying to or from
 * @buf. Each SGE's lkey is checked (PD, range and, when writing,
 * LOCAL_WRITE) at the moment of use.
 */
int sroce_wqe_sge_copy(struct sroce_qp *qp, const struct rxe_sge *sge, u32 nsge,
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
static enum ib_wc_status sroce_swqe_copy_data(struct sroce_qp *qp,
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
enum ib_wc_status sroce_wqe_fetch_rc(struct sroce_qp *qp, u32 idx)
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
 * Copy the WQE at the head of the SQ and check it; on success @s and @av
 * describe the datagram and the SGE list or inline bytes are in @data.
 */
enum ib_wc_status sroce_wqe_fetch_ud(struct sroce_qp *qp,
				     const struct rxe_send_wqe *slot,
				     struct rxe_send_wqe *hdr,
				     struct sroce_ud_send *s,
				     struct sroce_av *av, void *data)
{
	enum ib_wc_status st;
	u64 total;
	u32 flags;

	memcpy(hdr, slot, SROCE_SWQE_HDR);
	flags = hdr->wr.send_flags;
	if (hdr->wr.opcode != IB_WR_SEND &&
	    hdr->wr.opcode != IB_WR_SEND_WITH_IMM)
		return IB_WC_LOC_QP_OP_ERR;
	/* A fence orders nothing on UD, and there is no checksum offload */
	if (flags & ~(IB_SEND_SIGNALED | IB_SEND_SOLICITED | IB_SEND_INLINE |
		      IB_SEND_FENCE | IB_SEND_IP_CSUM))
		return IB_WC_LOC_QP_OP_ERR;

	memset(s, 0, sizeof(*s));
	s->imm = hdr->wr.opcode == IB_WR_SEND_WITH_IMM;
	s->imm_data = be32_to_cpu(hdr->wr.ex.imm_data);
	s->se = flags & IB_SEND_SOLICITED;
	s->remote_qpn = hdr->wr.wr.ud.remote_qpn;
	s->remote_qkey = hdr->wr.wr.ud.remote_qkey;

	st = sroce_swqe_copy_data(qp, slot, hdr, data, &total);
	if (st != IB_WC_SUCCESS)
		return st;
	if (total > SROCE_MAX_PAYLOAD)
		return IB_WC_LOC_LEN_ERR;
	s->length = total;
	/* GSI sends name a P_Key index: ours has one entry */
	if (hdr->wr.wr.ud.pkey_index >= SROCE_PORT_PKEY_TBL_LEN)
		return IB_WC_LOC_QP_OP_ERR;
	/*
	 * A user WQE names its AH by number; a kernel WQE (in kernel
	 * memory) carries the address vector, copied at post time.
	 */
	if (!qp->user)
		memcpy(av, &hdr->wr.wr.ud.av, sizeof(*av));
	else if (!sroce_ah_get_av(qp->sdev, qp->ibqp.pd,
				  hdr->wr.wr.ud.ah_num, av))
		return IB_WC_LOC_QP_OP_ERR;
	av->sport = sroce_flow_sport(qp->ibqp.qp_num, s->remote_qpn);
	return IB_WC_SUCCESS;
}

/* Kernel callers: turn an ib_send_wr into an SQ entry. qp->lock held. */
int sroce_wqe_post_send(struct sroce_qp *qp, const struct ib_send_wr *wr)
{
	u32 prod = qp->sq.buf->producer_index;
	struct rxe_send_wqe *wqe;
	int i;

	if (wr->num_sge < 0 || wr->num_sge > qp->sq_max_sge)
		return -EINVAL;
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
		break;
	case IB_WR_SEND_WITH_INV:
		if (qp->ibqp.qp_type != IB_QPT_RC)
			return -EINVAL;
		break;
	case IB_WR_LOCAL_INV:
	case IB_WR_REG_MR:
		/* nothing to send: no data, no SGEs */
		if (sroce_qp_is_ud(qp) || wr->num_sge ||
		    (wr->send_flags & IB_SEND_INLINE) ||
		    (wr->opcode == IB_WR_REG_MR && !reg_wr(wr)->mr))
			return -EINVAL;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		/* refused now rather than failing the QP (or its peer's) */
		/* (and under 8 bytes of SGEs, below) */
		if ((wr->send_flags & IB_SEND_INLINE) ||
		    (atomic_wr(wr)->remote_addr & 7))
			return -EINVAL;
		fallthrough;
	case IB_WR_RDMA_READ:
		if (qp->ibqp.qp_type != IB_QPT_RC)
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
		u8 *p = wqe->dma.inline_data;
		u32 len = 0;

		for (i = 0; i < wr->num_sge; i++) {
			u32 n = wr->sg_list[i].length;

			/* The room left: a sum could wrap past the limit. */
			if (n > qp->sq_max_inline - len)
				return -EINVAL;
			/* Kernel callers hand kernel virtual addresses. */
			memcpy(p + len, (void *)(uintptr_t)wr->sg_list[i].addr, n);
			len += n;
		}
		wqe->dma.length = len;
	} else {
		u64 total = 0;

		for (i = 0; i < wr->num_sge; i++) {
			total += wr->sg_list[i].length;
			wqe->dma.sge[i].addr = wr->sg_list[i].addr;
			wqe->dma.sge[i].length = wr->sg_list[i].length;
			wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
		}
		/* Refused here rather than failed later with the QP. */
		if (total > SROCE_PORT_MAX_MSG_SZ ||
		    (sroce_wr_atomic(wr->opcode) && total < 8) ||
		    (sroce_qp_is_ud(qp) &&
		     total > ib_mtu_enum_to_int(sroce_active_mtu(qp->sdev))))
			return -EINVAL;
		wqe->dma.num_sge = wr->num_sge;
	}
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
	struct rxe_recv_wqe hdr;
	u64 total = 0;
	u32 i;

	memcpy(&hdr, slot, SROCE_RWQE_HDR);
	qp->rwqe->wr_id = hdr.wr_id;
	qp->rwqe->num_sge = hdr.dma.num_sge;
	if (qp->rwqe->num_sge > max_sge) {
		qp->rwqe->num_sge = 0;
		qp->rwqe->length = 0;
		qp->rwqe_valid = true;
		return false;
	}
	memcpy(qp->rwqe->sge, slot->dma.sge,
	       qp->rwqe->num_sge * sizeof(struct rxe_sge));
	for (i = 0; i < qp->rwqe->num_sge; i++)
		total += qp->rwqe->sge[i].length;
	qp->rwqe->length = min_t(u64, total, SROCE_PORT_MAX_MSG_SZ);
	qp->rwqe_valid = true;
	return true;
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
