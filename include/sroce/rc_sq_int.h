/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The RC send engine's internals, shared by its four files and by
 * nothing else: the send queue's state and lifecycle (sroce_rc_sq.c), the
 * requester (sroce_rc_req.c), the completer (sroce_rc_comp.c), and
 * acknowledgment, timers and recovery (sroce_rc_recover.c).
 */
#ifndef _SROCE_RC_SQ_INT_H
#define _SROCE_RC_SQ_INT_H

#include "sroce/rc_engine.h"

/* Engine-internal WQE flags: a READ's responses are all in; a local
 * WQE was carried out (it has no PSNs: first_psn is where it stands)
 */
#define SROCE_WQE_RD_DONE	BIT(7)
#define SROCE_WQE_LOCAL_DONE	BIT(6)

#define NO_REREAD		0xffffffffU

static inline struct sroce_wqe *sq_wqe(const struct sroce_sq_eng *e, u32 idx)
{
	return &e->wqe[idx & (e->size - 1)];
}

/* A READ or an atomic: answered by responses, not by ACKs */
static inline bool wqe_has_resp(const struct sroce_wqe *w)
{
	return w->kind == SROCE_WR_READ || w->kind == SROCE_WR_CMP_SWAP ||
	       w->kind == SROCE_WR_FETCH_ADD ||
	       w->kind == SROCE_WR_ATOMIC_WRITE;
}

/*
 * Started: first sent, or (a local WQE) carried out. WQEs from req on
 * that are not started have no PSNs yet.
 */
static inline bool wqe_started(const struct sroce_wqe *w)
{
	return w->npkts || (w->flags & SROCE_WQE_LOCAL_DONE);
}

static inline bool wqe_atomic(const struct sroce_wqe *w)
{
	return w->kind == SROCE_WR_CMP_SWAP || w->kind == SROCE_WR_FETCH_ADD ||
	       w->kind == SROCE_WR_ATOMIC_WRITE;
}

static inline bool sq_active(const struct sroce_sq_eng *e)
{
	return e->state == SROCE_SQ_RTS || e->state == SROCE_SQ_DRAIN;
}

static inline void ev(u32 *events, enum sroce_eng_event what)
{
	*events |= BIT(what);
}

static inline u32 sq_npkts(const struct sroce_sq_eng *e, u32 len)
{
	return sroce_msg_npkts(len, e->mtu);
}

/* Offset in its message of the payload of PSN @psn of @w */
static inline u32 psn_off(const struct sroce_sq_eng *e, const struct sroce_wqe *w,
			  u32 psn)
{
	return (u32)sroce_psn_diff(psn, w->first_psn) * e->mtu;
}

/* Has anything been sent that is not acknowledged (or answered)? */
static inline bool sq_in_flight(const struct sroce_sq_eng *e)
{
	return sroce_psn_diff(e->sent_psn, e->una_psn) > 0;
}

/* End of the READ request (original chunk) holding offset @off */
static inline u32 rd_chunk_end(const struct sroce_sq_eng *e,
			       const struct sroce_wqe *w, u32 off)
{
	u64 end = ((u64)off / e->rd_chunk + 1) * e->rd_chunk;

	return end < w->length ? (u32)end : w->length;
}

/* Original READ requests of @w whose responses are all in */
static inline u32 rd_reqs_done(const struct sroce_sq_eng *e,
			       const struct sroce_wqe *w)
{
	if (w->flags & SROCE_WQE_RD_DONE)
		return w->length ? (w->length - 1) / e->rd_chunk + 1 : 1;
	return w->rd_done / e->rd_chunk;
}

/* The started WQE whose PSNs hold @psn, or e->fetch if none does */
static inline u32 sq_wqe_of_psn(const struct sroce_sq_eng *e, u32 psn)
{
	u32 idx;

	for (idx = e->comp; idx != e->fetch; idx++) {
		const struct sroce_wqe *w = sq_wqe(e, idx);

		if (!wqe_started(w))
			break;
		if (sroce_psn_in_window(psn, w->first_psn, w->npkts))
			return idx;
	}
	return e->fetch;
}

/* PSNs sent and not yet acknowledged */
static inline u32 sq_out(const struct sroce_sq_eng *e)
{
	return (u32)sroce_psn_diff(e->next_psn, e->una_psn);
}

/* Across the engine's files (see each definition) */
void sroce_sqi_check_drained(struct sroce_sq_eng *e, struct sroce_sq_act *act);
void sroce_sqi_error(struct sroce_sq_eng *e, u8 status,
		     struct sroce_sq_act *act);
void sroce_sqi_arm(struct sroce_sq_eng *e, struct sroce_sq_act *act, u8 op);
void sroce_sqi_rewind(struct sroce_sq_eng *e, u32 psn, u32 *events);
void sroce_sqi_complete_head(struct sroce_sq_eng *e);
void sroce_sqi_update_una(struct sroce_sq_eng *e);
void sroce_sqi_rd_gap_evidence(struct sroce_sq_eng *e, u32 idx,
			       struct sroce_sq_act *act);
bool sroce_sqi_ack_through(struct sroce_sq_eng *e, struct sroce_sq_act *act);
void sroce_sqi_cwnd_cut(struct sroce_sq_eng *e, u32 num, u32 den);
void sroce_sqi_after_progress(struct sroce_sq_eng *e, bool progress,
			      struct sroce_sq_act *act);

#endif /* _SROCE_RC_SQ_INT_H */
