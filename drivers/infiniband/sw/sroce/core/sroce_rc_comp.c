// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce RC send side, the completer: ACKs, NAKs, RNR NAKs, Read responses
 * and ATOMIC ACKs, checked against what was sent (the acceptance rules
 * are in sroce_rc_sq.c) and turned into progress, placement and errors.
 */
#include "sroce/rc_sq_int.h"

/* ACK / NAK / RNR NAK */
static void comp_ack(struct sroce_sq_eng *e, const struct sroce_pkt *pkt,
		     struct sroce_sq_act *act)
{
	u8 syn = pkt->hdr.aeth.syndrome;
	enum sroce_ack_action what = sroce_comp_ack_action(syn);
	u32 psn = pkt->hdr.bth.psn;
	s32 lo = what == SROCE_ACK_COMPLETE_UP_TO_PSN ? -1 : 0;
	bool progress;
	u32 out;

	if (sroce_psn_diff(psn, e->una_psn) < lo) {
		ev(&act->events, SROCE_EV_STALE);
		return;
	}
	if (sroce_psn_diff(psn, e->sent_psn) >= 0) {
		ev(&act->events, SROCE_EV_GHOST);
		return;
	}
	if (what != SROCE_ACK_COMPLETE_UP_TO_PSN)
		psn = sroce_psn_prev(psn);	/* acknowledges what precedes */
	if (sroce_psn_after(psn, e->ack_psn))
		e->ack_psn = psn;
	progress = sroce_sqi_ack_through(e, act);
	psn = sroce_psn_add(psn, 1);

	switch (what) {
	case SROCE_ACK_COMPLETE_UP_TO_PSN:
		break;
	case SROCE_ACK_RETRY_FROM_PSN:
		ev(&act->events, SROCE_EV_SEQ_NAK_RCVD);
		sroce_sqi_update_una(e);
		if (!e->recovering ||
		    sroce_psn_diff(psn, e->recover_psn) >= 0)
			/* a loss, not one already seen */
			sroce_sqi_cwnd_cut(e, 1, 2);
		sroce_sqi_rewind(e, psn, &act->events);
		e->nak_recover = true;
		e->nak_psn = psn;
		e->pto_ok = true;
		sroce_sqi_arm(e, act, SROCE_TIMER_ARM);
		act->kick = true;
		break;
	case SROCE_ACK_RNR_WAIT:
		ev(&act->events, SROCE_EV_RNR_NAK_RCVD);
		sroce_sqi_update_una(e);
		if (!sroce_rnr_retry_consume(&e->rnr_left)) {
			sroce_sqi_error(e, SROCE_WC_RNR_RETRY_EXC_ERR, act);
			return;
		}
		sroce_sqi_rewind(e, psn, &act->events);
		/* not congestion: what the NAK asks for may go at once */
		out = sq_out(e);
		if (e->cwnd <= out)
			e->cwnd = out + 1 < e->window ? out + 1 : e->window;
		e->rnr_wait = true;
		act->timer = SROCE_TIMER_RNR;
		e->pto_armed = 0;
		act->timer_ns = (u64)sroce_rnr_timer_us(sroce_syndrome_value(syn)) *
				1000;
		sroce_sqi_check_drained(e, act);
		return;
	default:
		sroce_sqi_update_una(e);
		if (e->comp == e->fetch) {
			ev(&act->events, SROCE_EV_GHOST);
			return;
		}
		sroce_sqi_error(e, sroce_ack_action_wc_status(what), act);
		return;
	}
	sroce_sqi_after_progress(e, progress, act);
}

/* Check READ response @pkt for head READ @w; 0 to place it. */
static int comp_check_read(struct sroce_sq_eng *e, struct sroce_wqe *w,
			   const struct sroce_pkt *pkt, u32 off)
{
	u32 mask = pkt->info->mask;
	u32 len = w->length - off;
	u32 end = rd_chunk_end(e, w, off);
	bool at_start = off % e->rd_chunk == 0;
	bool reread = w->rd_reread != NO_REREAD;

	if (len > e->mtu)
		len = e->mtu;
	if (pkt->payload_len != len)
		return -1;
	if ((mask & SROCE_MASK_FIRST) && !at_start &&
	    !(reread && off == w->rd_reread))
		return -1;
	if (!(mask & SROCE_MASK_FIRST) && at_start)
		return -1;
	if (off + len == end)
		return (mask & SROCE_MASK_LAST) ? 0 : -1;
	/* a re-request ends where its request does: LAST only there */
	if (mask & SROCE_MASK_LAST)
		return -1;
	return 0;
}

static void comp_read_resp(struct sroce_sq_eng *e, const struct sroce_pkt *pkt,
			   struct sroce_sq_act *act)
{
	u32 psn = pkt->hdr.bth.psn;
	struct sroce_wqe *w;
	u32 idx, off, k;

	if (sroce_psn_diff(psn, e->una_psn) < 0) {
		ev(&act->events, SROCE_EV_STALE);
		return;
	}
	if (sroce_psn_diff(psn, e->sent_psn) >= 0) {
		ev(&act->events, SROCE_EV_GHOST);
		return;
	}
	idx = sq_wqe_of_psn(e, psn);
	if (idx == e->fetch) {
		ev(&act->events, SROCE_EV_GHOST);
		return;
	}
	w = sq_wqe(e, idx);
	if (!wqe_has_resp(w)) {
		ev(&act->events, SROCE_EV_GHOST);	/* not a READ's PSN */
		return;
	}
	if (w->kind == SROCE_WR_ATOMIC_WRITE ?
	    pkt->hdr.bth.opcode != SROCE_RC_READ_RESP_ONLY ||
	    pkt->payload_len ||
	    sroce_syndrome_kind(pkt->hdr.aeth.syndrome) != SROCE_AETH_KIND_ACK :
	    wqe_atomic(w) != !!(pkt->info->mask & SROCE_MASK_ATOMIC) ||
	    ((pkt->info->mask & SROCE_MASK_ATOMIC) &&
	     sroce_syndrome_kind(pkt->hdr.aeth.syndrome) !=
	     SROCE_AETH_KIND_ACK)) {
		/*
		 * an ATOMIC ACK for a READ, or the other way round; an
		 * ATOMIC WRITE's answer is a READ Response Only, empty
		 */
		ev(&act->events, SROCE_EV_BAD_RESP);
		return;
	}
	/* It acknowledges every request before it */
	if (idx != e->comp) {
		u32 before = sroce_psn_prev(w->first_psn);

		if (sroce_psn_after(before, e->ack_psn))
			e->ack_psn = before;
		sroce_sqi_after_progress(e, sroce_sqi_ack_through(e, act), act);
		if (idx - e->comp >= e->fetch - e->comp) {
			ev(&act->events, SROCE_EV_STALE);
			return;
		}
	}
	if (w->flags & SROCE_WQE_RD_DONE) {
		ev(&act->events, SROCE_EV_STALE);
		return;
	}
	off = psn_off(e, w, psn);
	if (off < w->rd_done) {
		ev(&act->events, SROCE_EV_STALE);
		return;
	}
	k = (off - w->rd_done) / e->mtu;
	if (k >= SROCE_MAX_WINDOW) {
		ev(&act->events, SROCE_EV_GHOST);
		return;
	}
	if (k && (w->rd_map & (1ULL << k))) {
		ev(&act->events, SROCE_EV_STALE);
		return;
	}
	if (wqe_atomic(w)) {
		/* one PSN: off is 0 and nothing is in yet */
		act->place = true;
		act->awrite = w->kind == SROCE_WR_ATOMIC_WRITE;
		act->atomic = !act->awrite;
		act->place_idx = idx;
		act->place_len = w->length;
		act->atomic_orig = pkt->hdr.atmack.orig;
		return;
	}
	if (comp_check_read(e, w, pkt, off)) {
		ev(&act->events, SROCE_EV_BAD_RESP);
		return;
	}
	act->place = true;
	act->place_idx = idx;
	act->place_off = off;
	act->place_len = pkt->payload_len;
}

void sroce_comp_rx(struct sroce_sq_eng *e, const struct sroce_pkt *pkt,
		   struct sroce_sq_act *act)
{
	u32 mask = pkt->info->mask;

	memset(act, 0, sizeof(*act));
	if (!sq_active(e))
		return;
	if (!(mask & SROCE_MASK_RESP) || e->uc)
		ev(&act->events, SROCE_EV_GHOST);	/* not a response */
	else if (mask & (SROCE_MASK_READ | SROCE_MASK_ATOMIC))
		comp_read_resp(e, pkt, act);
	else if ((mask & SROCE_MASK_ACK) && (mask & SROCE_MASK_AETH))
		comp_ack(e, pkt, act);
	else
		ev(&act->events, SROCE_EV_GHOST);
	sroce_sq_check(e);
}

void sroce_comp_placed(struct sroce_sq_eng *e, const struct sroce_sq_act *req,
		       bool ok, struct sroce_sq_act *act)
{
	struct sroce_wqe *w = sq_wqe(e, req->place_idx);
	u32 k;

	memset(act, 0, sizeof(*act));
	if (!sq_active(e))
		return;
	if (SROCE_ENGINE_WARN(req->place_idx - e->comp >= e->fetch - e->comp ||
			      !w->npkts || !wqe_has_resp(w) ||
			      req->place_off < w->rd_done)) {
		sroce_sqi_error(e, SROCE_WC_BAD_RESP_ERR, act);
		return;
	}
	if (!ok) {
		sroce_sqi_error(e, SROCE_WC_LOC_PROT_ERR, act);
		return;
	}
	k = (req->place_off - w->rd_done) / e->mtu;
	if (k) {
		/* out of order: keep it, count it against the hole */
		w->rd_map |= 1ULL << k;
		sroce_sqi_rd_gap_evidence(e, req->place_idx, act);
		sroce_sq_check(e);
		return;
	}
	w->rd_done += req->place_len;
	w->rd_map >>= 1;
	while (w->rd_map & 1) {
		u32 n = w->length - w->rd_done;

		w->rd_done += n < e->mtu ? n : e->mtu;
		w->rd_map >>= 1;
	}
	w->rd_gap_seen = 0;
	if (w->rd_done == w->length)
		w->flags |= SROCE_WQE_RD_DONE;
	/* a READ done completes in order, when all before it have */
	sroce_sqi_ack_through(e, act);
	sroce_sqi_after_progress(e, true, act);
	sroce_sq_check(e);
}
