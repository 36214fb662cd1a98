// SPDX-License-Identifier: GPL-2.0-only
/*
 * The end-of-run oracle:
 *
 * - every send WQE completed exactly once (success, error or flush);
 * - every receive WQE completed at most once, exactly once on a QP in
 *   error, and successfully with the right length / immediate whenever
 *   the peer's WQE that consumed it succeeded;
 * - a successful Write / Send / Read left the source bytes at the
 *   destination, byte for byte;
 * - atomics ran exactly once each, in order: every successful one
 *   returned the value its cell had after the atomics before it, and
 *   each cell ends as after the first m atomics, for one m no smaller
 *   than the successful ones (all of them when all succeeded);
 * - UC: receives complete in order, each with a whole message that was
 *   sent (checked as they complete); a Write is whole, partly there or
 *   absent, byte for byte; on a perfect wire nothing may be lost;
 * - no other byte of either memory changed; with an adversary, bytes the
 *   peer was granted (remote-writable MRs, receive buffers, READ
 *   destinations) may, nothing else;
 * - a QP in error is a legitimate outcome only for RNR retries running
 *   out (finite rnr_retry, receives trickling in), retries running out
 *   on a lossy wire or behind a dead peer, or anything the adversary
 *   provoked.
 */
#include <stdio.h>
#include <string.h>

#include "sim_int.h"

static const char *const zone_name[SZ_NR] = {
	[SZ_W] = "peer-write", [SZ_R] = "peer-read", [SZ_RW] = "peer-rw",
	[SZ_A] = "peer-atomic", [SZ_LOCAL] = "local", [SZ_RECV] = "recv",
};

static const char *wc_name(u8 st)
{
	switch (st) {
	case SROCE_WC_SUCCESS:		return "success";
	case SIM_WC_FLUSH:		return "flush";
	case SROCE_WC_BAD_RESP_ERR:	return "bad-resp";
	case SROCE_WC_REM_INV_REQ_ERR:	return "rem-inv-req";
	case SROCE_WC_REM_ACCESS_ERR:	return "rem-access";
	case SROCE_WC_REM_OP_ERR:	return "rem-op";
	case SROCE_WC_RETRY_EXC_ERR:	return "retry-exc";
	case SROCE_WC_RNR_RETRY_EXC_ERR: return "rnr-retry-exc";
	case SIM_WC_NONE:		return "none";
	default:			return "other";
	}
}

bool sim_all_done(const struct sim *w)
{
	return w->side[0].done == w->side[0].nops &&
	       w->side[1].done == w->side[1].nops;
}

/* "zone+offset" of a byte, for messages */
static void locate(const struct sim_side *s, u64 off, char *buf, size_t n)
{
	int z;

	for (z = SZ_NR - 1; z >= 0; z--)
		if (off >= s->zone_off[z])
			break;
	if (z < 0 || off >= s->zone_off[z] + s->zone_len[z])
		snprintf(buf, n, "guard@%llu", (unsigned long long)off);
	else
		snprintf(buf, n, "%s+%llu", zone_name[z],
			 (unsigned long long)(off - s->zone_off[z]));
}

static void check_ops(struct sim *w, struct sim_side *s)
{
	u32 i;

	for (i = 0; i < s->nops && !w->failed; i++) {
		const struct sim_op *op = &s->ops[i];

		if (op->ncomp != 1)
			sim_fail(w, "%c: WQE %u (kind %u len %u) completed %u times",
				 'A' + s->id, i, op->kind, op->len, op->ncomp);
		else if (op->kind == SROCE_WR_LOCAL &&
			 op->status == SROCE_WC_SUCCESS && op->nlocal != 1)
			sim_fail(w, "%c: local WQE %u completed, carried out %u times",
				 'A' + s->id, i, op->nlocal);
	}
}

/* Where a successful @op's bytes must be, and where they come from */
static void op_bytes(const struct sim_side *s, const struct sim_op *op,
		     const u8 **dst, const u8 **src)
{
	const struct sim_side *peer = s->peer;
	u64 loff = s->zone_off[op->lzone] + op->loff;
	u64 roff = op->rzone < SZ_NR ? peer->zone_off[op->rzone] + op->roff : 0;

	switch (op->kind) {
	case SROCE_WR_READ:
		*dst = s->g.mem + loff;
		*src = peer->init + roff;
		break;
	case SROCE_WR_WRITE:
	case SROCE_WR_WRITE_IMM:
		*dst = peer->g.mem + roff;
		*src = s->init + loff;
		break;
	default:
		*dst = peer->g.mem + peer->rwqes[op->rwqe].off;
		*src = s->init + loff;
	}
}

static void check_data(struct sim *w, struct sim_side *s)
{
	const u8 *dst, *src;
	u32 i, j;

	for (i = 0; i < s->nops && !w->failed; i++) {
		const struct sim_op *op = &s->ops[i];

		if (op->status != SROCE_WC_SUCCESS || !op->len ||
		    sim_kind_atomic(op->kind))
			continue;
		op_bytes(s, op, &dst, &src);
		if (!memcmp(dst, src, op->len))
			continue;
		for (j = 0; dst[j] == src[j]; j++)
			;
		sim_fail(w, "%c: WQE %u (kind %u len %u) completed successfully but byte %u of its destination is wrong",
			 'A' + s->id, i, op->kind, op->len, j);
	}
}

static u64 get64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, 8);
	return v;
}

static u64 atomic_apply(const struct sim_op *op, u64 v)
{
	if (op->kind == SROCE_WR_FETCH_ADD)
		return v + op->swap_add;
	if (op->kind == SROCE_WR_ATOMIC_WRITE)
		return op->swap_add;
	return v == op->compare ? op->swap_add : v;
}

/* Do the peer's cells hold @model? */
static bool cells_are(const struct sim_side *peer, const u64 *model)
{
	u32 c;

	for (c = 0; c < SIM_NCELLS; c++)
		if (get64(peer->g.mem + peer->zone_off[SZ_A] + peer->cell0 +
			  8ULL * c) != model[c])
			return false;
	return true;
}

/* Atomics of @s on its peer's cells: exactly once, in order */
static void check_atomics(struct sim *w, struct sim_side *s)
{
	const struct sim_side *peer = s->peer;
	u64 model[SIM_NCELLS];
	u32 i, c, n = 0, least = 0;
	bool ok = false;

	/* the atomics that ran are the first m, m >= the last success */
	for (i = 0; i < s->nops; i++) {
		if (!sim_kind_atomic(s->ops[i].kind))
			continue;
		n++;
		if (s->ops[i].status == SROCE_WC_SUCCESS)
			least = n;
	}
	for (c = 0; c < SIM_NCELLS; c++)
		model[c] = get64(peer->init + peer->zone_off[SZ_A] +
				 peer->cell0 + 8ULL * c);
	n = 0;
	for (i = 0; i < s->nops && !w->failed; i++) {
		const struct sim_op *op = &s->ops[i];
		u64 got;

		if (!sim_kind_atomic(op->kind))
			continue;
		if (n++ >= least)
			ok |= cells_are(peer, model);
		got = get64(s->g.mem + s->zone_off[op->lzone] + op->loff);
		if (op->status == SROCE_WC_SUCCESS &&
		    op->kind != SROCE_WR_ATOMIC_WRITE && got != model[op->cell])
			sim_fail(w, "%c: atomic WQE %u (kind %u cell %u) returned %llu, the cell held %llu",
				 'A' + s->id, i, op->kind, op->cell,
				 (unsigned long long)got,
				 (unsigned long long)model[op->cell]);
		model[op->cell] = atomic_apply(op, model[op->cell]);
	}
	ok |= cells_are(peer, model);
	if (!w->failed && !ok)
		sim_fail(w, "%c: the peer's atomic cells match no prefix of the atomics posted: one ran twice, or out of order",
			 'A' + s->id);
}

/* UC on a faulty wire: each byte a Write targets is the source's or as was */
static void check_uc_writes(struct sim *w, struct sim_side *s)
{
	const struct sim_side *peer = s->peer;
	u32 i, j;

	for (i = 0; i < s->nops && !w->failed; i++) {
		const struct sim_op *op = &s->ops[i];
		const u8 *src = s->init + s->zone_off[op->lzone] + op->loff;
		u64 roff;

		if (op->kind != SROCE_WR_WRITE && op->kind != SROCE_WR_WRITE_IMM)
			continue;
		roff = peer->zone_off[op->rzone] + op->roff;
		for (j = 0; j < op->len; j++) {
			if (peer->g.mem[roff + j] == src[j] ||
			    peer->g.mem[roff + j] == peer->init[roff + j])
				continue;
			sim_fail(w, "%c: UC Write WQE %u (len %u): byte %u is neither the source's nor the original",
				 'A' + s->id, i, op->len, j);
			break;
		}
	}
}

static void check_rwqes(struct sim *w, struct sim_side *s)
{
	u32 i;

	for (i = 0; i < s->g.nrwqes && !w->failed; i++) {
		const struct sim_rwqe *rw = &s->rwqes[i];
		const struct sim_op *op = &s->peer->ops[rw->op];

		if (rw->ncomp > 1 || (s->g.qp_err && rw->ncomp != 1))
			sim_fail(w, "%c: receive %u completed %u times (QP %s)",
				 'A' + s->id, i, rw->ncomp,
				 s->g.qp_err ? "in error" : "alive");
		else if (!w->adversarial && op->status == SROCE_WC_SUCCESS &&
			 (!sim_unreliable(&w->p) || w->p.uc_strict) &&
			 (rw->ncomp != 1 || rw->status != SROCE_WC_SUCCESS))
			sim_fail(w, "%c: receive %u: its Send (%c WQE %u) succeeded, receive %s",
				 'A' + s->id, i, 'A' + s->peer->id, rw->op,
				 rw->ncomp ? wc_name(rw->status) :
					     "never completed");
	}
}

static void check_untouched(struct sim *w, struct sim_side *s)
{
	char where[64];
	u64 i;

	for (i = 0; i < s->mem_len; i++) {
		u8 m = s->mark[i];

		if (s->g.mem[i] == s->init[i] || (m & SM_TARGET))
			continue;
		if (w->adversarial && (m & SM_PEER))
			continue;
		locate(s, i, where, sizeof(where));
		sim_fail(w, "%c: byte %s changed (%02x -> %02x): nobody may write it",
			 'A' + s->id, where, s->init[i], s->g.mem[i]);
		return;
	}
}

/* May side @s legitimately have gone to error? */
static bool error_is_legit(const struct sim *w, const struct sim_side *s)
{
	const struct sim_wire_cfg *c = &w->cfg->wire;
	u8 st = w->res->sq_err_status[s->id];

	if (w->cfg->legit_errors_ok || w->adversarial)
		return true;
	if (!s->g.sq_err)
		return false;	/* the responder failed the QP */
	if (st == SROCE_WC_RNR_RETRY_EXC_ERR)
		return w->p.rq_trickle &&
		       w->p.rnr_retry != SROCE_RNR_RETRY_INFINITE;
	if (st == SROCE_WC_RETRY_EXC_ERR)	/* lossy, or behind a dead peer */
		return c->loss > 0 || c->corrupt > 0 || c->rx_ns ||
		       (s->peer->g.qp_err && s->peer->err_ns < s->err_ns &&
			error_is_legit(w, s->peer));
	return false;
}

static void classify(struct sim *w)
{
	struct sim_result *res = w->res;
	size_t n = 0;
	int i;

	res->outcome = SIM_DONE;
	for (i = 0; i < 2; i++) {
		const struct sim_side *s = &w->side[i];

		if (!s->g.qp_err)
			continue;
		res->outcome = SIM_KILLED;
		n += (size_t)snprintf(res->why + n, sizeof(res->why) - n,
				      "%s%c: %s %s", n ? "; " : "", 'A' + i,
				      s->g.sq_err ? "send side failed" :
						  "responder failed",
				      wc_name(res->sq_err_status[i]));
		if (n >= sizeof(res->why))
			break;
	}
	for (i = 0; i < 2; i++) {
		if (w->side[i].g.qp_err && !error_is_legit(w, &w->side[i])) {
			char why[sizeof(res->why)];

			memcpy(why, res->why, sizeof(why));
			sim_fail(w, "QP error with no legitimate cause: %s", why);
			return;
		}
	}
}

/*
 * A wire that loses, duplicates, reorders and corrupts nothing, into a
 * receiver that keeps up: every packet arrives once and in the order its
 * sender built it, however late its contexts sent it.  Nothing may then
 * be resent, no timer expire, no PSN gap be NAKed.  Unless an RNR NAK came:
 * the receiver had no WQE, and what followed the packet it refused is
 * out of sequence there until the requester resends.
 */
static void check_clean_wire(struct sim *w)
{
	const struct sim_wire_cfg *c = &w->cfg->wire;
	const u64 *n = w->res->cnt;

	if (c->loss || c->dup || c->reorder || c->corrupt || c->jitter_ns ||
	    c->rx_ns || c->ctx_unordered || w->adversarial ||
	    n[SC_EV_BASE + SROCE_EV_RNR_NAK_RCVD])
		return;
	if (n[SC_TIMEOUTS] || n[SC_EV_BASE + SROCE_EV_SEQ_NAK_SENT] ||
	    n[SC_RETRANSMITS])
		sim_fail(w, "a loss-free wire in order saw %llu resends, %llu timeouts, %llu sequence NAKs",
			 (unsigned long long)n[SC_RETRANSMITS],
			 (unsigned long long)n[SC_TIMEOUTS],
			 (unsigned long long)n[SC_EV_BASE +
					       SROCE_EV_SEQ_NAK_SENT]);
}

void sim_check_final(struct sim *w)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct sim_side *s = &w->side[i];

		check_ops(w, s);
		check_rwqes(w, s);
		if (w->adversarial || w->p.ud)
			;	/* UD: each datagram checked as it landed */
		else if (w->p.uc && !w->p.uc_strict)
			check_uc_writes(w, s);
		else if (!w->adversarial) {
			check_data(w, s);
			check_atomics(w, s);
		}
		check_untouched(w, s);
	}
	if (!w->failed)
		check_clean_wire(w);
	if (!w->failed)
		classify(w);
}
