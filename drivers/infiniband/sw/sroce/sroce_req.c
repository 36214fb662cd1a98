// SPDX-License-Identifier: GPL-2.0-only
/*
 * The requester: turns send queue entries into request packets.
 *
 * Each entry is copied out of the (possibly user-mapped) ring once, when
 * the requester first reaches it, and validated on the copy; from then
 * on only the copy is used, for the first transmission and for every
 * retransmission. Messages are cut into path-MTU packets, numbered with
 * consecutive PSNs (an RDMA Read request takes one PSN per response
 * packet), and sent while the number of unacknowledged PSNs stays within
 * the window. The completer rewinds the requester (sroce_req_rewind())
 * when a NAK, a timeout or an RNR NAK asks for a resend.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "sroce/rc.h"
#include "sroce.h"
#include "sroce_cq.h"
#include "sroce_mr.h"
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
		return true;
	default:
		return false;
	}
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
	default:
		return SROCE_WR_SEND;
	}
}

/*
 * Copy SQ slot @idx into its private entry and check it. The slot is
 * shared with userspace and may change under us: read it once, then use
 * only the copy. Returns an ib_wc_status, IB_WC_SUCCESS when usable.
 */
static enum ib_wc_status sroce_req_fetch(struct sroce_qp *qp, u32 idx)
{
	const struct rxe_send_wqe *slot = sroce_queue_slot(&qp->sq, idx);
	struct sroce_swqe *w = &qp->swqe[idx];
	struct rxe_send_wqe hdr;
	const struct rxe_sge *sge;
	u64 total = 0;
	u32 i;

	memcpy(&hdr, slot, SROCE_SWQE_HDR);
	memset(w, 0, sizeof(*w));
	w->data = qp->swqe_data + (size_t)idx * qp->sq_data_size;
	w->wr_id = hdr.wr.wr_id;
	w->opcode = hdr.wr.opcode;
	w->send_flags = hdr.wr.send_flags;
	w->imm = hdr.wr.ex.imm_data;
	w->remote_addr = hdr.wr.wr.rdma.remote_addr;
	w->rkey = hdr.wr.wr.rdma.rkey;

	if (!sroce_opcode_allowed(w->opcode))
		return IB_WC_LOC_QP_OP_ERR;
	if (w->send_flags & ~(IB_SEND_FENCE | IB_SEND_SIGNALED |
			      IB_SEND_SOLICITED | IB_SEND_INLINE))
		return IB_WC_LOC_QP_OP_ERR;

	if (w->send_flags & IB_SEND_INLINE) {
		if (w->opcode == IB_WR_RDMA_READ ||
		    hdr.dma.length > qp->sq_max_inline)
			return IB_WC_LOC_LEN_ERR;
		w->inlined = true;
		w->length = hdr.dma.length;
		memcpy(w->data, slot->dma.inline_data, w->length);
		return IB_WC_SUCCESS;
	}

	w->num_sge = hdr.dma.num_sge;
	if (w->num_sge > qp->sq_max_sge)
		return IB_WC_LOC_LEN_ERR;
	memcpy(w->data, slot->dma.sge, w->num_sge * sizeof(*sge));
	sge = w->data;
	for (i = 0; i < w->num_sge; i++)
		total += sge[i].length;
	if (total > SROCE_PORT_MAX_MSG_SZ)
		return IB_WC_LOC_LEN_ERR;
	w->length = total;
	return IB_WC_SUCCESS;
}

/*
 * Walk @w's local buffers from message offset @off for @len bytes,
 * copying to or from @buf. Each SGE's lkey is checked (PD, range and,
 * when writing, LOCAL_WRITE) at the moment of use.
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
	default:
		return IB_WC_SEND;
	}
}

/*
 * WQE @idx failed with @status: complete the WQEs before it as flushed
 * (completions stay in queue order), it with @status, and fail the QP,
 * which flushes the rest. qp->lock held.
 */
void sroce_req_fail(struct sroce_qp *qp, u32 idx, enum ib_wc_status status)
{
	struct sroce_swqe *w = &qp->swqe[idx];
	struct ib_wc wc = {
		.status = IB_WC_WR_FLUSH_ERR,
		.qp = &qp->ibqp,
		.port_num = SROCE_PORT,
	};

	pr_warn_ratelimited("%s: QP %u: work request failed with status %d\n",
			    dev_name(&qp->sdev->ibdev.dev), qp->ibqp.qp_num,
			    status);
	while (qp->comp_idx != idx) {
		wc.wr_id = qp->swqe[qp->comp_idx].wr_id;
		wc.opcode = sroce_wc_opcode(qp->swqe[qp->comp_idx].opcode);
		sroce_qp_post_cqe(qp, qp->scq, &wc, false);
		qp->comp_idx = (qp->comp_idx + 1) & qp->sq.index_mask;
	}
	wc.wr_id = w->wr_id;
	wc.opcode = sroce_wc_opcode(w->opcode);
	wc.status = status;
	sroce_qp_post_cqe(qp, qp->scq, &wc, false);
	qp->comp_idx = (qp->comp_idx + 1) & qp->sq.index_mask;
	sroce_qp_error(qp);
}

void sroce_req_arm_timer(struct sroce_qp *qp)
{
	u64 ns = sroce_ack_timeout_ns(qp->timeout);

	if (ns == SROCE_ACK_TIMEOUT_INFINITE)
		return;
	mod_timer(&qp->retrans_timer, jiffies + nsecs_to_jiffies(ns) + 1);
}

static bool sroce_req_one(struct sroce_qp *qp, struct sroce_swqe *w,
			  struct sk_buff_head *out)
{
	enum sroce_wr_kind kind = sroce_wr_kind(w->opcode);
	struct sroce_hdrs h = {};
	bool first = qp->req_off == 0;
	struct sk_buff *skb;
	u32 len, chunk;
	bool last;
	u8 *payload;

	if (first && qp->req_psn != w->first_psn) {
		/* First transmission: this WQE's PSNs start here. */
		w->first_psn = qp->req_psn;
		w->last_psn = sroce_psn_add(w->first_psn,
					    sroce_msg_npkts(w->length,
							    qp->mtu) - 1);
	}

	h.bth.pkey = SROCE_DEFAULT_PKEY;
	h.bth.dqpn = qp->dest_qpn;
	h.bth.psn = qp->req_psn;

	if (kind == SROCE_WR_READ) {
		/*
		 * A large Read goes out as several Read requests of at most
		 * half a window each, so that its responses come
		 * back clocked by our window instead of in one burst. PSNs
		 * stay contiguous: PSN = first_psn + offset / MTU throughout.
		 * A re-read after a loss ends at the same chunk boundary as
		 * the original request, so the responder's resource for
		 * that request covers it exactly.
		 */
		chunk = sroce_read_chunk(qp->mtu);
		len = min(w->length - qp->req_off,
			  chunk - qp->req_off % chunk);
		h.bth.opcode = sroce_rc_req_opcode(kind, true, true);
		h.bth.ackreq = true;
		h.reth.va = w->remote_addr + qp->req_off;
		h.reth.rkey = w->rkey;
		h.reth.len = len;
		skb = sroce_pkt_new(qp, &h, 0, &payload);
		if (!skb)
			return false;
		qp->req_psn = sroce_psn_add(qp->req_psn,
					    sroce_msg_npkts(len, qp->mtu));
		qp->req_off += len;
		qp->rd_inflight++;
		last = qp->req_off == w->length;
		goto queue;
	}

	len = min(qp->mtu, w->length - qp->req_off);
	last = qp->req_off + len == w->length;
	h.bth.opcode = sroce_rc_req_opcode(kind, first, last);
	h.bth.se = last && (w->send_flags & IB_SEND_SOLICITED);
	/* An ACK twice per window keeps the window open. */
	h.bth.ackreq = last ||
		       !(qp->req_psn % (sroce_window(qp->mtu) / 2));
	if (first && (kind == SROCE_WR_WRITE || kind == SROCE_WR_WRITE_IMM)) {
		h.reth.va = w->remote_addr;
		h.reth.rkey = w->rkey;
		h.reth.len = w->length;
	}
	h.imm = be32_to_cpu(w->imm);

	skb = sroce_pkt_new(qp, &h, len, &payload);
	if (!skb)
		return false;
	if (w->inlined) {
		memcpy(payload, w->data + qp->req_off, len);
	} else if (sroce_sge_copy(qp, w->data, w->num_sge, qp->req_off,
				  payload, len, SROCE_FROM_MR)) {
		kfree_skb(skb);
		sroce_req_fail(qp, qp->req_idx, IB_WC_LOC_PROT_ERR);
		return false;
	}
	qp->req_psn = sroce_psn_add(qp->req_psn, 1);
	qp->req_off += len;

queue:
	sroce_pkt_seal(qp, skb);
	__skb_queue_tail(out, skb);
	if (!timer_pending(&qp->retrans_timer))
		sroce_req_arm_timer(qp);
	if (last) {
		qp->req_idx = (qp->req_idx + 1) & qp->sq.index_mask;
		qp->req_off = 0;
	}
	return true;
}

/*
 * Send up to @budget packets. Returns true if it stopped on the budget
 * with more to send (the caller reschedules), false when idle or blocked
 * (window, RNR wait, error): an ACK or a timer restarts it then.
 */
bool sroce_req_run(struct sroce_qp *qp, struct sk_buff_head *out, int budget)
{
	while (budget-- > 0) {
		struct sroce_swqe *w;

		if (qp->rnr_wait)
			return false;
		if (qp->state == IB_QPS_SQD) {
			u32 mask = qp->sq.index_mask;

			/* Only WQEs started before SQD, resends included. */
			if (((qp->req_idx - qp->comp_idx) & mask) >=
			    ((qp->sqd_limit - qp->comp_idx) & mask))
				return false;
		} else if (qp->state != IB_QPS_RTS) {
			return false;
		}
		if (qp->req_idx == qp->fetch_idx) {
			u32 prod = sroce_queue_producer(&qp->sq);
			u32 mask = qp->sq.index_mask;
			enum ib_wc_status st;

			/*
			 * Only what the producer index says is posted beyond
			 * the entries we hold: a process moving it backwards
			 * must not make us wrap onto WQEs still in flight.
			 */
			if (((qp->fetch_idx - qp->comp_idx) & mask) >=
			    ((prod - qp->comp_idx) & mask))
				return false;
			st = sroce_req_fetch(qp, qp->fetch_idx);
			qp->fetch_idx = (qp->fetch_idx + 1) & qp->sq.index_mask;
			if (st != IB_WC_SUCCESS) {
				sroce_req_fail(qp, qp->req_idx, st);
				return false;
			}
			w = &qp->swqe[qp->req_idx];
			w->first_psn = sroce_psn_prev(qp->req_psn);
		}
		w = &qp->swqe[qp->req_idx];

		if (sroce_psn_diff(qp->req_psn, qp->acked_psn) >
		    sroce_window(qp->mtu))
			return false;
		if (w->opcode == IB_WR_RDMA_READ &&
		    qp->rd_inflight >= max_t(u32, qp->max_rd_atomic, 1))
			return false;
		if ((w->send_flags & IB_SEND_FENCE) && qp->rd_inflight &&
		    qp->req_off == 0)
			return false;
		if (!sroce_req_one(qp, w, out))
			return false;
	}
	return true;
}
