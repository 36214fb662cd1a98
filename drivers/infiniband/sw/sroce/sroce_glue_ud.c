// SPDX-License-Identifier: GPL-2.0-only
/*
 * UD and GSI QPs: sending and receiving datagrams.
 *
 * Glue around the UD decisions of the core (sroce_ud.c). A send WQE is
 * copied out of the ring once and checked on the copy: opcode, flags,
 * SGE count or inline length, a length within the MTU, and an address
 * handle that is live and of the QP's PD, whose address vector is copied
 * for the packet. Each WQE is one packet, completed when it is handed to
 * the stack: UD is unreliable. A WQE that fails its checks completes in
 * error and moves the QP to the send queue error state (SQE).
 *
 * A received datagram is checked (opcode, Q_Key, P_Key, length) and
 * placed in the next receive WQE (of the QP's RQ or its SRQ): 40 bytes
 * of GRH, then the payload.
 * Without a posted receive WQE, or if the next one is too small for it,
 * it is dropped and the WQE stays posted (IBTA class D); a malformed WQE
 * (too many SGEs) or a bad lkey completes in error and the QP goes on.
 * Every drop is counted.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>

#include "sroce/psn.h"
#include "sroce/ring.h"
#include "sroce/ud.h"
#include "sroce.h"
#include "sroce_cq.h"
#include "sroce_glue.h"
#include "sroce_net.h"
#include "sroce_param.h"
#include "sroce_qp.h"
#include "sroce_wqe.h"
#include "sroce_trace.h"

static void sroce_ud_cfg(struct sroce_qp *qp, struct sroce_ud_cfg *cfg)
{
	cfg->qpn = qp->ibqp.qp_num;
	cfg->qkey = qp->qkey;
	cfg->mtu = ib_mtu_enum_to_int(sroce_active_mtu(qp->sdev));
	cfg->pkey = SROCE_DEFAULT_PKEY;
}

static void sroce_ud_send_wc(struct sroce_qp *qp, u64 wr_id,
			     enum ib_wc_status st)
{
	struct ib_wc wc = {
		.wr_id = wr_id,
		.status = st,
		.opcode = IB_WC_SEND,
		.qp = &qp->ibqp,
		.port_num = SROCE_PORT,
	};

	sroce_qp_post_cqe(qp, qp->scq, &wc, false);
}

/* Build the datagram; an ib_wc_status, IB_WC_SUCCESS if queued on @out. */
static enum ib_wc_status sroce_ud_build(struct sroce_qp *qp,
					const struct sroce_send_entry *e,
					const struct sroce_ud_send *s,
					const struct sroce_av *av, void *data,
					struct sk_buff_head *out)
{
	struct sroce_ud_cfg cfg;
	struct sroce_hdrs h;
	struct sk_buff *skb;
	u8 *payload;

	sroce_ud_cfg(qp, &cfg);
	if (sroce_ud_tx_hdrs(&cfg, s, qp->ud_psn, &h) != SROCE_UD_OK)
		return IB_WC_LOC_LEN_ERR;
	qp->ud_psn = sroce_psn_add(qp->ud_psn, 1);
	skb = sroce_pkt_new(qp, &h, s->length, &payload);
	if (!skb) {
		/* lost like on the wire: UD promises no delivery */
		sroce_qp_count(qp, SROCE_CNT_TX_DROP);
		return IB_WC_SUCCESS;
	}
	if (s->length) {
		if (e->inlined) {
			memcpy(payload, data, s->length);
		} else if (sroce_wqe_sge_copy(qp, data, e->num_sge, 0,
					  payload, s->length, SROCE_FROM_MR)) {
			kfree_skb(skb);
			return IB_WC_LOC_PROT_ERR;
		}
	}
	/* lost like on the wire if sealing fails (it warns: no headroom) */
	if (!sroce_pkt_seal(av, skb))
		__skb_queue_tail(out, skb);
	return IB_WC_SUCCESS;
}

/*
 * Send up to @budget datagrams from the SQ. SROCE_RUN_AGAIN if it
 * stopped on the budget with more posted. qp->lock held.
 */
unsigned int sroce_glue_ud_run(struct sroce_qp *qp, struct sk_buff_head *out,
			       int budget)
{
	void *data = qp->swqe_data;	/* scratch: one WQE at a time */

	if (qp->state != IB_QPS_RTS)
		return 0;
	while (budget-- > 0) {
		const struct rxe_send_wqe *slot = sroce_queue_head(&qp->sq);
		struct sroce_send_entry e;
		struct sroce_ud_send s;
		enum ib_wc_status st;
		struct sroce_av av;

		if (!slot)
			return 0;
		st = sroce_wqe_fetch_ud(qp, slot, &e, &s, &av, data);
		if (st == IB_WC_SUCCESS)
			st = sroce_ud_build(qp, &e, &s, &av, data, out);
		sroce_queue_pop(&qp->sq);
		if (st != IB_WC_SUCCESS) {
			sroce_qp_count(qp, SROCE_CNT_UD_BAD_SENDS);
			pr_warn_ratelimited("%s: QP %u: UD work request failed with status %d\n",
					    dev_name(&qp->sdev->ibdev.dev),
					    qp->ibqp.qp_num, st);
			sroce_ud_send_wc(qp, e.wr_id, st);
			/*
			 * Send queue error: the rest of the SQ flushes, the
			 * QP goes on receiving, and SQE -> RTS recovers it
			 * (as the MAD layer does for the GSI QP).
			 */
			trace_sroce_qp_state(qp->ibqp.device, qp->ibqp.qp_num,
					     qp->state, IB_QPS_SQE);
			WRITE_ONCE(qp->state, IB_QPS_SQE);
			sroce_glue_ud_flush(qp);
			return 0;
		}
		if (qp->sig_all || (e.flags & IB_SEND_SIGNALED))
			sroce_ud_send_wc(qp, e.wr_id, IB_WC_SUCCESS);
	}
	return sroce_queue_count(&qp->sq) ? SROCE_RUN_AGAIN : 0;
}

/* The error state: every posted send WQE completes flushed. */
void sroce_glue_ud_flush(struct sroce_qp *qp)
{
	u32 n;

	/* Counted once: a process moving its index must not keep us here */
	for (n = sroce_queue_count(&qp->sq); n; n--) {
		const struct rxe_send_wqe *w = sroce_queue_head(&qp->sq);

		sroce_ud_send_wc(qp, READ_ONCE(w->wr.wr_id),
				 IB_WC_WR_FLUSH_ERR);
		sroce_queue_pop(&qp->sq);
	}
}

/* The 40 bytes before the payload: IPv6 header, or zeros and IPv4 header */
static void sroce_ud_grh(struct sk_buff *skb, u8 *grh)
{
	memset(grh, 0, SROCE_GRH_LEN);
	if (skb->protocol == htons(ETH_P_IP))
		memcpy(grh + 20, ip_hdr(skb), sizeof(struct iphdr));
	else
		memcpy(grh, ipv6_hdr(skb), sizeof(struct ipv6hdr));
}

/* What a kernel consumer (the CM) needs to answer: the packet's origin */
static void sroce_ud_wc_origin(struct sk_buff *skb, struct ib_wc *wc)
{
	wc->wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
	wc->network_hdr_type = skb->protocol == htons(ETH_P_IP) ?
			       RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
	if (skb_mac_header_was_set(skb) &&
	    skb_mac_header_len(skb) >= ETH_HLEN) {
		ether_addr_copy(wc->smac, eth_hdr(skb)->h_source);
		wc->wc_flags |= IB_WC_WITH_SMAC;
	}
	if (is_vlan_dev(skb->dev)) {
		wc->vlan_id = vlan_dev_vlan_id(skb->dev);
		wc->wc_flags |= IB_WC_WITH_VLAN;
	}
}

/*
 * A packet for a UD or GSI QP. Its P_Key was checked by the caller.
 * qp->lock held.
 */
void sroce_glue_ud_rcv(struct sroce_qp *qp, struct sk_buff *skb,
		       const struct sroce_rxpkt *rx)
{
	struct sroce_ud_cfg cfg;
	u8 grh[SROCE_GRH_LEN];
	struct ib_wc wc = {
		.opcode = IB_WC_RECV,
		.qp = &qp->ibqp,
		.port_num = SROCE_PORT,
	};

	if (qp->state != IB_QPS_RTR && qp->state != IB_QPS_RTS &&
	    qp->state != IB_QPS_SQD && qp->state != IB_QPS_SQE) {
		sroce_qp_count(qp, SROCE_CNT_UD_DROP_STATE);
		return;
	}
	sroce_ud_cfg(qp, &cfg);
	switch (sroce_ud_rx_check(&cfg, &rx->p)) {
	case SROCE_UD_OK:
		break;
	case SROCE_UD_BAD_QKEY:
		sroce_qp_count(qp, SROCE_CNT_UD_DROP_QKEY);
		return;
	case SROCE_UD_TOO_LONG:
		sroce_qp_count(qp, SROCE_CNT_UD_DROP_LENGTH);
		return;
	default:
		sroce_qp_count(qp, SROCE_CNT_UD_DROP_OPCODE);
		return;
	}
	switch (sroce_wqe_take_recv(qp, SROCE_GRH_LEN + rx->p.payload_len)) {
	case SROCE_RECV_NONE:
		sroce_qp_count(qp, SROCE_CNT_UD_DROP_NO_RECV);
		return;
	case SROCE_RECV_SHORT:
		sroce_qp_count(qp, SROCE_CNT_UD_DROP_NO_ROOM);
		return;
	case SROCE_RECV_TAKEN:
		break;
	}

	wc.wr_id = qp->rwqe->wr_id;
	wc.status = IB_WC_SUCCESS;
	qp->rwqe_valid = false;		/* completed below, whatever happens */
	if (sroce_ud_rx_fits(&rx->p, qp->rwqe->length) != SROCE_UD_OK) {
		wc.status = IB_WC_LOC_LEN_ERR;
	} else {
		sroce_ud_grh(skb, grh);
		if (sroce_wqe_sge_copy(qp, qp->rwqe->sge, qp->rwqe->num_sge, 0,
				       grh, SROCE_GRH_LEN, SROCE_TO_MR) ||
		    sroce_wqe_sge_copy(qp, qp->rwqe->sge, qp->rwqe->num_sge,
				       SROCE_GRH_LEN,
				       (void *)sroce_rx_payload(rx),
				       rx->p.payload_len, SROCE_TO_MR))
			wc.status = IB_WC_LOC_PROT_ERR;
	}
	if (wc.status != IB_WC_SUCCESS) {
		sroce_qp_count(qp, SROCE_CNT_UD_RECV_ERRORS);
		sroce_qp_post_cqe(qp, qp->rcq, &wc, false);
		return;
	}

	wc.byte_len = SROCE_GRH_LEN + rx->p.payload_len;
	wc.src_qp = rx->p.hdr.deth.sqpn;
	if (rx->p.hdr.bth.opcode == SROCE_UD_SEND_ONLY_IMM) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = cpu_to_be32(rx->p.hdr.imm);
	}
	sroce_ud_wc_origin(skb, &wc);
	sroce_qp_post_cqe(qp, qp->rcq, &wc, rx->p.hdr.bth.se);
}
