// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host glue: the engines of one endpoint and the carrying out of their
 * actions, shared by the unit tests and the simulator (see glue.h).
 *
 * Every engine call is followed by sroce_sq_check() / sroce_rq_check(),
 * and what the engines ask for is checked before it is done: placement
 * inside what rkey_ok approved, completions in [comp, fetch), one
 * receive WQE held at a time.  A failed check goes to ops->fail and the
 * glue carries out nothing more.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glue.h"

/* Engine steps in one pump before it counts as a livelock */
#define HG_PUMP_MAX	200000

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "host glue: out of memory (%zu bytes)\n", n);
		exit(2);
	}
	return p;
}

static __attribute__((format(printf, 2, 3)))
void hg_fail(struct hg_side *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	s->ops->fail(s, fmt, ap);
	va_end(ap);
}

static void note(struct hg_side *s, enum hg_note what, u8 opcode, u32 psn,
		 u64 a, u64 b)
{
	if (s->ops->note)
		s->ops->note(s, what, opcode, psn, a, b);
}

void hg_sq_checked(struct hg_side *s, const char *call)
{
	if (!sroce_sq_check(&s->sq))
		hg_fail(s, "%c: sroce_sq_check() false after %s", s->name,
			call);
}

void hg_rq_checked(struct hg_side *s, const char *call)
{
	if (!sroce_rq_check(&s->rq))
		hg_fail(s, "%c: sroce_rq_check() false after %s", s->name,
			call);
}

static void count_events(struct hg_side *s, u32 events)
{
	int i;

	for (i = 0; i < SROCE_EV_NR; i++)
		if (events & BIT(i))
			s->cnt[HG_CNT_EV_BASE + i]++;
}

void hg_start(struct hg_side *s, const struct hg_cfg *cfg)
{
	s->mtu = cfg->mtu;
	s->transport = cfg->transport;
	sroce_sq_init(&s->sq, s->ring, cfg->sq_size);
	sroce_sq_config(&s->sq, cfg->mtu, cfg->max_rd, cfg->retry_cnt,
			cfg->rnr_retry, cfg->timeout);
	sroce_sq_set_psn(&s->sq, cfg->psn);
	sroce_rq_init(&s->rq, s->res, HG_MAX_RES);
	sroce_rq_config(&s->rq, cfg->mtu, cfg->peer_max_rd, cfg->access,
			cfg->min_rnr_timer);
	sroce_rq_set_psn(&s->rq, cfg->peer_psn);
	if (cfg->transport == SROCE_TRANSPORT_UC) {
		sroce_sq_set_uc(&s->sq);
		sroce_rq_set_uc(&s->rq);
	}
	sroce_rq_start(&s->rq);
	sroce_sq_start(&s->sq);
	hg_sq_checked(s, "sroce_sq_start");
	hg_rq_checked(s, "sroce_rq_start");
	s->sq_base = s->comp_seen = s->sq.fetch;
}

/* ---------------------------------------------------------------- */
/* Memory regions                                                      */

static const struct hg_mr *mr_find(const struct hg_side *s, u32 rkey)
{
	u32 i;

	for (i = 0; i < s->nmr; i++)
		if (s->mr[i].rkey == rkey)
			return &s->mr[i];
	return NULL;
}

/* The MR that grants @access to [va, va + len) under @rkey, or NULL */
static const struct hg_mr *mr_check(const struct hg_side *s, u32 rkey,
				    u64 va, u64 len, u32 access)
{
	const struct hg_mr *mr = mr_find(s, rkey);

	if (!mr || (mr->access & access) != access)
		return NULL;
	if (va < mr->va || len > mr->len || va - mr->va > mr->len - len)
		return NULL;
	return mr;
}

static u8 *mr_ptr(const struct hg_side *s, const struct hg_mr *mr, u64 va)
{
	return s->mem + mr->off + (va - mr->va);
}

/* ---------------------------------------------------------------- */
/* Packets out                                                         */

void hg_send_pkt(struct hg_side *s, struct sroce_hdrs *h, const u8 *payload,
		 u32 plen)
{
	int total = sroce_pkt_len(h->bth.opcode, plen);
	int hl;
	u8 *buf;

	if (total < 0) {
		hg_fail(s, "%c: cannot build %s with %u payload bytes (%s)",
			s->name, sroce_opcode_name(h->bth.opcode), plen,
			sroce_drop_reason_name(total));
		return;
	}
	buf = xmalloc((size_t)total);
	memset(buf, 0, (size_t)total);
	h->bth.pkey = SROCE_DEFAULT_PKEY;
	h->bth.dqpn = s->peer_qpn;
	hl = sroce_build_hdrs(buf, (size_t)total, h, plen);
	if (hl < 0) {
		free(buf);
		hg_fail(s, "%c: sroce_build_hdrs(%s) failed", s->name,
			sroce_opcode_name(h->bth.opcode));
		return;
	}
	if (plen)
		memcpy(buf + hl, payload, plen);
	s->ops->xmit(s, buf, (u32)total);
}

static void send_ack(struct hg_side *s, const struct sroce_tx_ack *ack)
{
	struct sroce_hdrs h;

	sroce_tx_ack_hdrs(ack, s->peer_qpn, SROCE_DEFAULT_PKEY, &h);
	s->cnt[HG_CNT_ACKS]++;
	note(s, HG_NOTE_TX_ACK, SROCE_RC_ACK, ack->psn, ack->syndrome,
	     ack->msn);
	hg_send_pkt(s, &h, NULL, 0);
}

/* ---------------------------------------------------------------- */
/* Send side                                                           */

static void sq_comp(struct hg_side *s, u32 i, u8 status)
{
	if (s->ops->sq_comp)
		s->ops->sq_comp(s, i, status);
}

/* Successful completions: WQEs [comp_seen, sq.comp) */
static void sq_report(struct hg_side *s)
{
	const struct sroce_sq_eng *e = &s->sq;

	if (e->comp - s->comp_seen > e->fetch - s->comp_seen) {
		hg_fail(s, "%c: comp moved to %u, outside [%u, fetch %u]",
			s->name, e->comp, s->comp_seen, e->fetch);
		return;
	}
	while (s->comp_seen != e->comp && !hg_failed(s)) {
		sq_comp(s, s->comp_seen - s->sq_base, SROCE_WC_SUCCESS);
		s->comp_seen++;
	}
}

/*
 * The send engine is in error: complete [comp, fetch), the failed WQE
 * with its own status, the rest flushed; then what the user posted
 * beyond (ops->sq_flushed).
 */
static void sq_flush(struct hg_side *s)
{
	struct sroce_sq_eng *e = &s->sq;
	u32 idx;

	sq_report(s);
	for (idx = e->comp; idx != e->fetch && !hg_failed(s); idx++) {
		u8 st = SROCE_WC_WR_FLUSH_ERR;

		if (e->err_set && idx == e->err_idx &&
		    e->err_status != SROCE_WC_SUCCESS)
			st = e->err_status;
		sq_comp(s, idx - s->sq_base, st);
	}
	if (s->ops->sq_flushed)
		s->ops->sq_flushed(s);
	sroce_sq_flushed(e);
	hg_sq_checked(s, "sroce_sq_flushed");
	if (e->comp != e->fetch)
		hg_fail(s, "%c: after sroce_sq_flushed comp %u != fetch %u",
			s->name, e->comp, e->fetch);
	s->comp_seen = e->comp;
}

/* SROCE_REQ_FETCH: hand the engine the next posted WQE, if any */
static bool sq_fetch(struct hg_side *s)
{
	struct sroce_sq_eng *e = &s->sq;
	u32 i = e->fetch - s->sq_base;
	struct sroce_wqe w;
	struct sroce_wqe *q;

	if (s->qp_err || !s->ops->fetch)
		return false;
	memset(&w, 0, sizeof(w));
	if (!s->ops->fetch(s, i, &w))
		return false;
	if (!sroce_sq_room(e)) {
		hg_fail(s, "%c: no SQ room for posted WQE %u (comp %u fetch %u size %u)",
			s->name, i, e->comp, e->fetch, e->size);
		return false;
	}
	/* what the user fills; the engine's own state stays in the slot */
	q = &e->wqe[e->fetch & (e->size - 1)];
	q->kind = w.kind;
	q->flags = w.flags;
	q->length = w.length;
	q->remote_addr = w.remote_addr;
	q->rkey = w.rkey;
	q->swap_add = w.swap_add;
	q->compare = w.compare;
	sroce_sq_push(e);
	hg_sq_checked(s, "sroce_sq_push");
	return true;
}

static void req_send(struct hg_side *s, const struct sroce_tx_req *tx)
{
	u32 i = tx->idx - s->sq_base;
	struct sroce_hdrs h;
	struct hg_wqe w;

	if (s->ops->req_check && !s->ops->req_check(s, tx))
		return;
	memset(&w, 0, sizeof(w));
	s->ops->wqe(s, i, &w);
	sroce_tx_req_hdrs(tx, s->peer_qpn, SROCE_DEFAULT_PKEY, w.imm,
			  w.inv_rkey, &h);
	if (tx->retransmit)
		s->cnt[HG_CNT_RETRANSMITS]++;
	note(s, HG_NOTE_TX_REQ, tx->opcode, tx->psn, i,
	     ((u64)tx->off << 32) | tx->len);
	/* an ATOMIC WRITE carries its 8 bytes from the WQE */
	hg_send_pkt(s, &h, tx->awrite ? (const u8 *)&tx->swap_add :
		    w.buf + tx->off, tx->len);
}

/* SROCE_REQ_LOCAL: carry out local WQE @idx, as the program says */
static void req_local(struct hg_side *s, u32 idx)
{
	struct sroce_sq_eng *e = &s->sq;
	u8 status = SROCE_WC_SUCCESS;
	struct sroce_sq_act act;
	u32 i = idx - s->sq_base;

	if (s->ops->local && !s->ops->local(s, i, &status))
		return;
	note(s, HG_NOTE_TX_REQ, 0xff, e->next_psn, i, 0);
	memset(&act, 0, sizeof(act));
	sroce_sq_local_done(e, idx, status, &act);
	hg_sq_checked(s, "sroce_sq_local_done");
	hg_sq_exec(s, &act, NULL, 0);
}

/* One requester step; false when it has nothing more to do for now */
static bool req_step(struct hg_side *s)
{
	struct sroce_tx_req tx;
	struct sroce_sq_act act;
	enum sroce_req_verdict v;

	if (s->transport == SROCE_TRANSPORT_UD)
		return s->ops->ud_step && s->ops->ud_step(s);
	memset(&tx, 0, sizeof(tx));
	memset(&act, 0, sizeof(act));
	if (s->ops->req_pre)
		s->ops->req_pre(s);
	v = sroce_req_next(&s->sq, &tx, &act);
	hg_sq_checked(s, "sroce_req_next");
	if (v == SROCE_REQ_SEND)
		req_send(s, &tx);
	else if (v == SROCE_REQ_LOCAL)
		req_local(s, tx.idx);
	else if (v == SROCE_REQ_BUDGET && s->ops->req_budget)
		s->ops->req_budget(s);
	else
		note(s, HG_NOTE_REQ_IDLE, 0xff, s->sq.next_psn, v,
		     ((u64)(s->sq.req - s->sq_base) << 32) | s->sq.req_off);
	hg_sq_exec(s, &act, NULL, 0);
	if (hg_failed(s) || s->qp_err)
		return false;
	if (v == SROCE_REQ_FETCH)
		return sq_fetch(s);
	return v == SROCE_REQ_SEND || v == SROCE_REQ_LOCAL;
}

/* A READ response's payload or an atomic's result into its WQE */
static bool sq_place(struct hg_side *s, const struct sroce_sq_act *act,
		     const u8 *payload, u32 plen)
{
	const struct sroce_sq_eng *e = &s->sq;
	u32 i = act->place_idx - s->sq_base;
	struct hg_wqe w;

	if (act->place_idx - e->comp >= e->fetch - e->comp) {
		hg_fail(s, "%c: READ response placed into WQE idx %u, outside [comp %u, fetch %u)",
			s->name, act->place_idx, e->comp, e->fetch);
		return false;
	}
	if (s->ops->place_check && !s->ops->place_check(s, act, plen))
		return false;
	if (act->awrite)
		return true;	/* an ATOMIC WRITE's answer: nothing to place */
	memset(&w, 0, sizeof(w));
	s->ops->wqe(s, i, &w);
	if (act->atomic) {
		note(s, HG_NOTE_PLACE, 0xff, 0, i, act->atomic_orig);
		memcpy(w.buf, &act->atomic_orig, 8);
		return true;
	}
	if (act->place_len > plen) {
		hg_fail(s, "%c: WQE %u: place %u bytes from a %u byte payload",
			s->name, i, act->place_len, plen);
		return false;
	}
	note(s, HG_NOTE_PLACE, 0xff, 0, i,
	     ((u64)act->place_off << 32) | act->place_len);
	if (act->place_len)
		memcpy(w.buf + act->place_off, payload, act->place_len);
	return true;
}

void hg_sq_exec(struct hg_side *s, const struct sroce_sq_act *act,
		const u8 *payload, u32 plen)
{
	struct sroce_sq_act act2;

	/* In the order struct sroce_sq_act gives, as the kernel glue */
	count_events(s, act->events);
	if (hg_failed(s))
		return;
	sq_report(s);
	if (act->error)
		hg_qp_error(s);
	if (!s->qp_err && s->ops->timer)
		s->ops->timer(s, act);
	if (act->kick)
		s->want_req = true;
	if (act->place && !s->qp_err && !hg_failed(s)) {
		if (!sq_place(s, act, payload, plen))
			return;
		memset(&act2, 0, sizeof(act2));
		sroce_comp_placed(&s->sq, act, true, &act2);
		hg_sq_checked(s, "sroce_comp_placed");
		if (act2.place) {
			hg_fail(s, "%c: sroce_comp_placed asks to place again",
				s->name);
			return;
		}
		hg_sq_exec(s, &act2, NULL, 0);
	}
	if (s->ops->sq_room)
		s->ops->sq_room(s);
	hg_pump(s);
}

/* An ACK or READ response reached the requester */
static void rx_response(struct hg_side *s, const struct sroce_pkt *pkt,
			const u8 *payload)
{
	struct sroce_sq_act act;

	s->cnt[HG_CNT_RX_RESP]++;
	memset(&act, 0, sizeof(act));
	sroce_comp_rx(&s->sq, pkt, &act);
	hg_sq_checked(s, "sroce_comp_rx");
	note(s, HG_NOTE_RESULT, 0xff, s->sq.una_psn, act.events,
	     (u64)act.place | (u64)act.error << 12 | (u64)act.kick << 16 |
	     (u64)act.timer << 20);
	hg_sq_exec(s, &act, payload, pkt->payload_len);
}

/* ---------------------------------------------------------------- */
/* Receive side: the engine's environment                              */

static int env_take_rwqe(void *ctx, u32 *len)
{
	struct hg_side *s = ctx;

	if (s->rheld) {
		hg_fail(s, "%c: take_rwqe while receive %u is held", s->name,
			s->rheld_idx);
		return -1;
	}
	if (s->rtaken >= s->rposted) {
		s->cnt[HG_CNT_RQ_EMPTY]++;
		return -1;
	}
	s->rheld = true;
	s->rheld_idx = s->rtaken++;
	s->ops->rwqe(s, s->rheld_idx, len);
	return 0;
}

static bool env_rkey_ok(void *ctx, u32 rkey, u64 va, u32 len, u32 access)
{
	struct hg_side *s = ctx;

	if (!mr_check(s, rkey, va, len, access)) {
		s->cnt[HG_CNT_RKEY_DENIED]++;
		return false;
	}
	if (!(access & SROCE_ACC_REMOTE_WRITE))
		return true;
	/* the Write in progress: its packets must stay inside this */
	s->ok_valid = true;
	s->ok_rkey = rkey;
	s->ok_va = va;
	s->ok_len = len;
	return true;
}

static bool env_atomic(void *ctx, const struct sroce_atomic_op *op,
		       u64 *orig)
{
	struct hg_side *s = ctx;
	const struct hg_mr *mr;
	u64 v;
	u8 *p;

	if (op->va & 7) {
		hg_fail(s, "%c: misaligned atomic at %llx reached the glue",
			s->name, (unsigned long long)op->va);
		return false;
	}
	mr = mr_check(s, op->rkey, op->va, 8, op->write ?
		      SROCE_ACC_REMOTE_WRITE : SROCE_ACC_REMOTE_ATOMIC);
	if (!mr) {
		s->cnt[HG_CNT_RKEY_DENIED]++;
		return false;
	}
	p = mr_ptr(s, mr, op->va);
	if (op->write) {
		memcpy(p, &op->swap_add, 8);
		s->cnt[HG_CNT_ATOMICS]++;
		s->cnt[HG_CNT_ATOMIC_WRITES]++;
		return true;
	}
	memcpy(&v, p, 8);
	*orig = v;
	if (!op->cmp_swap)
		v += op->swap_add;
	else if (v == op->compare)
		v = op->swap_add;
	memcpy(p, &v, 8);
	s->cnt[HG_CNT_ATOMICS]++;
	return true;
}

/* ---------------------------------------------------------------- */
/* Receive side: carrying out                                          */

static bool rq_place_rwqe(struct hg_side *s, const struct sroce_rq_act *act,
			  const u8 *payload)
{
	u32 len;
	u8 *buf;

	if (!s->rheld) {
		hg_fail(s, "%c: PLACE_RWQE with no receive WQE held", s->name);
		return false;
	}
	buf = s->ops->rwqe(s, s->rheld_idx, &len);
	if ((u64)act->off + act->len > len) {
		hg_fail(s, "%c: PLACE_RWQE [%u, +%u) beyond receive %u of %u bytes",
			s->name, act->off, act->len, s->rheld_idx, len);
		return false;
	}
	if (act->len)
		memcpy(buf + act->off, payload, act->len);
	return true;
}

/* Remote write: the glue checks the key again, as the kernel does */
static bool rq_place_mr(struct hg_side *s, u32 psn, struct sroce_rq_act *act,
			const u8 *payload)
{
	const struct hg_mr *mr;

	if (!act->len)
		return true;
	mr = mr_check(s, act->rkey, act->va, act->len, SROCE_ACC_REMOTE_WRITE);
	if (!mr) {
		hg_fail(s, "%c: PLACE_MR rkey %x va %llx len %u: not granted (glue refuses; engine must have checked)",
			s->name, act->rkey, (unsigned long long)act->va,
			act->len);
		sroce_rq_fail(&s->rq, psn, SROCE_NAK_REM_ACCESS,
			      SROCE_WC_SUCCESS, act);
		hg_rq_checked(s, "sroce_rq_fail");
		return false;
	}
	if (!s->ok_valid || act->rkey != s->ok_rkey || act->va < s->ok_va ||
	    act->va - s->ok_va + act->len > s->ok_len) {
		hg_fail(s, "%c: PLACE_MR rkey %x [%llx, +%u) outside what rkey_ok approved (%x [%llx, +%llu))",
			s->name, act->rkey, (unsigned long long)act->va,
			act->len, s->ok_rkey, (unsigned long long)s->ok_va,
			(unsigned long long)s->ok_len);
		return false;
	}
	memcpy(mr_ptr(s, mr, act->va), payload, act->len);
	return true;
}

/* Send with Invalidate, its data in place: the key goes, or the QP */
static void rq_invalidate(struct hg_side *s, u32 psn,
			  struct sroce_rq_act *act)
{
	if (!act->wc_inv || !s->ops->invalidate ||
	    s->ops->invalidate(s, act->inv_rkey))
		return;
	sroce_rq_fail(&s->rq, psn, SROCE_NAK_INVALID_REQ,
		      SROCE_WC_REM_INV_REQ_ERR, act);
	hg_rq_checked(s, "sroce_rq_fail");
}

static void rq_complete(struct hg_side *s, const struct sroce_pkt *pkt,
			const struct sroce_rq_act *act)
{
	u32 idx = s->rheld_idx;

	if (!s->rheld) {
		hg_fail(s, "%c: receive completion with no receive WQE held",
			s->name);
		return;
	}
	s->rheld = false;
	if (s->ops->rq_comp)
		s->ops->rq_comp(s, idx, pkt, act);
}

void hg_rq_exec(struct hg_side *s, const struct sroce_pkt *pkt,
		const u8 *payload, struct sroce_rq_act *act)
{
	u32 psn = pkt->hdr.bth.psn;

	count_events(s, act->events);
	if (act->place != SROCE_PLACE_NONE && act->len > pkt->payload_len) {
		hg_fail(s, "%c: placement of %u bytes from a %u byte payload",
			s->name, act->len, pkt->payload_len);
		return;
	}
	if (act->place == SROCE_PLACE_RWQE &&
	    !rq_place_rwqe(s, act, payload))
		return;
	if (act->place == SROCE_PLACE_MR)
		rq_place_mr(s, psn, act, payload);
	if (act->place > SROCE_PLACE_MR)
		hg_fail(s, "%c: unknown placement %u", s->name, act->place);
	rq_invalidate(s, psn, act);
	if (act->complete)
		rq_complete(s, pkt, act);
	if (act->ack)
		send_ack(s, &act->tx);
	if (act->error)
		hg_qp_error(s);
	if (act->kick)
		s->want_rsp = true;
	hg_pump(s);
}

void hg_rq_rx(struct hg_side *s, const struct sroce_pkt *pkt,
	      struct sroce_rq_act *act)
{
	struct sroce_rq_env env = {
		.ctx = s,
		.take_rwqe = env_take_rwqe,
		.rkey_ok = env_rkey_ok,
		.atomic = env_atomic,
	};

	s->cnt[HG_CNT_RX_REQ]++;
	memset(act, 0, sizeof(*act));
	sroce_rq_rx(&s->rq, pkt, &env, act);
	hg_rq_checked(s, "sroce_rq_rx");
	note(s, HG_NOTE_RESULT, 0xff, s->rq.epsn, act->events,
	     (u64)act->place | (u64)act->complete << 4 | (u64)act->ack << 8 |
	     (u64)act->error << 12 | (u64)act->kick << 16);
}

static void send_read_rsp(struct hg_side *s, const struct sroce_tx_rsp *r)
{
	const struct sroce_opcode_info *info = sroce_opcode_get(r->opcode);
	const struct hg_mr *mr = NULL;
	struct sroce_tx_ack nak;
	struct sroce_hdrs h;

	if (r->opcode == SROCE_RC_ATOMIC_ACK && !r->len) {
		sroce_tx_rsp_hdrs(r, s->peer_qpn, SROCE_DEFAULT_PKEY, &h);
		note(s, HG_NOTE_TX_RSP, r->opcode, r->psn, r->orig, 0);
		hg_send_pkt(s, &h, NULL, 0);
		return;
	}
	if (!info || !(info->mask & SROCE_MASK_READ) ||
	    !(info->mask & SROCE_MASK_RESP) || r->len > s->mtu) {
		hg_fail(s, "%c: bad READ response %s len %u", s->name,
			sroce_opcode_name(r->opcode), r->len);
		return;
	}
	if (r->len) {
		mr = mr_check(s, r->rkey, r->va, r->len, SROCE_ACC_REMOTE_READ);
		if (!mr) {
			hg_fail(s, "%c: READ response from rkey %x [%llx, +%u): not granted",
				s->name, r->rkey, (unsigned long long)r->va,
				r->len);
			sroce_rq_read_failed(&s->rq, r->psn, &nak);
			hg_rq_checked(s, "sroce_rq_read_failed");
			send_ack(s, &nak);
			hg_qp_error(s);
			return;
		}
	}
	sroce_tx_rsp_hdrs(r, s->peer_qpn, SROCE_DEFAULT_PKEY, &h);
	s->cnt[HG_CNT_READ_RESPS]++;
	note(s, HG_NOTE_TX_RSP, r->opcode, r->psn, r->va, r->len);
	hg_send_pkt(s, &h, mr ? mr_ptr(s, mr, r->va) : NULL, r->len);
}

/* One responder step: a READ response or a held ACK */
static bool rsp_step(struct hg_side *s)
{
	struct sroce_tx_rsp r;
	bool more;

	memset(&r, 0, sizeof(r));
	more = sroce_rq_next(&s->rq, &r);
	hg_rq_checked(s, "sroce_rq_next");
	if (!more || hg_failed(s))
		return false;
	if (r.is_ack)
		send_ack(s, &r.ack);
	else
		send_read_rsp(s, &r);
	return !hg_failed(s);
}

/* ---------------------------------------------------------------- */
/* Packets in, QP error, the pump                                      */

int hg_parse(const struct hg_side *s, const u8 *buf, u32 len,
	     struct sroce_pkt *pkt)
{
	int ret = sroce_parse_bth_packet(buf, len, pkt);

	if (!ret && pkt->hdr.bth.dqpn != s->qpn)
		ret = -SROCE_DROP_NR;
	if (!ret && sroce_opcode_transport(pkt->hdr.bth.opcode) !=
		    s->transport)
		ret = -SROCE_DROP_NR;
	return ret;
}

void hg_rx(struct hg_side *s, const struct sroce_pkt *pkt, const u8 *payload)
{
	struct sroce_rq_act act;

	if (pkt->info->mask & SROCE_MASK_REQ) {
		hg_rq_rx(s, pkt, &act);
		if (!hg_failed(s))
			hg_rq_exec(s, pkt, payload, &act);
	} else if (pkt->info->mask & SROCE_MASK_RESP) {
		rx_response(s, pkt, payload);
	}
}

static void rq_flush(struct hg_side *s)
{
	u32 i;

	sroce_rq_error(&s->rq);
	hg_rq_checked(s, "sroce_rq_error");
	if (s->rheld) {
		s->rheld = false;
		if (s->ops->rq_flushed)
			s->ops->rq_flushed(s, s->rheld_idx);
	}
	for (i = s->rtaken; i < s->nrwqes && s->ops->rq_flushed; i++)
		s->ops->rq_flushed(s, i);
	s->rtaken = s->rposted = s->nrwqes;
}

void hg_qp_error(struct hg_side *s)
{
	if (s->qp_err)
		return;
	s->qp_err = true;
	if (s->ops->error)
		s->ops->error(s);
	note(s, HG_NOTE_ERROR, 0xff, 0, s->sq.state, s->sq.err_status);
	if (s->sq.state == SROCE_SQ_ERROR) {
		s->sq_err = true;
	} else {
		sroce_sq_fail(&s->sq, s->sq.comp, SROCE_WC_SUCCESS);
		hg_sq_checked(s, "sroce_sq_fail");
	}
	sq_flush(s);
	rq_flush(s);
	s->want_req = s->want_rsp = false;
}

static void pump_one(struct hg_side *s)
{
	if (s->want_rsp && (s->rsp_turn || !s->want_req)) {
		s->rsp_turn = false;
		s->want_rsp = false;
		if (rsp_step(s))
			s->want_rsp = true;
	} else {
		s->rsp_turn = true;
		s->want_req = false;
		if (req_step(s))
			s->want_req = true;
	}
}

void hg_pump(struct hg_side *s)
{
	u32 steps = 0;

	if (s->in_pump)
		return;
	s->in_pump = true;
	while (!hg_failed(s) && !s->qp_err && (s->want_req || s->want_rsp)) {
		if (s->ops->tx_room && !s->ops->tx_room(s))
			break;
		if (++steps > HG_PUMP_MAX) {
			hg_fail(s, "%c: engines produced %u packets at one instant (livelock)",
				s->name, steps);
			break;
		}
		pump_one(s);
	}
	s->in_pump = false;
}

void hg_kick(struct hg_side *s)
{
	s->want_req = true;
	hg_pump(s);
}
