// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce RC receive side: the responder as plain state and decisions (see
 * rc_engine.h for the events).
 *
 * - PSN: the expected PSN executes; an older one is a duplicate (ACKed
 *   again, or a READ answered again from its resource, never executed
 *   twice); a newer one gets one PSN sequence error NAK per gap.
 * - Each request is checked before it has any effect: opcode sequence,
 *   payload length (a full path MTU in First/Middle packets, at most one
 *   in Last/Only, never more than the message or receive WQE holds), the
 *   QP's access rights and, through the glue, the rkey over the whole
 *   RETH range.  A violation is NAKed and fails the QP.
 * - Sends are placed into the receive WQE taken at their first packet (no
 *   WQE: RNR NAK, nothing changes); Writes land at the RETH's address,
 *   each packet re-checked by the glue, so no reference is held between
 *   packets.  READs are kept in a ring of resources to answer them and
 *   their duplicates; a duplicate READ may ask for any part of the
 *   original (a requester re-reading a hole), nothing beyond it, and is
 *   answered exactly, ending any run still under way for it.
 * - Atomics (8-byte aligned, else NAK invalid request) are carried out by
 *   the glue once, when their PSN is expected; the result is kept in the
 *   same ring, and a duplicate gets the same ATOMIC ACK again.  ATOMIC
 *   WRITE is one of them (under REMOTE_WRITE), answered by an empty READ
 *   Response Only.
 * - ACKs are coalesced (AckReq, or every SROCE_ACK_COALESCE packets) and
 *   never overtake READ responses.
 * - UC: the same checks, but nothing is ever answered.  A PSN ahead of
 *   the expected one means packets were lost: the message in progress is
 *   dropped and the PSN taken as the new expected one, so a First or Only
 *   starts the next message.  One up to SROCE_UC_DUP_WINDOW behind is a
 *   duplicate (UC never resends): dropped, so that no message is
 *   delivered twice; one further behind resyncs like a gap.  What would
 *   be an RNR or a fatal NAK on RC drops the message (class D: a held
 *   receive WQE stays for the next); a message longer than the receive
 *   WQE completes it with a local length error, the QP stays up.
 */
#include "sroce/opcode.h"
#include "sroce/rc_engine.h"

#define SROCE_ACK_COALESCE	16

/*
 * UC: how far behind the expected PSN a packet counts as a duplicate from
 * the wire (dropped); beyond, it is taken as a resync, so that one forged
 * packet far ahead stalls a connection for this many packets at most.
 */
#define SROCE_UC_DUP_WINDOW	16384

static inline void ev(u32 *events, enum sroce_eng_event what)
{
	*events |= BIT(what);
}

void sroce_rq_init(struct sroce_rq_eng *e, struct sroce_rd_res *res,
		   u32 nres_max)
{
	memset(e, 0, sizeof(*e));
	memset(res, 0, nres_max * sizeof(*res));
	e->res = res;
	e->nres_max = nres_max;
	e->nres = 1;
	e->mtu = 256;
	e->cur = -1;
}

void sroce_rq_config(struct sroce_rq_eng *e, u32 mtu, u32 nres, u32 access,
		     u8 min_rnr_timer)
{
	if (!nres)
		nres = 1;
	if (nres > e->nres_max)
		nres = e->nres_max;
	if (nres != e->nres) {
		/* the ring is re-laid: only allowed before RTS */
		memset(e->res, 0, e->nres_max * sizeof(*e->res));
		e->res_next = 0;
		e->cur = -1;
	}
	e->mtu = mtu;
	e->nres = nres;
	e->access = access;
	e->min_rnr_timer = min_rnr_timer;
}

void sroce_rq_set_psn(struct sroce_rq_eng *e, u32 psn)
{
	e->epsn = sroce_psn_mask(psn);
}

void sroce_rq_set_uc(struct sroce_rq_eng *e)
{
	e->uc = true;
}

void sroce_rq_start(struct sroce_rq_eng *e)
{
	if (e->state == SROCE_RQ_IDLE)
		e->state = SROCE_RQ_ACTIVE;
}

void sroce_rq_reset(struct sroce_rq_eng *e)
{
	struct sroce_rd_res *res = e->res;
	u32 nres_max = e->nres_max, nres = e->nres, mtu = e->mtu;
	u32 access = e->access;
	u8 rnr = e->min_rnr_timer;
	bool uc = e->uc;

	sroce_rq_init(e, res, nres_max);
	sroce_rq_config(e, mtu, nres, access, rnr);
	e->uc = uc;
}

void sroce_rq_error(struct sroce_rq_eng *e)
{
	u32 i;

	e->state = SROCE_RQ_ERROR;
	e->rwqe_held = false;
	e->seq = SROCE_SEQ_NONE;
	e->msg_off = 0;
	e->ack_owed = false;
	e->cur = -1;
	for (i = 0; i < e->nres; i++)
		e->res[i].pending = false;
}

static void rq_ack(struct sroce_rq_act *act, u8 syndrome, u32 psn, u32 msn)
{
	act->ack = true;
	act->tx.syndrome = syndrome;
	act->tx.psn = sroce_psn_mask(psn);
	act->tx.msn = msn & SROCE_MSN_MASK;
}

/* UC: drop the message in progress and this packet; a held WQE stays */
static void rq_uc_drop(struct sroce_rq_eng *e, struct sroce_rq_act *act)
{
	act->place = SROCE_PLACE_NONE;
	act->complete = false;
	act->ack = false;
	e->seq = SROCE_SEQ_NONE;
	e->msg_off = 0;
	ev(&act->events, SROCE_EV_UC_DROP);
}

/*
 * A fatal request error: NAK it, the QP goes to error (UC: the message
 * is dropped).  Returns false.
 */
static bool rq_fatal(struct sroce_rq_eng *e, struct sroce_rq_act *act,
		     enum sroce_nak_code code, u32 psn)
{
	if (e->uc) {
		rq_uc_drop(e, act);
		return false;
	}
	act->place = SROCE_PLACE_NONE;
	rq_ack(act, sroce_syndrome_nak(code), psn, e->msn);
	act->error = true;
	act->kick = false;
	ev(&act->events, SROCE_EV_FATAL_NAK_SENT);
	sroce_rq_error(e);
	return false;
}

/* ACK everything before ePSN, or owe it behind pending READ responses */
static void rq_ack_all(struct sroce_rq_eng *e, struct sroce_rq_act *act)
{
	e->unacked = 0;
	if (e->cur >= 0) {
		e->ack_owed = true;
		return;
	}
	rq_ack(act, sroce_syndrome_ack(SROCE_AETH_CREDIT_INVALID),
	       sroce_psn_prev(e->epsn), e->msn);
}

static bool rq_rnr(struct sroce_rq_eng *e, const struct sroce_pkt *pkt,
		   const struct sroce_rq_env *env, struct sroce_rq_act *act)
{
	if (e->rwqe_held)
		return false;
	if (env->take_rwqe(env->ctx, &e->rwqe_len)) {
		if (e->uc) {
			rq_uc_drop(e, act);
			return true;
		}
		rq_ack(act, sroce_syndrome_rnr(e->min_rnr_timer),
		       pkt->hdr.bth.psn, e->msn);
		ev(&act->events, SROCE_EV_RNR_NAK_SENT);
		return true;
	}
	e->rwqe_held = true;
	return false;
}

static void rq_complete(struct sroce_rq_eng *e, const struct sroce_pkt *pkt,
			struct sroce_rq_act *act, bool rdma_imm, u32 byte_len)
{
	act->complete = true;
	act->wc_status = SROCE_WC_SUCCESS;
	act->wc_rdma_imm = rdma_imm;
	act->wc_byte_len = byte_len;
	act->wc_imm = !!(pkt->info->mask & SROCE_MASK_IMMDT);
	act->wc_solicited = pkt->hdr.bth.se;
	e->rwqe_held = false;
}

/* Returns false if the request was not executed (RNR or fatal) */
static bool rq_send(struct sroce_rq_eng *e, const struct sroce_pkt *pkt,
		    const struct sroce_rq_env *env, struct sroce_rq_act *act)
{
	u32 len = pkt->payload_len;

	if (rq_rnr(e, pkt, env, act))
		return false;
	if (pkt->info->mask & SROCE_MASK_FIRST)
		e->msg_off = 0;
	if (len > e->rwqe_len - e->msg_off) {
		rq_fatal(e, act, SROCE_NAK_INVALID_REQ, pkt->hdr.bth.psn);
		act->complete = true;
		act->wc_status = SROCE_WC_LOC_LEN_ERR;
		if (e->uc) {
			/* as rdma_rxe: the WQE completes, the QP stays up */
			e->rwqe_held = false;
			ev(&act->events, SROCE_EV_UC_LEN_ERR);
		}
		return false;
	}
	act->place = SROCE_PLACE_RWQE;
	act->off = e->msg_off;
	act->len = len;
	e->msg_off += len;
	if (pkt->info->mask & SROCE_MASK_LAST) {
		rq_complete(e, pkt, act, false, e->msg_off);
		if (pkt->info->mask & SROCE_MASK_IETH) {
			act->wc_inv = true;
			act->inv_rkey = pkt->hdr.ieth_rkey;
		}
		e->msn++;
	}
	return true;
}

static bool rq_write(struct sroce_rq_eng *e, const struct sroce_pkt *pkt,
		     const struct sroce_rq_env *env, struct sroce_rq_act *act)
{
	u32 mask = pkt->info->mask;
	u32 psn = pkt->hdr.bth.psn;
	u32 len = pkt->payload_len;

	/* With immediate: a receive WQE before any effect */
	if ((mask & SROCE_MASK_IMMDT) && rq_rnr(e, pkt, env, act))
		return false;
	if (mask & SROCE_MASK_FIRST) {
		const struct sroce_reth *reth = &pkt->hdr.reth;

		if (!(e->access & SROCE_ACC_REMOTE_WRITE) ||
		    (reth->len && !env->rkey_ok(env->ctx, reth->rkey, reth->va,
						 reth->len,
						 SROCE_ACC_REMOTE_WRITE))) {
			rq_fatal(e, act, SROCE_NAK_REM_ACCESS, psn);
			return false;
		}
		e->wr_va = reth->va;
		e->wr_rkey = reth->rkey;
		e->wr_len = reth->len;
		e->msg_off = 0;
	}
	if (len > e->wr_len - e->msg_off ||
	    ((mask & SROCE_MASK_LAST) && len != e->wr_len - e->msg_off)) {
		rq_fatal(e, act, SROCE_NAK_INVALID_REQ, psn);
		return false;
	}
	if (len) {
		act->place = SROCE_PLACE_MR;
		act->va = e->wr_va + e->msg_off;
		act->rkey = e->wr_rkey;
		act->len = len;
	}
	e->msg_off += len;
	if (mask & SROCE_MASK_LAST) {
		if (mask & SROCE_MASK_IMMDT)
			rq_complete(e, pkt, act, true, e->wr_len);
		e->msn++;
	}
	return true;
}

/* The next pending resource after @from in ring order, or -1 */
static s32 rq_next_pending(const struct sroce_rq_eng *e, s32 from)
{
	u32 i;

	for (i = 1; i <= e->nres; i++) {
		u32 k = ((u32)from + i) % e->nres;

		if (e->res[k].pending)
			return (s32)k;
	}
	return -1;
}

/*
 * The next resource of the ring, for a new READ or atomic.  The oldest
 * may still be answering, but a requester within max_dest_rd_atomic has
 * all of it already: what is left is a replay for a duplicate.  (One
 * beyond the limit loses the rest and asks again, as with rdma_rxe; an
 * atomic is then never answered, and its requester runs out of retries.)
 */
static struct sroce_rd_res *rq_res_new(struct sroce_rq_eng *e)
{
	struct sroce_rd_res *r = &e->res[e->res_next];

	if (r->pending && e->cur == (s32)e->res_next) {
		r->pending = false;
		e->cur = rq_next_pending(e, e->cur);
	}
	memset(r, 0, sizeof(*r));
	return r;
}

/* Queue the filled resource @r (from rq_res_new()) for answering */
static void rq_res_queue(struct sroce_rq_eng *e, struct sroce_rd_res *r)
{
	r->valid = true;
	r->pending = true;
	if (e->cur < 0)
		e->cur = (s32)e->res_next;
	e->res_next = (e->res_next + 1) % e->nres;
}

static bool rq_read(struct sroce_rq_eng *e, const struct sroce_pkt *pkt,
		    const struct sroce_rq_env *env, struct sroce_rq_act *act)
{
	const struct sroce_reth *reth = &pkt->hdr.reth;
	u32 psn = pkt->hdr.bth.psn;
	struct sroce_rd_res *r;

	if (reth->len > 0x80000000U ||
	    sroce_msg_npkts(reth->len, e->mtu) >= SROCE_PSN_HALF) {
		/* its responses' PSNs must not span half the PSN space */
		rq_fatal(e, act, SROCE_NAK_INVALID_REQ, psn);
		return false;
	}
	if (!(e->access & SROCE_ACC_REMOTE_READ) ||
	    (reth->len && !env->rkey_ok(env->ctx, reth->rkey, reth->va,
					reth->len, SROCE_ACC_REMOTE_READ))) {
		rq_fatal(e, act, SROCE_NAK_REM_ACCESS, psn);
		return false;
	}
	r = rq_res_new(e);
	r->first_psn = psn;
	r->npkts = sroce_msg_npkts(reth->len, e->mtu);
	r->va = reth->va;
	r->rkey = reth->rkey;
	r->length = reth->len;
	r->start_psn = psn;
	r->end_off = reth->len;
	rq_res_queue(e, r);
	/* A READ takes one PSN per response packet */
	e->epsn = sroce_psn_add(psn, r->npkts);
	e->msn++;
	act->kick = true;
	return true;
}

/*
 * CmpSwap and FetchAdd (AtomicETH), and ATOMIC WRITE (IBA 1.5: a RETH of
 * length 8 and the 8 bytes to store, under REMOTE_WRITE): 8-byte aligned,
 * carried out once, answered from a resource like a READ.
 */
static bool rq_atomic(struct sroce_rq_eng *e, const struct sroce_pkt *pkt,
		      const struct sroce_rq_env *env, struct sroce_rq_act *act)
{
	const struct sroce_atmeth *a = &pkt->hdr.atmeth;
	bool awrite = pkt->hdr.bth.opcode == SROCE_RC_ATOMIC_WRITE;
	u32 psn = pkt->hdr.bth.psn;
	struct sroce_atomic_op op = {
		.write = awrite,
		.cmp_swap = pkt->hdr.bth.opcode == SROCE_RC_CMP_SWAP,
		.va = awrite ? pkt->hdr.reth.va : a->va,
		.rkey = awrite ? pkt->hdr.reth.rkey : a->rkey,
		.swap_add = awrite ? pkt->hdr.awrite : a->swap_add,
		.compare = a->compare,
	};
	u32 need = awrite ? SROCE_ACC_REMOTE_WRITE : SROCE_ACC_REMOTE_ATOMIC;
	struct sroce_rd_res *r;
	u64 orig = 0;

	if (awrite && (pkt->hdr.reth.len != 8 || pkt->payload_len != 8)) {
		ev(&act->events, SROCE_EV_BAD_REQ);
		return rq_fatal(e, act, SROCE_NAK_INVALID_REQ, psn);
	}
	if (op.va & 7) {
		ev(&act->events, SROCE_EV_ATOMIC_MISALIGNED);
		return rq_fatal(e, act, SROCE_NAK_INVALID_REQ, psn);
	}
	if (!(e->access & need) || !env->atomic(env->ctx, &op, &orig)) {
		ev(&act->events, SROCE_EV_ATOMIC_DENIED);
		return rq_fatal(e, act, SROCE_NAK_REM_ACCESS, psn);
	}
	r = rq_res_new(e);
	r->atomic = true;
	r->awrite = awrite;
	r->orig = orig;
	r->first_psn = psn;
	r->npkts = 1;
	r->va = op.va;
	r->rkey = op.rkey;
	r->start_psn = psn;
	rq_res_queue(e, r);
	e->epsn = sroce_psn_add(psn, 1);
	e->msn++;
	act->kick = true;
	return true;
}

/*
 * The resource of the READ or atomic whose PSNs hold @psn, or -1.  The
 * newest first: the ring may still keep one from 2^24 PSNs ago with the
 * same PSN, and an older match is never the right one.
 */
static s32 rq_res_find(const struct sroce_rq_eng *e, u32 psn)
{
	u32 k;

	for (k = 1; k <= e->nres; k++) {
		u32 i = (e->res_next + e->nres - k) % e->nres;
		const struct sroce_rd_res *r = &e->res[i];

		if (r->valid && sroce_psn_in_window(psn, r->first_psn, r->npkts))
			return (s32)i;
	}
	return -1;
}

/* A duplicate READ: answer the part it asks for again. */
static void rq_dup_read(struct sroce_rq_eng *e, const struct sroce_pkt *pkt,
			struct sroce_rq_act *act)
{
	const struct sroce_reth *reth = &pkt->hdr.reth;
	u32 psn = pkt->hdr.bth.psn;
	s32 i = rq_res_find(e, psn);
	struct sroce_rd_res *r;
	u32 off;

	if (i < 0 || e->res[i].atomic) {
		ev(&act->events, SROCE_EV_DUP_READ_BAD);
		return;
	}
	r = &e->res[i];
	off = ((psn - r->first_psn) & SROCE_PSN_MASK) * e->mtu;
	if (reth->rkey != r->rkey || reth->va != r->va + off ||
	    reth->len > r->length - off) {
		ev(&act->events, SROCE_EV_DUP_READ_BAD);
		return;
	}
	/*
	 * Answer exactly what it asks for, LAST at its end, even while
	 * still answering the request or an earlier duplicate: that run
	 * stops here, as the requester has moved on (IBTA 9.4.4).
	 */
	r->pending = true;
	r->start_psn = psn;
	r->next_off = off;
	r->end_off = off + reth->len;
	e->cur = i;	/* the oldest READ first */
	act->kick = true;
}

/*
 * A duplicate atomic: the ATOMIC ACK of the one with its PSN again, from
 * the kept result.  It is never executed a second time.
 */
static void rq_dup_atomic(struct sroce_rq_eng *e, const struct sroce_pkt *pkt,
			  struct sroce_rq_act *act)
{
	bool awrite = pkt->hdr.bth.opcode == SROCE_RC_ATOMIC_WRITE;
	u64 va = awrite ? pkt->hdr.reth.va : pkt->hdr.atmeth.va;
	u32 rkey = awrite ? pkt->hdr.reth.rkey : pkt->hdr.atmeth.rkey;
	s32 i = rq_res_find(e, pkt->hdr.bth.psn);
	struct sroce_rd_res *r;

	if (i < 0 || !e->res[i].atomic || e->res[i].awrite != awrite ||
	    rkey != e->res[i].rkey || va != e->res[i].va) {
		ev(&act->events, SROCE_EV_DUP_READ_BAD);
		return;
	}
	r = &e->res[i];
	r->pending = true;
	if (e->cur < 0)
		e->cur = i;
	ev(&act->events, SROCE_EV_ATOMIC_REPLAY);
	act->kick = true;
}

/* A UC request (checked like an RC one as far as it goes) */
static void rq_uc_rx(struct sroce_rq_eng *e, const struct sroce_pkt *pkt,
		     const struct sroce_rq_env *env, struct sroce_rq_act *act)
{
	u32 mask = pkt->info->mask;
	u32 psn = pkt->hdr.bth.psn;
	enum sroce_rx_seq seq;
	u8 rc_op;
	bool done;

	if (psn != e->epsn) {
		s32 d = sroce_psn_diff(psn, e->epsn);

		if (d < 0 && d >= -SROCE_UC_DUP_WINDOW) {
			/* nothing is sent twice on UC: the wire duplicated it */
			ev(&act->events, SROCE_EV_DUP_REQ);
			return;
		}
		/* packets were lost: so is the message they belonged to */
		ev(&act->events, SROCE_EV_OOS_REQ);
		if (e->seq != SROCE_SEQ_NONE)
			rq_uc_drop(e, act);
	}
	e->epsn = sroce_psn_add(psn, 1);
	/* UC opcodes follow the RC ones, 0x20 higher */
	rc_op = pkt->hdr.bth.opcode & ~SROCE_TRANSPORT_MASK;
	seq = e->seq;
	if (!(mask & (SROCE_MASK_SEND | SROCE_MASK_WRITE)) ||
	    sroce_resp_check_seq(&seq, rc_op) ||
	    (!(mask & SROCE_MASK_LAST) && pkt->payload_len != e->mtu)) {
		/* the rest of a lost message, or not a well-formed one */
		rq_uc_drop(e, act);
		return;
	}
	if (mask & SROCE_MASK_SEND)
		done = rq_send(e, pkt, env, act);
	else
		done = rq_write(e, pkt, env, act);
	if (done)
		e->seq = seq;
}

void sroce_rq_rx(struct sroce_rq_eng *e, const struct sroce_pkt *pkt,
		 const struct sroce_rq_env *env, struct sroce_rq_act *act)
{
	u32 mask = pkt->info->mask;
	u32 psn = pkt->hdr.bth.psn;
	enum sroce_rx_seq seq;
	bool done;

	memset(act, 0, sizeof(*act));
	if (e->state != SROCE_RQ_ACTIVE)
		return;
	if (sroce_opcode_transport(pkt->hdr.bth.opcode) !=
	    (e->uc ? SROCE_TRANSPORT_UC : SROCE_TRANSPORT_RC) ||
	    !(mask & SROCE_MASK_REQ) || pkt->payload_len > e->mtu) {
		/* not a request of our transport, or larger than the MTU */
		ev(&act->events, SROCE_EV_BAD_REQ);
		return;
	}
	if (e->uc) {
		rq_uc_rx(e, pkt, env, act);
		goto out;
	}

	switch (sroce_resp_psn_class(e->epsn, psn)) {
	case SROCE_PSN_OUT_OF_SEQ:
		ev(&act->events, SROCE_EV_OOS_REQ);
		if (!e->nak_sent) {
			e->nak_sent = true;
			rq_ack(act, sroce_syndrome_nak(SROCE_NAK_PSN_SEQ_ERR),
			       e->epsn, e->msn);
			ev(&act->events, SROCE_EV_SEQ_NAK_SENT);
		}
		goto out;
	case SROCE_PSN_DUPLICATE:
		ev(&act->events, SROCE_EV_DUP_REQ);
		if (mask & SROCE_MASK_READ)
			rq_dup_read(e, pkt, act);
		else if (mask & SROCE_MASK_ATOMIC)
			rq_dup_atomic(e, pkt, act);
		else
			rq_ack_all(e, act);
		goto out;
	default:
		break;
	}

	seq = e->seq;
	if (sroce_resp_check_seq(&seq, pkt->hdr.bth.opcode) ||
	    (!(mask & SROCE_MASK_LAST) && pkt->payload_len != e->mtu)) {
		/* out of order opcode, or a First/Middle not a full MTU */
		rq_fatal(e, act, SROCE_NAK_INVALID_REQ, psn);
		goto out;
	}
	e->nak_sent = false;
	if (mask & SROCE_MASK_SEND)
		done = rq_send(e, pkt, env, act);
	else if (mask & SROCE_MASK_WRITE)
		done = rq_write(e, pkt, env, act);
	else if (mask & SROCE_MASK_READ)
		done = rq_read(e, pkt, env, act);
	else
		done = rq_atomic(e, pkt, env, act);
	if (!done)
		goto out;
	e->seq = seq;
	if (mask & (SROCE_MASK_READ | SROCE_MASK_ATOMIC))
		goto out;	/* its responses acknowledge it */
	e->epsn = sroce_psn_add(psn, 1);
	e->unacked++;
	if (sroce_resp_ack_now(pkt->hdr.bth.ackreq, e->unacked,
			       SROCE_ACK_COALESCE))
		rq_ack_all(e, act);
out:
	sroce_rq_check(e);
}

void sroce_rq_fail(struct sroce_rq_eng *e, u32 psn, enum sroce_nak_code nak,
		   u8 wc_status, struct sroce_rq_act *act)
{
	u32 events = act->events;
	bool completing = act->complete;

	memset(act, 0, sizeof(*act));
	act->events = events;
	rq_fatal(e, act, nak, psn);
	/* UC, the Write with immediate's last packet: its WQE stays taken */
	if (e->uc && completing && wc_status == SROCE_WC_SUCCESS)
		e->rwqe_held = true;
	if (wc_status != SROCE_WC_SUCCESS) {
		act->complete = true;
		act->wc_status = wc_status;
		if (e->uc) {
			/* our own receive WQE is bad: a local error */
			act->error = true;
			sroce_rq_error(e);
		}
	}
}

bool sroce_rq_next(struct sroce_rq_eng *e, struct sroce_tx_rsp *rsp)
{
	memset(rsp, 0, sizeof(*rsp));
	if (e->state != SROCE_RQ_ACTIVE)
		return false;
	if (e->cur >= 0 && e->res[e->cur].atomic) {
		struct sroce_rd_res *r = &e->res[e->cur];

		/* an ATOMIC WRITE: a READ Response Only, empty, as rdma_rxe */
		rsp->opcode = r->awrite ? SROCE_RC_READ_RESP_ONLY :
					  SROCE_RC_ATOMIC_ACK;
		rsp->psn = r->first_psn;
		rsp->msn = e->msn & SROCE_MSN_MASK;
		rsp->syndrome = sroce_syndrome_ack(SROCE_AETH_CREDIT_INVALID);
		rsp->orig = r->orig;
		r->pending = false;
		e->cur = rq_next_pending(e, e->cur);
		sroce_rq_check(e);
		return true;
	}
	if (e->cur >= 0) {
		struct sroce_rd_res *r = &e->res[e->cur];
		u32 len = r->end_off - r->next_off;
		u32 psn = sroce_psn_add(r->first_psn, r->next_off / e->mtu);
		bool last;

		if (len > e->mtu)
			len = e->mtu;
		last = r->next_off + len == r->end_off;
		rsp->opcode = sroce_read_resp_opcode(psn == r->start_psn, last);
		rsp->psn = psn;
		rsp->msn = e->msn & SROCE_MSN_MASK;
		rsp->syndrome = sroce_syndrome_ack(SROCE_AETH_CREDIT_INVALID);
		rsp->va = r->va + r->next_off;
		rsp->rkey = r->rkey;
		rsp->len = len;
		r->next_off += len;
		if (last) {
			r->pending = false;
			e->cur = rq_next_pending(e, e->cur);
		}
		sroce_rq_check(e);
		return true;
	}
	if (e->ack_owed) {
		e->ack_owed = false;
		e->unacked = 0;
		rsp->is_ack = true;
		rsp->ack.syndrome = sroce_syndrome_ack(SROCE_AETH_CREDIT_INVALID);
		rsp->ack.psn = sroce_psn_prev(e->epsn);
		rsp->ack.msn = e->msn & SROCE_MSN_MASK;
		return true;
	}
	return false;
}

void sroce_rq_read_failed(struct sroce_rq_eng *e, u32 psn,
			  struct sroce_tx_ack *nak)
{
	nak->syndrome = sroce_syndrome_nak(SROCE_NAK_REM_ACCESS);
	nak->psn = sroce_psn_mask(psn);
	nak->msn = e->msn & SROCE_MSN_MASK;
	sroce_rq_error(e);
}

bool sroce_rq_check(const struct sroce_rq_eng *e)
{
	bool bad = false;

	bad |= SROCE_ENGINE_WARN(!e->nres || e->nres > e->nres_max);
	bad |= SROCE_ENGINE_WARN(e->res_next >= e->nres);
	bad |= SROCE_ENGINE_WARN(e->cur >= (s32)e->nres);
	if (e->cur >= 0) {
		const struct sroce_rd_res *r = &e->res[e->cur];

		bad |= SROCE_ENGINE_WARN(!r->pending || !r->valid);
		bad |= SROCE_ENGINE_WARN(r->next_off > r->end_off ||
					r->end_off > r->length);
	}
	bad |= SROCE_ENGINE_WARN(e->state != SROCE_RQ_ACTIVE && e->rwqe_held);
	bad |= SROCE_ENGINE_WARN(e->seq == SROCE_SEQ_WRITE &&
				e->msg_off > e->wr_len);
	bad |= SROCE_ENGINE_WARN(e->seq == SROCE_SEQ_SEND &&
				(!e->rwqe_held || e->msg_off > e->rwqe_len));
	return !bad;
}

void sroce_tx_ack_hdrs(const struct sroce_tx_ack *ack, u32 dqpn, u16 pkey,
		       struct sroce_hdrs *h)
{
	memset(h, 0, sizeof(*h));
	h->bth.opcode = SROCE_RC_ACK;
	h->bth.pkey = pkey;
	h->bth.dqpn = dqpn;
	h->bth.psn = ack->psn;
	h->aeth.syndrome = ack->syndrome;
	h->aeth.msn = ack->msn;
}

void sroce_tx_rsp_hdrs(const struct sroce_tx_rsp *rsp, u32 dqpn, u16 pkey,
		       struct sroce_hdrs *h)
{
	memset(h, 0, sizeof(*h));
	h->bth.opcode = rsp->opcode;
	h->bth.pkey = pkey;
	h->bth.dqpn = dqpn;
	h->bth.psn = rsp->psn;
	h->aeth.syndrome = rsp->syndrome;
	h->aeth.msn = rsp->msn;
	h->atmack.orig = rsp->orig;
}
