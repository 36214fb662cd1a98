// SPDX-License-Identifier: GPL-2.0-only
/*
 * The responder: executes incoming requests and answers them.
 *
 * - PSN: the expected PSN executes; an older one is a duplicate (re-ACK,
 *   or re-send the Read responses it asks for, never re-execute); a newer
 *   one gets one PSN sequence error NAK until the gap is filled.
 * - Send: placed into the receive WQE taken from the RQ at the first
 *   packet (none there: RNR NAK). RDMA Write: rkey checked at the first
 *   packet against the RETH's whole range. Read: rkey checked, remembered
 *   in a responder resource so a duplicate can be answered, responses
 *   sent by sroce_resp_read_run().
 * - ACKs are coalesced: one when the requester asks (AckReq) or after
 *   SROCE_ACK_COALESCE packets; none overtakes pending Read responses.
 * - Errors that the requester must see (invalid request, remote access,
 *   remote operational) are NAKed and move the QP to the error state.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "sroce/rc.h"
#include "sroce.h"
#include "sroce_cq.h"
#include "sroce_mr.h"
#include "sroce_net.h"
#include "sroce_param.h"
#include "sroce_qp.h"

#define SROCE_ACK_COALESCE	16

enum sroce_resp_verdict {
	SROCE_RESP_OK,
	SROCE_RESP_RNR,		/* NAK sent, nothing changed */
	SROCE_RESP_FATAL,	/* NAK sent, QP in error */
};

static void sroce_resp_ack(struct sroce_qp *qp, struct sk_buff_head *out,
			   u8 syndrome, u32 psn)
{
	struct sroce_hdrs h = {};
	struct sk_buff *skb;
	u8 *payload;

	h.bth.opcode = SROCE_RC_ACK;
	h.bth.pkey = SROCE_DEFAULT_PKEY;
	h.bth.dqpn = qp->dest_qpn;
	h.bth.psn = psn;
	h.aeth.syndrome = syndrome;
	h.aeth.msn = qp->msn;
	skb = sroce_pkt_new(qp, &h, 0, &payload);
	if (!skb)
		return;		/* the requester will time out and resend */
	sroce_pkt_seal(qp, skb);
	__skb_queue_tail(out, skb);
}

/* Acknowledge everything up to the expected PSN, after pending reads. */
static void sroce_resp_ack_all(struct sroce_qp *qp, struct sk_buff_head *out)
{
	qp->unacked = 0;
	if (qp->rd_cur >= 0) {
		qp->ack_pending = true;
		return;
	}
	sroce_resp_ack(qp, out, sroce_syndrome_ack(SROCE_AETH_CREDIT_INVALID),
		       sroce_psn_prev(qp->epsn));
}

static enum sroce_resp_verdict sroce_resp_nak(struct sroce_qp *qp,
					      struct sk_buff_head *out,
					      enum sroce_nak_code code, u32 psn)
{
	sroce_count(qp->sdev, SROCE_CNT_FATAL_NAKS_SENT);
	pr_warn_ratelimited("%s: QP %u: NAK %d for PSN %u\n",
			    dev_name(&qp->sdev->ibdev.dev), qp->ibqp.qp_num,
			    code, psn);
	sroce_resp_ack(qp, out, sroce_syndrome_nak(code), psn);
	sroce_qp_error(qp);
	return SROCE_RESP_FATAL;
}

static void sroce_resp_complete(struct sroce_qp *qp, enum ib_wc_status status,
				enum ib_wc_opcode opcode, u32 byte_len,
				const struct sroce_rxpkt *rx)
{
	struct ib_wc wc = {
		.wr_id = qp->rwqe->wr_id,
		.status = status,
		.opcode = opcode,
		.byte_len = byte_len,
		.qp = &qp->ibqp,
		.src_qp = qp->dest_qpn,
		.port_num = SROCE_PORT,
	};

	if (status == IB_WC_SUCCESS &&
	    (rx->p.info->mask & SROCE_MASK_IMMDT)) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = cpu_to_be32(rx->p.hdr.imm);
	}
	qp->rwqe_valid = false;
	sroce_qp_post_cqe(qp, qp->rcq, &wc, rx->p.hdr.bth.se);
}

/* Take the next receive WQE off the RQ into qp->rwqe. */
static int sroce_resp_get_rwqe(struct sroce_qp *qp)
{
	const struct rxe_recv_wqe *slot;
	struct rxe_recv_wqe hdr;
	u64 total = 0;
	u32 i;

	if (qp->rwqe_valid)
		return 0;
	slot = sroce_queue_head(&qp->rq);
	if (!slot)
		return -EAGAIN;
	memcpy(&hdr, slot, SROCE_RWQE_HDR);
	qp->rwqe->wr_id = hdr.wr_id;
	qp->rwqe->num_sge = hdr.dma.num_sge;
	qp->rwqe_valid = true;
	qp->rwqe_off = 0;
	if (qp->rwqe->num_sge > qp->rq_max_sge) {
		qp->rwqe->num_sge = 0;
		qp->rwqe->length = 0;
	} else {
		memcpy(qp->rwqe->sge, slot->dma.sge,
		       qp->rwqe->num_sge * sizeof(struct rxe_sge));
		for (i = 0; i < qp->rwqe->num_sge; i++)
			total += qp->rwqe->sge[i].length;
		qp->rwqe->length = min_t(u64, total, SROCE_PORT_MAX_MSG_SZ);
	}
	sroce_queue_pop(&qp->rq);
	return 0;
}

static enum sroce_resp_verdict sroce_resp_send(struct sroce_qp *qp,
					       const struct sroce_rxpkt *rx,
					       struct sk_buff_head *out)
{
	u32 psn = rx->p.hdr.bth.psn;
	u32 len = rx->p.payload_len;

	if (sroce_resp_get_rwqe(qp)) {
		sroce_count(qp->sdev, SROCE_CNT_RNR_NAKS_SENT);
		sroce_resp_ack(qp, out, sroce_syndrome_rnr(qp->min_rnr_timer),
			       psn);
		return SROCE_RESP_RNR;
	}
	if (len > qp->rwqe->length - qp->rwqe_off) {
		sroce_resp_complete(qp, IB_WC_LOC_LEN_ERR, IB_WC_RECV, 0, rx);
		return sroce_resp_nak(qp, out, SROCE_NAK_INVALID_REQ, psn);
	}
	if (len && sroce_sge_copy(qp, qp->rwqe->sge, qp->rwqe->num_sge,
				  qp->rwqe_off, (void *)sroce_rx_payload(rx),
				  len, SROCE_TO_MR)) {
		sroce_resp_complete(qp, IB_WC_LOC_PROT_ERR, IB_WC_RECV, 0, rx);
		return sroce_resp_nak(qp, out, SROCE_NAK_REM_OP, psn);
	}
	qp->rwqe_off += len;
	if (rx->p.info->mask & SROCE_MASK_LAST) {
		sroce_resp_complete(qp, IB_WC_SUCCESS, IB_WC_RECV,
				    qp->rwqe_off, rx);
		qp->msn = sroce_psn_add(qp->msn, 1);
	}
	return SROCE_RESP_OK;
}

static enum sroce_resp_verdict sroce_resp_write(struct sroce_qp *qp,
						const struct sroce_rxpkt *rx,
						struct sk_buff_head *out)
{
	u32 mask = rx->p.info->mask;
	u32 psn = rx->p.hdr.bth.psn;
	u32 len = rx->p.payload_len;

	/* With immediate: a receive WQE must be there before any effect. */
	if ((mask & SROCE_MASK_IMMDT) && sroce_resp_get_rwqe(qp)) {
		sroce_count(qp->sdev, SROCE_CNT_RNR_NAKS_SENT);
		sroce_resp_ack(qp, out, sroce_syndrome_rnr(qp->min_rnr_timer),
			       psn);
		return SROCE_RESP_RNR;
	}
	if (mask & SROCE_MASK_FIRST) {
		const struct sroce_reth *reth = &rx->p.hdr.reth;

		if (!(qp->access & IB_ACCESS_REMOTE_WRITE))
			return sroce_resp_nak(qp, out, SROCE_NAK_REM_ACCESS,
					      psn);
		if (reth->len) {
			qp->wr_mr = sroce_mr_get(qp->sdev, qp->ibqp.pd,
						 reth->rkey,
						 IB_ACCESS_REMOTE_WRITE,
						 reth->va, reth->len);
			if (!qp->wr_mr)
				return sroce_resp_nak(qp, out,
						      SROCE_NAK_REM_ACCESS,
						      psn);
		}
		qp->wr_va = reth->va;
		qp->wr_resid = reth->len;
		qp->wr_len = reth->len;		/* byte_len if with immediate */
	}
	if (len > qp->wr_resid ||
	    ((mask & SROCE_MASK_LAST) && len != qp->wr_resid))
		return sroce_resp_nak(qp, out, SROCE_NAK_INVALID_REQ, psn);
	if (len)
		sroce_mr_copy(qp->wr_mr, qp->wr_va,
			      (void *)sroce_rx_payload(rx), len, SROCE_TO_MR);
	qp->wr_va += len;
	qp->wr_resid -= len;
	if (mask & SROCE_MASK_LAST) {
		if (qp->wr_mr) {
			sroce_mr_put(qp->wr_mr);
			qp->wr_mr = NULL;
		}
		if (mask & SROCE_MASK_IMMDT)
			sroce_resp_complete(qp, IB_WC_SUCCESS,
					    IB_WC_RECV_RDMA_WITH_IMM,
					    qp->wr_len, rx);
		qp->msn = sroce_psn_add(qp->msn, 1);
	}
	return SROCE_RESP_OK;
}

static enum sroce_resp_verdict sroce_resp_read(struct sroce_qp *qp,
					       const struct sroce_rxpkt *rx,
					       struct sk_buff_head *out)
{
	const struct sroce_reth *reth = &rx->p.hdr.reth;
	u32 nres = max_t(u32, qp->max_dest_rd_atomic, 1);
	u32 psn = rx->p.hdr.bth.psn;
	struct sroce_rd_res *res;
	struct sroce_mr *mr;
	u32 npkts;

	if (!(qp->access & IB_ACCESS_REMOTE_READ))
		return sroce_resp_nak(qp, out, SROCE_NAK_REM_ACCESS, psn);
	if (reth->len > SROCE_PORT_MAX_MSG_SZ)
		return sroce_resp_nak(qp, out, SROCE_NAK_INVALID_REQ, psn);
	if (reth->len) {
		mr = sroce_mr_get(qp->sdev, qp->ibqp.pd, reth->rkey,
				  IB_ACCESS_REMOTE_READ, reth->va, reth->len);
		if (!mr)
			return sroce_resp_nak(qp, out,
					      SROCE_NAK_REM_ACCESS, psn);
		sroce_mr_put(mr);
	}
	res = &qp->rd_res[qp->rd_res_next % nres];
	if (res->pending)	/* more reads outstanding than negotiated */
		return sroce_resp_nak(qp, out, SROCE_NAK_INVALID_REQ, psn);

	npkts = sroce_msg_npkts(reth->len, qp->mtu);
	res->first_psn = psn;
	res->last_psn = sroce_psn_add(psn, npkts - 1);
	res->va = reth->va;
	res->rkey = reth->rkey;
	res->length = reth->len;
	res->valid = true;
	res->pending = true;
	res->next_psn = psn;
	res->next_off = 0;
	if (qp->rd_cur < 0)
		qp->rd_cur = qp->rd_res_next % nres;
	qp->rd_res_next = (qp->rd_res_next + 1) % nres;
	/* A Read consumes one PSN per response packet. */
	qp->epsn = sroce_psn_add(psn, npkts);
	qp->msn = sroce_psn_add(qp->msn, 1);
	return SROCE_RESP_OK;
}

static void sroce_resp_duplicate(struct sroce_qp *qp,
				 const struct sroce_rxpkt *rx,
				 struct sk_buff_head *out)
{
	u32 psn = rx->p.hdr.bth.psn;
	u32 i;

	if (!(rx->p.info->mask & SROCE_MASK_READ)) {
		sroce_resp_ack_all(qp, out);
		return;
	}
	/* Answer again from the responder resource that holds @psn. */
	for (i = 0; i < SROCE_MAX_QP_RD_ATOM; i++) {
		struct sroce_rd_res *res = &qp->rd_res[i];

		if (!res->valid || sroce_psn_diff(psn, res->first_psn) < 0 ||
		    sroce_psn_diff(psn, res->last_psn) > 0)
			continue;
		/* Answer it first; an interrupted one resumes later. */
		res->pending = true;
		res->next_psn = psn;
		res->next_off = sroce_psn_diff(psn, res->first_psn) * qp->mtu;
		qp->rd_cur = i;
		return;
	}
	pr_debug_ratelimited("QP %u: duplicate read %u not found, epsn %u\n",
			     qp->ibqp.qp_num, psn, qp->epsn);
}

void sroce_resp_rcv(struct sroce_qp *qp, const struct sroce_rxpkt *rx,
		    struct sk_buff_head *out)
{
	u32 mask = rx->p.info->mask;
	u32 psn = rx->p.hdr.bth.psn;
	enum sroce_resp_verdict v;
	enum sroce_rx_seq seq;

	if (qp->state < IB_QPS_RTR || qp->state == IB_QPS_ERR)
		return;
	if (sroce_opcode_transport(rx->p.hdr.bth.opcode) != SROCE_TRANSPORT_RC)
		return;

	switch (sroce_resp_psn_class(qp->epsn, psn)) {
	case SROCE_PSN_OUT_OF_SEQ:
		sroce_count(qp->sdev, SROCE_CNT_OUT_OF_SEQ_REQUESTS);
		if (!qp->nak_sent) {
			sroce_count(qp->sdev, SROCE_CNT_SEQ_NAKS_SENT);
			sroce_resp_ack(qp, out,
				       sroce_syndrome_nak(SROCE_NAK_PSN_SEQ_ERR),
				       qp->epsn);
			qp->nak_sent = true;
		}
		return;
	case SROCE_PSN_DUPLICATE:
		sroce_count(qp->sdev, SROCE_CNT_DUP_REQUESTS);
		sroce_resp_duplicate(qp, rx, out);
		return;
	default:
		break;
	}
	qp->nak_sent = false;

	seq = qp->rx_seq;
	if (sroce_resp_check_seq(&seq, rx->p.hdr.bth.opcode)) {
		sroce_resp_nak(qp, out, SROCE_NAK_INVALID_REQ, psn);
		return;
	}
	if (mask & SROCE_MASK_SEND)
		v = sroce_resp_send(qp, rx, out);
	else if (mask & SROCE_MASK_WRITE)
		v = sroce_resp_write(qp, rx, out);
	else if (mask & SROCE_MASK_READ)
		v = sroce_resp_read(qp, rx, out);
	else	/* atomics are not implemented yet */
		v = sroce_resp_nak(qp, out, SROCE_NAK_INVALID_REQ, psn);
	if (v != SROCE_RESP_OK)
		return;

	qp->rx_seq = seq;
	if (mask & SROCE_MASK_READ)
		return;		/* its responses acknowledge it */
	qp->epsn = sroce_psn_add(psn, 1);
	qp->unacked++;
	if (sroce_resp_ack_now(rx->p.hdr.bth.ackreq, qp->unacked,
			       SROCE_ACK_COALESCE))
		sroce_resp_ack_all(qp, out);
}

/* The next Read with responses to send, in arrival order, or -1. */
static int sroce_resp_next_read(struct sroce_qp *qp, int from, u32 nres)
{
	u32 i;

	for (i = 1; i <= nres; i++) {
		u32 k = (from + i) % nres;

		if (qp->rd_res[k].pending)
			return k;
	}
	return -1;
}

/*
 * Send pending Read responses, up to @budget packets, then an ACK held
 * back behind them. Returns true if some remain. qp->lock held.
 */
bool sroce_resp_read_run(struct sroce_qp *qp, struct sk_buff_head *out,
			 int budget)
{
	u32 nres = max_t(u32, qp->max_dest_rd_atomic, 1);

	if (qp->state < IB_QPS_RTR || qp->state == IB_QPS_ERR)
		return false;
	while (qp->rd_cur >= 0 && budget-- > 0) {
		struct sroce_rd_res *res = &qp->rd_res[qp->rd_cur];
		u32 len = min(qp->mtu, res->length - res->next_off);
		bool first = res->next_psn == res->first_psn;
		bool last = res->next_off + len == res->length;
		struct sroce_hdrs h = {};
		struct sk_buff *skb;
		u8 *payload;

		h.bth.opcode = sroce_read_resp_opcode(first, last);
		h.bth.pkey = SROCE_DEFAULT_PKEY;
		h.bth.dqpn = qp->dest_qpn;
		h.bth.psn = res->next_psn;
		h.aeth.syndrome =
			sroce_syndrome_ack(SROCE_AETH_CREDIT_INVALID);
		h.aeth.msn = qp->msn;
		skb = sroce_pkt_new(qp, &h, len, &payload);
		if (!skb)
			return true;
		if (len) {
			struct sroce_mr *mr;

			mr = sroce_mr_get(qp->sdev, qp->ibqp.pd, res->rkey,
					  IB_ACCESS_REMOTE_READ,
					  res->va + res->next_off, len);
			if (!mr) {	/* deregistered under the reader */
				kfree_skb(skb);
				sroce_resp_nak(qp, out, SROCE_NAK_REM_ACCESS,
					       res->next_psn);
				return false;
			}
			sroce_mr_copy(mr, res->va + res->next_off, payload,
				      len, SROCE_FROM_MR);
			sroce_mr_put(mr);
		}
		sroce_pkt_seal(qp, skb);
		__skb_queue_tail(out, skb);
		res->next_psn = sroce_psn_add(res->next_psn, 1);
		res->next_off += len;
		if (last) {
			res->pending = false;
			qp->rd_cur = sroce_resp_next_read(qp, qp->rd_cur, nres);
		}
	}
	if (qp->rd_cur >= 0)
		return true;
	if (qp->ack_pending) {
		qp->ack_pending = false;
		sroce_resp_ack_all(qp, out);
	}
	return false;
}
