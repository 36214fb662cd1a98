// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulated world: a virtual clock and an event queue, a wire per
 * direction, and the glue that drives the two engines of each endpoint
 * exactly as the kernel module does.
 *
 * - Events: packet delivered, retransmit timer, RNR timer, link ready to
 *   take more packets, user posts send WQEs, user posts receive WQEs,
 *   adversary injects a packet.  Ties break by insertion order, so a
 *   seed replays event for event.
 * - Wire: one link per endpoint (its transmit side) serialises packets at
 *   the configured bandwidth; each packet then gets latency +- jitter, an
 *   optional reorder delay, and may be lost, duplicated or corrupted.
 *   The engines are paused while the link holds more than
 *   SIM_TX_BACKLOG_BYTES, like a NIC ring that is full.
 * - Glue: every engine call is followed by sroce_sq_check() /
 *   sroce_rq_check() and by the simulator's own checks of what the engine
 *   asked for (placement inside what was granted and requested,
 *   completions in [comp, fetch), each WQE completed once).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

enum sim_ev_type {
	EV_DELIVER,
	EV_REXMIT,
	EV_RNR,
	EV_TX_READY,
	EV_POST,
	EV_RPOST,
	EV_FORGE,
};

#define EVF_CORRUPT	BIT(0)
#define EVF_FORGED	BIT(1)
#define EVF_TAKEN	BIT(2)	/* through the slow receiver's queue */

struct sim_ev {
	u64	t;
	u64	seq;
	u8	type;
	u8	side;
	u8	flags;
	u32	gen;
	u8	*buf;
	u32	len;
};

/* Ethernet + FCS, IPv4, UDP, preamble and gap: bytes a packet costs */
#define SIM_WIRE_OVERHEAD	(18 + 20 + 8 + 20)
/* Link backlog above which the engines are not asked for more */
#define SIM_TX_BACKLOG_BYTES	(64 * 1024)
/* Engine steps in one pump before it counts as a livelock */
#define SIM_PUMP_MAX		200000

static struct sim *cur_world;

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "sim: out of memory (%zu bytes)\n", n);
		exit(2);
	}
	return p;
}

/* ---------------------------------------------------------------- */
/* Failure reports and the trace                                       */

static const char *const what_name[] = {
	[ST_TX_REQ] = "tx-req",
	[ST_TX_ACK] = "tx-ack",
	[ST_TX_RSP] = "tx-rsp",
	[ST_LOST] = "lost",
	[ST_CORRUPT] = "corrupt",
	[ST_DUP] = "dup",
	[ST_RX] = "rx",
	[ST_RX_FORGED] = "rx-forged",
	[ST_DROP] = "drop",
	[ST_PLACE] = "place",
	[ST_COMP] = "complete",
	[ST_RCOMP] = "recv-comp",
	[ST_ERROR] = "qp-error",
	[ST_TIMER] = "timer",
	[ST_TIMEOUT] = "timeout",
	[ST_RNR_DONE] = "rnr-done",
	[ST_POST] = "post",
	[ST_RPOST] = "post-recv",
	[ST_FORGE] = "forge",
	[ST_FLUSH] = "flushed",
	[ST_REQ_IDLE] = "req-idle",
	[ST_RESULT] = "  ->",
};

static void trace_print(FILE *f, const struct sim_trace *t)
{
	const char *op = t->opcode == 0xff ? "" : sroce_opcode_name(t->opcode);

	fprintf(f, "#  %10llu.%03llu us  %c  %-9s %-24s psn %06x  %llx %llx\n",
		(unsigned long long)(t->t / 1000),
		(unsigned long long)(t->t % 1000), 'A' + t->side,
		what_name[t->what], op, t->psn, (unsigned long long)t->a,
		(unsigned long long)t->b);
}

void sim_note(struct sim *w, int side, u8 what, u8 opcode, u32 psn, u64 a,
	      u64 b)
{
	struct sim_trace *t = &w->trace[w->ntrace++ % SIM_TRACE];

	t->t = w->now;
	t->side = (u8)side;
	t->what = what;
	t->opcode = opcode;
	t->psn = psn;
	t->a = a;
	t->b = b;
	if (w->cfg->verbose > 1)
		trace_print(stdout, t);
}

static void trace_dump(const struct sim *w, FILE *f, u32 last)
{
	u64 n = w->ntrace < last ? w->ntrace : last;
	u64 i;

	fprintf(f, "# last %llu of %llu events (time side what opcode psn a b):\n",
		(unsigned long long)n, (unsigned long long)w->ntrace);
	for (i = w->ntrace - n; i < w->ntrace; i++)
		trace_print(f, &w->trace[i % SIM_TRACE]);
}

void sim_dump_trace(void)
{
	if (cur_world)
		trace_dump(cur_world, stdout, 200);
}

void sim_fail(struct sim *w, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (w->failed)
		return;
	w->failed = true;
	n = snprintf(w->res->why, sizeof(w->res->why), "t=%llu ns: ",
		     (unsigned long long)w->now);
	va_start(ap, fmt);
	vsnprintf(w->res->why + n, sizeof(w->res->why) - (size_t)n, fmt, ap);
	va_end(ap);
}

static void sq_checked(struct sim *w, struct sim_side *s, const char *call)
{
	if (!sroce_sq_check(&s->sq))
		sim_fail(w, "%c: sroce_sq_check() false after %s", 'A' + s->id,
			 call);
}

static void rq_checked(struct sim *w, struct sim_side *s, const char *call)
{
	if (!sroce_rq_check(&s->rq))
		sim_fail(w, "%c: sroce_rq_check() false after %s", 'A' + s->id,
			 call);
}

static void count_events(struct sim *w, u32 events)
{
	int i;

	for (i = 0; i < SROCE_EV_NR; i++)
		if (events & BIT(i))
			w->res->cnt[SC_EV_BASE + i]++;
}

/* ---------------------------------------------------------------- */
/* Event queue: a binary min-heap on (time, insertion order)           */

static bool ev_before(const struct sim_ev *a, const struct sim_ev *b)
{
	return a->t != b->t ? a->t < b->t : a->seq < b->seq;
}

static void ev_push(struct sim *w, struct sim_ev *ev)
{
	u32 i;

	if (w->nheap == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 1024;
		w->heap = realloc(w->heap, w->cap * sizeof(*w->heap));
		if (!w->heap) {
			fprintf(stderr, "sim: out of memory (events)\n");
			exit(2);
		}
	}
	ev->seq = w->seq++;
	for (i = w->nheap++; i; ) {
		u32 parent = (i - 1) / 2;

		if (!ev_before(ev, &w->heap[parent]))
			break;
		w->heap[i] = w->heap[parent];
		i = parent;
	}
	w->heap[i] = *ev;
}

static bool ev_pop(struct sim *w, struct sim_ev *out)
{
	struct sim_ev last;
	u32 i = 0;

	if (!w->nheap)
		return false;
	*out = w->heap[0];
	last = w->heap[--w->nheap];
	for (;;) {
		u32 c = 2 * i + 1;

		if (c >= w->nheap)
			break;
		if (c + 1 < w->nheap && ev_before(&w->heap[c + 1], &w->heap[c]))
			c++;
		if (!ev_before(&w->heap[c], &last))
			break;
		w->heap[i] = w->heap[c];
		i = c;
	}
	if (w->nheap)
		w->heap[i] = last;
	return true;
}

static void ev_at(struct sim *w, u64 t, u8 type, int side, u32 gen, u8 *buf,
		  u32 len, u8 flags)
{
	struct sim_ev ev = {
		.t = t, .type = type, .side = (u8)side, .gen = gen,
		.buf = buf, .len = len, .flags = flags,
	};

	ev_push(w, &ev);
}

/* ---------------------------------------------------------------- */
/* Memory regions                                                      */

const struct sim_mr *sim_mr_find(const struct sim_side *s, u32 rkey)
{
	int i;

	for (i = 0; i < SIM_NMR; i++)
		if (s->mr[i].rkey == rkey)
			return &s->mr[i];
	return NULL;
}

/* The MR that grants @access to [va, va + len) under @rkey, or NULL */
static const struct sim_mr *mr_check(const struct sim_side *s, u32 rkey,
				     u64 va, u64 len, u32 access)
{
	const struct sim_mr *mr = sim_mr_find(s, rkey);

	if (!mr || (mr->access & access) != access)
		return NULL;
	if (va < mr->va || len > mr->len || va - mr->va > mr->len - len)
		return NULL;
	return mr;
}

static u8 *mr_ptr(const struct sim_side *s, const struct sim_mr *mr, u64 va)
{
	return s->mem + mr->off + (va - mr->va);
}

static u8 *op_local(const struct sim_side *s, const struct sim_op *op)
{
	return s->mem + s->zone_off[op->lzone] + op->loff;
}

/* ---------------------------------------------------------------- */
/* Wire                                                                */

static u64 wire_delay(struct sim *w)
{
	const struct sim_wire_cfg *c = &w->cfg->wire;
	s64 d = (s64)c->latency_ns;

	if (c->jitter_ns)
		d += (s64)rng_below(&w->net, 2 * c->jitter_ns + 1) -
		     (s64)c->jitter_ns;
	if (rng_chance(&w->net, c->reorder)) {
		d += (s64)rng_below(&w->net, c->reorder_ns + 1);
		w->res->cnt[SC_REORDERED]++;
	}
	return d < 0 ? 0 : (u64)d;
}

static void adversary_maybe(struct sim *w)
{
	if (w->cfg->adversary <= 0 || w->cfg->script)
		return;
	if (rng_chance(&w->adv, w->cfg->adversary))
		ev_at(w, w->now + rng_below(&w->adv, 20000), EV_FORGE, 0, 0,
		      NULL, 0, 0);
}

/* A forged packet arrives at @to now; takes @buf */
void sim_inject(struct sim *w, struct sim_side *to, u8 *buf, u32 len)
{
	ev_at(w, w->now, EV_DELIVER, to->id, 0, buf, len, EVF_FORGED);
}

/* Put a legitimate packet on @from's link; takes @buf */
void sim_send_raw(struct sim *w, struct sim_side *from, u8 *buf, u32 len)
{
	const struct sim_wire_cfg *c = &w->cfg->wire;
	u64 start = w->now > from->link_free ? w->now : from->link_free;
	u64 depart = start + (u64)(len + SIM_WIRE_OVERHEAD) * c->ps_per_byte /
			     1000;
	int copies = 1, i;

	from->link_free = depart;
	w->res->cnt[SC_PKTS]++;
	w->res->cnt[SC_BYTES_WIRE] += len;
	adversary_maybe(w);
	if (rng_chance(&w->net, c->loss)) {
		w->res->cnt[SC_LOST]++;
		sim_note(w, from->id, ST_LOST, buf[0], sroce_get_be24(buf + 9),
			 len, 0);
		free(buf);
		return;
	}
	if (rng_chance(&w->net, c->dup)) {
		w->res->cnt[SC_DUPED]++;
		copies = 2;
	}
	for (i = 0; i < copies; i++) {
		u8 *b = buf;
		u8 fl = rng_chance(&w->net, c->corrupt) ? EVF_CORRUPT : 0;

		if (i) {
			b = xmalloc(len);
			memcpy(b, buf, len);
		}
		ev_at(w, depart + wire_delay(w), EV_DELIVER, from->peer->id, 0,
		      b, len, fl);
	}
}

/* Build headers @h + @plen payload bytes and send from @s */
static void send_pkt(struct sim *w, struct sim_side *s, struct sroce_hdrs *h,
		     const u8 *payload, u32 plen)
{
	int total = sroce_pkt_len(h->bth.opcode, plen);
	int hl;
	u8 *buf;

	if (total < 0) {
		sim_fail(w, "%c: cannot build %s with %u payload bytes (%s)",
			 'A' + s->id, sroce_opcode_name(h->bth.opcode), plen,
			 sroce_drop_reason_name(total));
		return;
	}
	buf = xmalloc((size_t)total);
	memset(buf, 0, (size_t)total);
	h->bth.pkey = SROCE_DEFAULT_PKEY;
	h->bth.dqpn = w->p.qpn[s->peer->id];
	hl = sroce_build_hdrs(buf, (size_t)total, h, plen);
	if (hl < 0) {
		free(buf);
		sim_fail(w, "%c: sroce_build_hdrs(%s) failed", 'A' + s->id,
			 sroce_opcode_name(h->bth.opcode));
		return;
	}
	if (plen)
		memcpy(buf + hl, payload, plen);
	sim_send_raw(w, s, buf, (u32)total);
}

static void send_ack(struct sim *w, struct sim_side *s,
		     const struct sroce_tx_ack *ack)
{
	struct sroce_hdrs h;

	sroce_tx_ack_hdrs(ack, w->p.qpn[s->peer->id], SROCE_DEFAULT_PKEY, &h);
	w->res->cnt[SC_ACKS_SENT]++;
	sim_note(w, s->id, ST_TX_ACK, SROCE_RC_ACK, ack->psn, ack->syndrome,
		 ack->msn);
	send_pkt(w, s, &h, NULL, 0);
}

/* ---------------------------------------------------------------- */
/* Send side glue                                                      */

static void pump(struct sim *w, struct sim_side *s);
static void qp_error(struct sim *w, struct sim_side *s);
static void sq_exec(struct sim *w, struct sim_side *s,
		    const struct sroce_sq_act *act, const u8 *payload,
		    u32 plen);

static bool op_has_imm(u8 kind)
{
	return kind == SROCE_WR_SEND_IMM || kind == SROCE_WR_WRITE_IMM;
}

static void op_complete(struct sim *w, struct sim_side *s, u32 i, u8 status)
{
	struct sim_op *op;

	if (i >= s->nops) {
		sim_fail(w, "%c: completion of WQE index %u, only %u in the workload",
			 'A' + s->id, i, s->nops);
		return;
	}
	op = &s->ops[i];
	if (op->ncomp++) {
		sim_fail(w, "%c: WQE %u completed twice (status %u, then %u)",
			 'A' + s->id, i, op->status, status);
		return;
	}
	op->status = status;
	s->done++;
	if (status != SIM_WC_FLUSH)
		sim_note(w, s->id, ST_COMP, 0xff, 0, i, status);
}

/* Successful completions: WQEs [comp_seen, e->comp) */
static void sq_report(struct sim *w, struct sim_side *s)
{
	const struct sroce_sq_eng *e = &s->sq;

	if (e->comp - s->comp_seen > e->fetch - s->comp_seen) {
		sim_fail(w, "%c: comp moved to %u, outside [%u, fetch %u]",
			 'A' + s->id, e->comp, s->comp_seen, e->fetch);
		return;
	}
	while (s->comp_seen != e->comp && !w->failed) {
		u32 i = s->comp_seen - s->sq_base;

		if (i >= s->posted) {
			sim_fail(w, "%c: WQE %u completed, never posted",
				 'A' + s->id, i);
			return;
		}
		op_complete(w, s, i, SROCE_WC_SUCCESS);
		s->comp_seen++;
	}
}

/* The send engine is in error: complete [comp, fetch) and the rest */
static void sq_flush(struct sim *w, struct sim_side *s)
{
	struct sroce_sq_eng *e = &s->sq;
	u32 i, idx;

	sq_report(w, s);
	for (idx = e->comp; idx != e->fetch && !w->failed; idx++) {
		u8 st = SIM_WC_FLUSH;

		if (e->err_set && idx == e->err_idx &&
		    e->err_status != SROCE_WC_SUCCESS)
			st = e->err_status;
		if (st != SIM_WC_FLUSH && !w->res->sq_err_status[s->id])
			w->res->sq_err_status[s->id] = st;
		op_complete(w, s, idx - s->sq_base, st);
	}
	for (i = e->fetch - s->sq_base; i < s->nops && !w->failed; i++)
		op_complete(w, s, i, SIM_WC_FLUSH);
	sim_note(w, s->id, ST_FLUSH, 0xff, 0, e->comp - s->sq_base, s->nops);
	s->posted = s->nops;
	sroce_sq_flushed(e);
	sq_checked(w, s, "sroce_sq_flushed");
	if (e->comp != e->fetch)
		sim_fail(w, "%c: after sroce_sq_flushed comp %u != fetch %u",
			 'A' + s->id, e->comp, e->fetch);
	s->comp_seen = e->comp;
}

/* The user posts send WQEs whose time has come while the SQ has room */
static void user_post(struct sim *w, struct sim_side *s)
{
	bool any = false;

	while (s->posted < s->nops && !s->qp_err) {
		const struct sim_op *op = &s->ops[s->posted];

		if (op->post_ns > w->now ||
		    s->posted - s->done >= w->p.sq_size[s->id])
			break;
		sim_note(w, s->id, ST_POST, 0xff, 0, s->posted, op->len);
		s->posted++;
		any = true;
	}
	if (any) {
		s->want_req = true;
		pump(w, s);
	}
}

/* SROCE_REQ_FETCH: hand the engine the next posted WQE, if any */
static bool user_push(struct sim *w, struct sim_side *s)
{
	struct sroce_sq_eng *e = &s->sq;
	u32 i = e->fetch - s->sq_base;
	const struct sim_op *op;
	struct sroce_wqe *q;

	if (i >= s->posted || s->qp_err)
		return false;
	if (!sroce_sq_room(e)) {
		sim_fail(w, "%c: no SQ room for posted WQE %u (comp %u fetch %u size %u)",
			 'A' + s->id, i, e->comp, e->fetch, e->size);
		return false;
	}
	op = &s->ops[i];
	q = &e->wqe[e->fetch & (e->size - 1)];
	q->kind = op->kind;
	q->flags = op->flags;
	q->length = op->len;
	q->remote_addr = op->rva;
	q->rkey = op->rkey;
	q->swap_add = op->swap_add;
	q->compare = op->compare;
	sroce_sq_push(e);
	sq_checked(w, s, "sroce_sq_push");
	return true;
}

static bool tx_req_valid(struct sim *w, struct sim_side *s,
			 const struct sroce_tx_req *tx)
{
	const struct sroce_sq_eng *e = &s->sq;
	const struct sroce_opcode_info *info = sroce_opcode_get(tx->opcode);
	const struct sim_op *op;
	u32 i = tx->idx - s->sq_base;
	/* UC completes a WQE as its last packet is decided: comp - 1 */
	u32 lo = w->p.uc ? e->comp - 1 : e->comp;

	if (tx->idx - lo >= e->fetch - lo || i >= s->nops) {
		sim_fail(w, "%c: request for WQE idx %u outside [comp %u, fetch %u)",
			 'A' + s->id, tx->idx, e->comp, e->fetch);
		return false;
	}
	op = &s->ops[i];
	if (op->kind == SROCE_WR_LOCAL || i < s->inv_upto) {
		sim_fail(w, "%c: request for WQE %u (kind %u), a local one or one before ORDERED local WQE %u carried out",
			 'A' + s->id, i, op->kind, s->inv_upto - 1);
		return false;
	}
	if (!info || !(info->mask & SROCE_MASK_REQ) ||
	    sroce_opcode_transport(tx->opcode) !=
	    (w->p.uc ? SROCE_TRANSPORT_UC : SROCE_TRANSPORT_RC) ||
	    tx->len > w->p.mtu || (u64)tx->off + tx->len > op->len) {
		sim_fail(w, "%c: bad request %s for WQE %u (kind %u len %u): off %u len %u mtu %u",
			 'A' + s->id, sroce_opcode_name(tx->opcode), i,
			 op->kind, op->len, tx->off, tx->len, w->p.mtu);
		return false;
	}
	if (op->kind == SROCE_WR_ATOMIC_WRITE &&
	    (!tx->awrite || tx->atomic || !tx->reth || tx->va != op->rva ||
	     tx->rkey != op->rkey || tx->dma_len != 8 || tx->len != 8 ||
	     tx->swap_add != op->swap_add || tx->opcode != SROCE_RC_ATOMIC_WRITE)) {
		sim_fail(w, "%c: ATOMIC WRITE request %s of WQE %u wrong: va %llx rkey %x len %u",
			 'A' + s->id, sroce_opcode_name(tx->opcode), i,
			 (unsigned long long)tx->va, tx->rkey, tx->dma_len);
		return false;
	}
	if (tx->awrite != (op->kind == SROCE_WR_ATOMIC_WRITE) ||
	    tx->atomic != (sim_kind_atomic(op->kind) && !tx->awrite) ||
	    (tx->atomic && (tx->va != op->rva || tx->rkey != op->rkey ||
			    tx->swap_add != op->swap_add ||
			    tx->compare != op->compare || tx->reth ||
			    tx->opcode != sroce_rc_req_opcode(op->kind, true,
							      true)))) {
		sim_fail(w, "%c: atomic request %s of WQE %u (kind %u) wrong: va %llx rkey %x",
			 'A' + s->id, sroce_opcode_name(tx->opcode), i,
			 op->kind, (unsigned long long)tx->va, tx->rkey);
		return false;
	}
	/* A READ request names its offset by its VA (its off/len are 0) */
	if (tx->reth && (tx->va - op->rva > op->len ||
			 (op->kind != SROCE_WR_READ && tx->va != op->rva) ||
			 tx->rkey != op->rkey ||
			 tx->va - op->rva + tx->dma_len > op->len)) {
		sim_fail(w, "%c: RETH of WQE %u wrong: va %llx rkey %x dma_len %u (off %u, WQE va %llx rkey %x len %u)",
			 'A' + s->id, i, (unsigned long long)tx->va, tx->rkey,
			 tx->dma_len, tx->off, (unsigned long long)op->rva,
			 op->rkey, op->len);
		return false;
	}
	/*
	 * A READ request, the first or a re-request, ends where the
	 * original request holding its start ends: a responder answers a
	 * duplicate as the tail of that request.
	 */
	if (tx->reth && op->kind == SROCE_WR_READ) {
		u64 off = tx->va - op->rva;
		u64 end = (off / e->rd_chunk + 1) * e->rd_chunk;

		if (end > op->len)
			end = op->len;
		if (off + tx->dma_len != end) {
			sim_fail(w, "%c: READ request of WQE %u for [%llu, +%u) does not end with its original request at %llu",
				 'A' + s->id, i, (unsigned long long)off,
				 tx->dma_len, (unsigned long long)end);
			return false;
		}
	}
	return true;
}

static void req_send(struct sim *w, struct sim_side *s,
		     const struct sroce_tx_req *tx)
{
	struct sim_op *op;
	struct sroce_hdrs h;

	if (!tx_req_valid(w, s, tx))
		return;
	op = &s->ops[tx->idx - s->sq_base];
	if (w->p.uc && !tx->off && !tx->retransmit) {
		op->first_psn = tx->psn;
		op->npkts = sroce_msg_npkts(op->len, w->p.mtu);
	}
	if (w->p.uc && (tx->retransmit || tx->ackreq ||
			sroce_opcode_transport(tx->opcode) !=
			SROCE_TRANSPORT_UC)) {
		sim_fail(w, "%c: UC request %s psn %06x: retransmit %d ackreq %d",
			 'A' + s->id, sroce_opcode_name(tx->opcode), tx->psn,
			 tx->retransmit, tx->ackreq);
		return;
	}
	if (op->kind == SROCE_WR_READ && tx->reth &&
	    tx->va - op->rva + tx->dma_len > op->rd_req_hi)
		op->rd_req_hi = tx->va - op->rva + tx->dma_len;
	sroce_tx_req_hdrs(tx, w->p.qpn[s->peer->id], SROCE_DEFAULT_PKEY,
			  op->imm, 0, &h);
	if (tx->retransmit)
		w->res->cnt[SC_RETRANSMITS]++;
	sim_note(w, s->id, ST_TX_REQ, tx->opcode, tx->psn,
		 tx->idx - s->sq_base, ((u64)tx->off << 32) | tx->len);
	/* an ATOMIC WRITE carries its 8 bytes from the WQE */
	send_pkt(w, s, &h, tx->awrite ? (u8 *)&tx->swap_add :
		 op_local(s, op) + tx->off, tx->len);
}

/* UD: send the next posted datagram; it is complete once sent */
static bool ud_req_step(struct sim *w, struct sim_side *s)
{
	struct sroce_ud_cfg cfg = {
		.qpn = w->p.qpn[s->id], .qkey = SIM_UD_QKEY, .mtu = w->p.mtu,
		.pkey = SROCE_DEFAULT_PKEY,
	};
	struct sroce_ud_send us = {};
	struct sroce_hdrs h;
	struct sim_op *op;
	u32 i = s->ud_sent;

	if (i >= s->posted)
		return false;
	op = &s->ops[i];
	us.imm = op->kind == SROCE_WR_SEND_IMM;
	us.imm_data = op->imm;
	us.length = op->len;
	us.remote_qpn = w->p.qpn[s->peer->id];
	us.remote_qkey = SIM_UD_QKEY;
	if (sroce_ud_tx_hdrs(&cfg, &us, i, &h) != SROCE_UD_OK) {
		sim_fail(w, "%c: UD WQE %u of %u bytes refused", 'A' + s->id,
			 i, op->len);
		return false;
	}
	op->first_psn = h.bth.psn;
	op->npkts = 1;
	s->ud_sent++;
	sim_note(w, s->id, ST_TX_REQ, h.bth.opcode, h.bth.psn, i, op->len);
	send_pkt(w, s, &h, op_local(s, op), op->len);
	op_complete(w, s, i, SROCE_WC_SUCCESS);
	user_post(w, s);	/* its SQ slot is free */
	return s->ud_sent < s->posted;
}

/*
 * SROCE_REQ_LOCAL: carry out local WQE @idx. Once, in order; an ORDERED
 * one only when every WQE before it has completed.
 */
static void req_local(struct sim *w, struct sim_side *s, u32 idx)
{
	struct sroce_sq_eng *e = &s->sq;
	struct sroce_sq_act act;
	u32 i = idx - s->sq_base;
	struct sim_op *op;

	if (idx - e->comp >= e->req - e->comp || i >= s->nops) {
		sim_fail(w, "%c: local WQE idx %u outside [comp %u, req %u)",
			 'A' + s->id, idx, e->comp, e->req);
		return;
	}
	op = &s->ops[i];
	if (op->kind != SROCE_WR_LOCAL || op->nlocal++) {
		sim_fail(w, "%c: WQE %u (kind %u) carried out as local, %u times before",
			 'A' + s->id, i, op->kind, op->nlocal - 1);
		return;
	}
	if ((op->flags & SROCE_WQE_ORDERED) && e->comp != idx) {
		sim_fail(w, "%c: ORDERED local WQE %u carried out with WQE %u not complete",
			 'A' + s->id, i, e->comp - s->sq_base);
		return;
	}
	if (op->flags & SROCE_WQE_ORDERED)
		s->inv_upto = i + 1;
	sim_note(w, s->id, ST_TX_REQ, 0xff, e->next_psn, i, 0);
	memset(&act, 0, sizeof(act));
	sroce_sq_local_done(e, idx, SROCE_WC_SUCCESS, &act);
	sq_checked(w, s, "sroce_sq_local_done");
	sq_exec(w, s, &act, NULL, 0);
}

/* One requester step; false when it has nothing more to do for now */
static bool req_step(struct sim *w, struct sim_side *s)
{
	struct sroce_tx_req tx;
	struct sroce_sq_act act;
	enum sroce_req_verdict v;

	if (w->p.ud)
		return ud_req_step(w, s);
	memset(&tx, 0, sizeof(tx));
	memset(&act, 0, sizeof(act));
	v = sroce_req_next(&s->sq, &tx, &act);
	sq_checked(w, s, "sroce_req_next");
	if (v == SROCE_REQ_SEND)
		req_send(w, s, &tx);
	else if (v == SROCE_REQ_LOCAL)
		req_local(w, s, tx.idx);
	else
		sim_note(w, s->id, ST_REQ_IDLE, 0xff, s->sq.next_psn, v,
			 ((u64)(s->sq.req - s->sq_base) << 32) |
			 s->sq.req_off);
	sq_exec(w, s, &act, NULL, 0);
	if (w->failed || s->qp_err)
		return false;
	if (v == SROCE_REQ_FETCH)
		return user_push(w, s);
	return v == SROCE_REQ_SEND || v == SROCE_REQ_LOCAL;
}

static void arm_rexmit(struct sim *w, struct sim_side *s, u64 ns)
{
	s->rexmit_gen++;
	if (!ns) {
		sim_fail(w, "%c: retransmit timer armed for 0 ns", 'A' + s->id);
		return;
	}
	s->rexmit_on = true;
	ev_at(w, w->now + ns, EV_REXMIT, s->id, s->rexmit_gen, NULL, 0, 0);
}

static void sq_timer(struct sim *w, struct sim_side *s,
		     const struct sroce_sq_act *act)
{
	if (act->timer != SROCE_TIMER_KEEP)
		sim_note(w, s->id, ST_TIMER, 0xff, 0, act->timer,
			 act->timer_ns);
	switch (act->timer) {
	case SROCE_TIMER_KEEP:
		break;
	case SROCE_TIMER_ARM_IF_IDLE:
		if (s->rexmit_on)
			break;
		/* fall through */
	case SROCE_TIMER_ARM:
		arm_rexmit(w, s, act->timer_ns);
		break;
	case SROCE_TIMER_STOP:
		s->rexmit_on = false;
		s->rexmit_gen++;
		break;
	case SROCE_TIMER_RNR:
		s->rexmit_on = false;
		s->rexmit_gen++;
		s->rnr_gen++;
		w->res->cnt[SC_RNR_WAITS]++;
		ev_at(w, w->now + act->timer_ns, EV_RNR, s->id, s->rnr_gen,
		      NULL, 0, 0);
		break;
	default:
		sim_fail(w, "%c: unknown timer op %u", 'A' + s->id, act->timer);
	}
}

/* A READ response's payload: check where it goes, then copy it */
static bool sq_place(struct sim *w, struct sim_side *s,
		     const struct sroce_sq_act *act, const u8 *payload,
		     u32 plen)
{
	const struct sroce_sq_eng *e = &s->sq;
	u32 i = act->place_idx - s->sq_base;
	const struct sim_op *op;

	if (act->place_idx - e->comp >= e->fetch - e->comp || i >= s->nops) {
		sim_fail(w, "%c: READ response placed into WQE idx %u, outside [comp %u, fetch %u)",
			 'A' + s->id, act->place_idx, e->comp, e->fetch);
		return false;
	}
	op = &s->ops[i];
	if (i < s->inv_upto) {
		sim_fail(w, "%c: response placed into WQE %u, before ORDERED local WQE %u carried out",
			 'A' + s->id, i, s->inv_upto - 1);
		return false;
	}
	if (act->awrite) {
		if (op->kind != SROCE_WR_ATOMIC_WRITE || act->atomic ||
		    act->place_off || act->place_len != 8) {
			sim_fail(w, "%c: ATOMIC WRITE answer placed into WQE %u of kind %u",
				 'A' + s->id, i, op->kind);
			return false;
		}
		return true;	/* nothing to place */
	}
	if (act->atomic) {
		if (!sim_kind_atomic(op->kind) ||
		    op->kind == SROCE_WR_ATOMIC_WRITE || act->place_off ||
		    act->place_len != 8) {
			sim_fail(w, "%c: ATOMIC ACK placed into WQE %u of kind %u at [%u, +%u)",
				 'A' + s->id, i, op->kind, act->place_off,
				 act->place_len);
			return false;
		}
		sim_note(w, s->id, ST_PLACE, 0xff, 0, i, act->atomic_orig);
		memcpy(op_local(s, op), &act->atomic_orig, 8);
		return true;
	}
	if (op->kind != SROCE_WR_READ) {
		sim_fail(w, "%c: READ response placed into WQE %u of kind %u (not a READ)",
			 'A' + s->id, i, op->kind);
		return false;
	}
	if (act->place_len > plen || act->place_len > w->p.mtu ||
	    (u64)act->place_off + act->place_len > op->rd_req_hi) {
		sim_fail(w, "%c: READ WQE %u: place [%u, +%u) with %u payload bytes; requested %llu of %u",
			 'A' + s->id, i, act->place_off, act->place_len, plen,
			 (unsigned long long)op->rd_req_hi, op->len);
		return false;
	}
	sim_note(w, s->id, ST_PLACE, 0xff, 0, i,
		 ((u64)act->place_off << 32) | act->place_len);
	if (act->place_len)
		memcpy(op_local(s, op) + act->place_off, payload,
		       act->place_len);
	return true;
}

static void sq_exec(struct sim *w, struct sim_side *s,
		    const struct sroce_sq_act *act, const u8 *payload,
		    u32 plen)
{
	struct sroce_sq_act act2;

	/* In the order struct sroce_sq_act gives, as the kernel glue */
	count_events(w, act->events);
	if (w->failed)
		return;
	sq_report(w, s);
	if (act->error)
		qp_error(w, s);
	if (!s->qp_err)
		sq_timer(w, s, act);
	if (act->kick)
		s->want_req = true;
	if (act->place && !s->qp_err && !w->failed) {
		if (!sq_place(w, s, act, payload, plen))
			return;
		memset(&act2, 0, sizeof(act2));
		sroce_comp_placed(&s->sq, act, true, &act2);
		sq_checked(w, s, "sroce_comp_placed");
		if (act2.place) {
			sim_fail(w, "%c: sroce_comp_placed asks to place again",
				 'A' + s->id);
			return;
		}
		sq_exec(w, s, &act2, NULL, 0);
	}
	user_post(w, s);
	pump(w, s);
}

/* An ACK or READ response reached the requester */
static void rx_response(struct sim *w, struct sim_side *s,
			const struct sroce_pkt *pkt, const u8 *payload)
{
	struct sroce_sq_act act;

	w->res->cnt[SC_RX_RESP]++;
	memset(&act, 0, sizeof(act));
	sroce_comp_rx(&s->sq, pkt, &act);
	sq_checked(w, s, "sroce_comp_rx");
	sim_note(w, s->id, ST_RESULT, 0xff, s->sq.una_psn, act.events,
		 (u64)act.place | (u64)act.error << 12 | (u64)act.kick << 16 |
		 (u64)act.timer << 20);
	sq_exec(w, s, &act, payload, pkt->payload_len);
}

static void on_rexmit(struct sim *w, struct sim_side *s, u32 gen)
{
	struct sroce_sq_act act;

	if (gen != s->rexmit_gen || !s->rexmit_on || s->qp_err)
		return;
	s->rexmit_on = false;
	w->res->cnt[SC_TIMEOUTS]++;
	sim_note(w, s->id, ST_TIMEOUT, 0xff, s->sq.una_psn, s->sq.comp,
		 s->sq.fetch);
	memset(&act, 0, sizeof(act));
	sroce_sq_timeout(&s->sq, &act);
	sq_checked(w, s, "sroce_sq_timeout");
	sim_note(w, s->id, ST_TIMEOUT, 0xff, s->sq.next_psn, act.kick,
		 ((u64)(s->sq.req - s->sq_base) << 32) | s->sq.req_off);
	sq_exec(w, s, &act, NULL, 0);
}

static void on_rnr(struct sim *w, struct sim_side *s, u32 gen)
{
	struct sroce_sq_act act;

	if (gen != s->rnr_gen || s->qp_err)
		return;
	sim_note(w, s->id, ST_RNR_DONE, 0xff, s->sq.una_psn, 0, 0);
	memset(&act, 0, sizeof(act));
	sroce_sq_rnr_done(&s->sq, &act);
	sq_checked(w, s, "sroce_sq_rnr_done");
	sq_exec(w, s, &act, NULL, 0);
}

/* ---------------------------------------------------------------- */
/* Receive side glue                                                   */

struct env_ctx {
	struct sim *w;
	struct sim_side *s;
};

static int env_take_rwqe(void *ctx, u32 *len)
{
	struct env_ctx *c = ctx;
	struct sim_side *s = c->s;

	if (s->rheld) {
		sim_fail(c->w, "%c: take_rwqe while receive %u is held",
			 'A' + s->id, s->rheld_idx);
		return -1;
	}
	if (s->rtaken >= s->rposted) {
		c->w->res->cnt[SC_RQ_EMPTY]++;
		return -1;
	}
	s->rheld = true;
	s->rheld_idx = s->rtaken++;
	*len = s->rwqes[s->rheld_idx].len;
	return 0;
}

static bool env_rkey_ok(void *ctx, u32 rkey, u64 va, u32 len, u32 access)
{
	struct env_ctx *c = ctx;
	struct sim_side *s = c->s;

	if (!mr_check(s, rkey, va, len, access)) {
		c->w->res->cnt[SC_RKEY_DENIED]++;
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

static bool env_atomic(void *ctx, const struct sroce_atomic_op *op, u64 *orig)
{
	struct env_ctx *c = ctx;
	struct sim_side *s = c->s;
	const struct sim_mr *mr;
	u64 v;
	u8 *p;

	if (op->va & 7) {
		sim_fail(c->w, "%c: misaligned atomic at %llx reached the glue",
			 'A' + s->id, (unsigned long long)op->va);
		return false;
	}
	mr = mr_check(s, op->rkey, op->va, 8, op->write ?
		      SROCE_ACC_REMOTE_WRITE : SROCE_ACC_REMOTE_ATOMIC);
	if (!mr) {
		c->w->res->cnt[SC_RKEY_DENIED]++;
		return false;
	}
	p = mr_ptr(s, mr, op->va);
	if (op->write) {
		memcpy(p, &op->swap_add, 8);
		c->w->res->cnt[SC_ATOMICS]++;
		c->w->res->cnt[SC_ATOMIC_WRITES]++;
		return true;
	}
	memcpy(&v, p, 8);
	*orig = v;
	if (!op->cmp_swap)
		v += op->swap_add;
	else if (v == op->compare)
		v = op->swap_add;
	memcpy(p, &v, 8);
	c->w->res->cnt[SC_ATOMICS]++;
	return true;
}

static bool rq_place_rwqe(struct sim *w, struct sim_side *s,
			  const struct sroce_rq_act *act, const u8 *payload)
{
	const struct sim_rwqe *rw;

	if (!s->rheld) {
		sim_fail(w, "%c: PLACE_RWQE with no receive WQE held",
			 'A' + s->id);
		return false;
	}
	rw = &s->rwqes[s->rheld_idx];
	if ((u64)act->off + act->len > rw->len) {
		sim_fail(w, "%c: PLACE_RWQE [%u, +%u) beyond receive %u of %u bytes",
			 'A' + s->id, act->off, act->len, s->rheld_idx,
			 rw->len);
		return false;
	}
	if (act->len)
		memcpy(s->mem + rw->off + act->off, payload, act->len);
	return true;
}

/* Remote write: the glue checks the key again, as the kernel does */
static bool rq_place_mr(struct sim *w, struct sim_side *s, u32 psn,
			struct sroce_rq_act *act, const u8 *payload)
{
	const struct sim_mr *mr;

	if (!act->len)
		return true;
	mr = mr_check(s, act->rkey, act->va, act->len, SROCE_ACC_REMOTE_WRITE);
	if (!mr) {
		sim_fail(w, "%c: PLACE_MR rkey %x va %llx len %u: not granted (glue refuses; engine must have checked)",
			 'A' + s->id, act->rkey, (unsigned long long)act->va,
			 act->len);
		sroce_rq_fail(&s->rq, psn, SROCE_NAK_REM_ACCESS,
			      SROCE_WC_SUCCESS, act);
		rq_checked(w, s, "sroce_rq_fail");
		return false;
	}
	if (!s->ok_valid || act->rkey != s->ok_rkey || act->va < s->ok_va ||
	    act->va - s->ok_va + act->len > s->ok_len) {
		sim_fail(w, "%c: PLACE_MR rkey %x [%llx, +%u) outside what rkey_ok approved (%x [%llx, +%llu))",
			 'A' + s->id, act->rkey, (unsigned long long)act->va,
			 act->len, s->ok_rkey, (unsigned long long)s->ok_va,
			 (unsigned long long)s->ok_len);
		return false;
	}
	memcpy(mr_ptr(s, mr, act->va), payload, act->len);
	return true;
}

/*
 * UC: the peer op whose message completed a receive at PSN @psn, with
 * its data checked where it landed; ~0 if none or wrong.
 */
static u32 uc_which_op(struct sim *w, struct sim_side *s,
		       const struct sim_rwqe *rw, u32 psn)
{
	const struct sim_side *peer = s->peer;
	u32 i;

	for (i = 0; i < peer->posted; i++) {
		const struct sim_op *op = &peer->ops[i];
		const u8 *src = peer->init + peer->zone_off[op->lzone] +
				op->loff;
		const u8 *dst;

		if (!op->npkts ||
		    !sroce_psn_in_window(psn, op->first_psn, op->npkts))
			continue;
		dst = op->kind == SROCE_WR_WRITE_IMM ?
		      s->mem + s->zone_off[op->rzone] + op->roff :
		      s->mem + rw->off;
		if (rw->byte_len == op->len && !memcmp(dst, src, op->len))
			return i;
		sim_fail(w, "%c: UC receive completed by %c WQE %u (kind %u len %u) with byte_len %u or wrong data",
			 'A' + s->id, 'A' + peer->id, i, op->kind, op->len,
			 rw->byte_len);
		return ~0U;
	}
	sim_fail(w, "%c: UC receive completed at PSN %06x, which no WQE of %c sent",
		 'A' + s->id, psn, 'A' + peer->id);
	return ~0U;
}

/* Immediate oracle for a receive completion (no adversary) */
static void rcomp_check(struct sim *w, struct sim_side *s,
			struct sim_rwqe *rw, u32 idx, u32 psn)
{
	const struct sim_op *op = &s->peer->ops[rw->op];
	bool imm;

	if (w->adversarial)
		return;
	if (w->p.uc && !w->p.uc_strict &&
	    rw->status == SROCE_WC_LOC_LEN_ERR && !rw->byte_len) {
		/* after a loss, a later message too long for this WQE */
		return;
	}
	if (w->p.uc) {
		/* in order, each message once; others may have been lost */
		rw->got_op = uc_which_op(w, s, rw, psn);
		if (w->failed)
			return;
		if ((s64)rw->got_op <= s->uc_last_op)
			sim_fail(w, "%c: UC receive %u completed by %c WQE %u after WQE %lld",
				 'A' + s->id, idx, 'A' + s->peer->id,
				 rw->got_op, (long long)s->uc_last_op);
		if (w->p.uc_strict && rw->got_op != rw->op)
			sim_fail(w, "%c: UC receive %u on a perfect wire completed by %c WQE %u, not %u",
				 'A' + s->id, idx, 'A' + s->peer->id,
				 rw->got_op, rw->op);
		s->uc_last_op = rw->got_op;
		op = &s->peer->ops[rw->got_op];
	}
	imm = op_has_imm(op->kind);
	if (rw->status != SROCE_WC_SUCCESS || rw->byte_len != op->len ||
	    rw->imm != imm || (imm && rw->imm_val != op->imm) ||
	    rw->rdma_imm != (op->kind == SROCE_WR_WRITE_IMM))
		sim_fail(w, "%c: receive %u (for %c WQE %u kind %u len %u imm %x) completed: status %u byte_len %u imm %d/%x rdma_imm %d",
			 'A' + s->id, idx, 'A' + s->peer->id, rw->op, op->kind,
			 op->len, op->imm, rw->status, rw->byte_len, rw->imm,
			 rw->imm_val, rw->rdma_imm);
}

static void rq_complete(struct sim *w, struct sim_side *s,
			const struct sroce_pkt *pkt,
			const struct sroce_rq_act *act)
{
	struct sim_rwqe *rw;

	if (!s->rheld) {
		sim_fail(w, "%c: receive completion with no receive WQE held",
			 'A' + s->id);
		return;
	}
	rw = &s->rwqes[s->rheld_idx];
	s->rheld = false;
	if (rw->ncomp++) {
		sim_fail(w, "%c: receive %u completed twice", 'A' + s->id,
			 s->rheld_idx);
		return;
	}
	rw->status = act->wc_status;
	rw->byte_len = act->wc_byte_len;
	rw->imm = act->wc_imm;
	rw->imm_val = act->wc_imm ? pkt->hdr.imm : 0;
	rw->rdma_imm = act->wc_rdma_imm;
	sim_note(w, s->id, ST_RCOMP, 0xff, 0, s->rheld_idx,
		 ((u64)rw->status << 32) | rw->byte_len);
	rcomp_check(w, s, rw, s->rheld_idx, pkt->hdr.bth.psn);
}

static void rq_exec(struct sim *w, struct sim_side *s,
		    const struct sroce_pkt *pkt, const u8 *payload,
		    struct sroce_rq_act *act)
{
	u32 psn = pkt->hdr.bth.psn;

	count_events(w, act->events);
	if (act->place != SROCE_PLACE_NONE && act->len > pkt->payload_len) {
		sim_fail(w, "%c: placement of %u bytes from a %u byte payload",
			 'A' + s->id, act->len, pkt->payload_len);
		return;
	}
	if (act->place == SROCE_PLACE_RWQE && !rq_place_rwqe(w, s, act, payload))
		return;
	if (act->place == SROCE_PLACE_MR)
		rq_place_mr(w, s, psn, act, payload);
	if (act->place > SROCE_PLACE_MR)
		sim_fail(w, "%c: unknown placement %u", 'A' + s->id,
			 act->place);
	if (act->complete)
		rq_complete(w, s, pkt, act);
	if (act->ack)
		send_ack(w, s, &act->tx);
	if (act->error)
		qp_error(w, s);
	if (act->kick)
		s->want_rsp = true;
	pump(w, s);
}

/* A request reached the responder */
static void rx_request(struct sim *w, struct sim_side *s,
		       const struct sroce_pkt *pkt, const u8 *payload)
{
	struct env_ctx ctx = { .w = w, .s = s };
	struct sroce_rq_env env = {
		.ctx = &ctx,
		.take_rwqe = env_take_rwqe,
		.rkey_ok = env_rkey_ok,
		.atomic = env_atomic,
	};
	struct sroce_rq_act act;

	w->res->cnt[SC_RX_REQ]++;
	memset(&act, 0, sizeof(act));
	sroce_rq_rx(&s->rq, pkt, &env, &act);
	rq_checked(w, s, "sroce_rq_rx");
	sim_note(w, s->id, ST_RESULT, 0xff, s->rq.epsn, act.events,
		 (u64)act.place | (u64)act.complete << 4 | (u64)act.ack << 8 |
		 (u64)act.error << 12 | (u64)act.kick << 16);
	if (!w->failed)
		rq_exec(w, s, pkt, payload, &act);
}

static void send_read_rsp(struct sim *w, struct sim_side *s,
			  const struct sroce_tx_rsp *r)
{
	const struct sroce_opcode_info *info = sroce_opcode_get(r->opcode);
	const struct sim_mr *mr = NULL;
	struct sroce_tx_ack nak;
	struct sroce_hdrs h;

	if (r->opcode == SROCE_RC_ATOMIC_ACK && !r->len) {
		sroce_tx_rsp_hdrs(r, w->p.qpn[s->peer->id], SROCE_DEFAULT_PKEY,
				  &h);
		sim_note(w, s->id, ST_TX_RSP, r->opcode, r->psn, r->orig, 0);
		send_pkt(w, s, &h, NULL, 0);
		return;
	}
	if (!info || !(info->mask & SROCE_MASK_READ) ||
	    !(info->mask & SROCE_MASK_RESP) || r->len > w->p.mtu) {
		sim_fail(w, "%c: bad READ response %s len %u", 'A' + s->id,
			 sroce_opcode_name(r->opcode), r->len);
		return;
	}
	if (r->len) {
		mr = mr_check(s, r->rkey, r->va, r->len, SROCE_ACC_REMOTE_READ);
		if (!mr) {
			sim_fail(w, "%c: READ response from rkey %x [%llx, +%u): not granted",
				 'A' + s->id, r->rkey,
				 (unsigned long long)r->va, r->len);
			sroce_rq_read_failed(&s->rq, r->psn, &nak);
			rq_checked(w, s, "sroce_rq_read_failed");
			send_ack(w, s, &nak);
			qp_error(w, s);
			return;
		}
	}
	sroce_tx_rsp_hdrs(r, w->p.qpn[s->peer->id], SROCE_DEFAULT_PKEY, &h);
	w->res->cnt[SC_READ_RESP_SENT]++;
	sim_note(w, s->id, ST_TX_RSP, r->opcode, r->psn, r->va, r->len);
	send_pkt(w, s, &h, mr ? mr_ptr(s, mr, r->va) : NULL, r->len);
}

/* One responder step: a READ response or a held ACK */
static bool rsp_step(struct sim *w, struct sim_side *s)
{
	struct sroce_tx_rsp r;
	bool more;

	memset(&r, 0, sizeof(r));
	more = sroce_rq_next(&s->rq, &r);
	rq_checked(w, s, "sroce_rq_next");
	if (!more || w->failed)
		return false;
	if (r.is_ack)
		send_ack(w, s, &r.ack);
	else
		send_read_rsp(w, s, &r);
	return !w->failed;
}

/* ---------------------------------------------------------------- */
/* QP error, link pump, delivery                                       */

static void rq_flush(struct sim *w, struct sim_side *s)
{
	u32 i;

	sroce_rq_error(&s->rq);
	rq_checked(w, s, "sroce_rq_error");
	if (s->rheld) {
		s->rheld = false;
		s->rwqes[s->rheld_idx].ncomp++;
		s->rwqes[s->rheld_idx].status = SIM_WC_FLUSH;
	}
	for (i = s->rtaken; i < s->nrwqes; i++) {
		s->rwqes[i].ncomp++;
		s->rwqes[i].status = SIM_WC_FLUSH;
	}
	s->rtaken = s->rposted = s->nrwqes;
}

static void qp_error(struct sim *w, struct sim_side *s)
{
	if (s->qp_err)
		return;
	s->qp_err = true;
	s->err_ns = w->now;
	sim_note(w, s->id, ST_ERROR, 0xff, 0, s->sq.state, s->sq.err_status);
	if (s->sq.state == SROCE_SQ_ERROR) {
		s->sq_err = true;
	} else {
		sroce_sq_fail(&s->sq, s->sq.comp, SROCE_WC_SUCCESS);
		sq_checked(w, s, "sroce_sq_fail");
	}
	sq_flush(w, s);
	rq_flush(w, s);
	s->rexmit_on = false;
	s->rexmit_gen++;
	s->rnr_gen++;
	s->want_req = s->want_rsp = false;
}

static bool pump_one(struct sim *w, struct sim_side *s)
{
	if (s->want_rsp && (s->rsp_turn || !s->want_req)) {
		s->rsp_turn = false;
		s->want_rsp = false;
		if (rsp_step(w, s))
			s->want_rsp = true;
	} else {
		s->rsp_turn = true;
		s->want_req = false;
		if (req_step(w, s))
			s->want_req = true;
	}
	return true;
}

/* Run the engines while the link has room */
static void pump(struct sim *w, struct sim_side *s)
{
	u64 room = (u64)SIM_TX_BACKLOG_BYTES * w->cfg->wire.ps_per_byte / 1000;
	u32 steps = 0;

	if (s->in_pump)
		return;
	s->in_pump = true;
	while (!w->failed && !s->qp_err && (s->want_req || s->want_rsp)) {
		if (s->link_free > w->now + room) {
			if (!s->tx_sched) {
				s->tx_sched = true;
				ev_at(w, s->link_free - room, EV_TX_READY,
				      s->id, 0, NULL, 0, 0);
			}
			break;
		}
		if (++steps > SIM_PUMP_MAX) {
			sim_fail(w, "%c: engines produced %u packets at one instant (livelock)",
				 'A' + s->id, steps);
			break;
		}
		pump_one(w, s);
	}
	s->in_pump = false;
}

/*
 * UD: the pure rules decide; a datagram goes GRH first into the next
 * receive WQE (one it does not fit stays posted).  Every datagram that
 * lands must be one that was sent, whole (duplicates from the wire land
 * twice: UD does not know).
 */
static void rx_datagram(struct sim *w, struct sim_side *s,
			const struct sroce_pkt *pkt, const u8 *payload,
			bool forged)
{
	const struct sroce_ud_cfg cfg = {
		.qpn = w->p.qpn[s->id], .qkey = SIM_UD_QKEY, .mtu = w->p.mtu,
	};
	enum sroce_ud_status st = sroce_ud_rx_check(&cfg, pkt);
	const struct sim_side *peer = s->peer;
	struct sim_rwqe *rw;
	u32 i;

	w->res->cnt[SC_RX_REQ]++;
	if (st != SROCE_UD_OK) {
		if (!forged)
			sim_fail(w, "%c: legitimate datagram refused (%d)",
				 'A' + s->id, st);
		w->res->cnt[SC_FORGED_DROPPED]++;
		return;
	}
	if (s->rtaken >= s->rposted) {
		w->res->cnt[SC_RQ_EMPTY]++;
		return;
	}
	rw = &s->rwqes[s->rtaken];
	if (sroce_ud_rx_fits(pkt, rw->len) != SROCE_UD_OK)
		return;		/* too big for the next WQE: dropped */
	memcpy(s->mem + rw->off + SROCE_GRH_LEN, payload, pkt->payload_len);
	rw->ncomp++;
	rw->status = SROCE_WC_SUCCESS;
	rw->byte_len = SROCE_GRH_LEN + pkt->payload_len;
	rw->imm = pkt->info->mask & SROCE_MASK_IMMDT;
	rw->imm_val = pkt->hdr.imm;
	sim_note(w, s->id, ST_RCOMP, 0xff, 0, s->rtaken, rw->byte_len);
	s->rtaken++;
	if (w->adversarial)
		return;
	for (i = 0; i < peer->posted; i++) {
		const struct sim_op *op = &peer->ops[i];

		if (op->npkts && op->first_psn == pkt->hdr.bth.psn &&
		    pkt->hdr.deth.sqpn == w->p.qpn[peer->id] &&
		    op->len == pkt->payload_len &&
		    rw->imm == (op->kind == SROCE_WR_SEND_IMM) &&
		    (!rw->imm || rw->imm_val == op->imm) &&
		    !memcmp(s->mem + rw->off + SROCE_GRH_LEN,
			    peer->init + peer->zone_off[op->lzone] + op->loff,
			    op->len)) {
			rw->got_op = i;
			if (w->p.uc_strict && i != rw->op)
				sim_fail(w, "%c: UD receive %u on a perfect wire got %c WQE %u, not %u",
					 'A' + s->id, s->rtaken - 1,
					 'A' + peer->id, i, rw->op);
			return;
		}
	}
	sim_fail(w, "%c: UD receive %u holds no datagram %c sent (PSN %06x, %u bytes)",
		 'A' + s->id, s->rtaken - 1, 'A' + peer->id, pkt->hdr.bth.psn,
		 pkt->payload_len);
}

static void deliver(struct sim *w, struct sim_side *s, const struct sim_ev *ev)
{
	bool forged = ev->flags & EVF_FORGED;
	struct sroce_pkt pkt;
	int ret;

	if (ev->flags & EVF_CORRUPT) {
		w->res->cnt[SC_CORRUPT]++;
		sim_note(w, s->id, ST_CORRUPT, ev->buf[0],
			 sroce_get_be24(ev->buf + 9), ev->len, 0);
		return;
	}
	ret = sroce_parse_bth_packet(ev->buf, ev->len, &pkt);
	if (!ret && pkt.hdr.bth.dqpn != w->p.qpn[s->id])
		ret = -SROCE_DROP_NR;
	if (!ret && sroce_opcode_transport(pkt.hdr.bth.opcode) !=
		    (w->p.uc ? SROCE_TRANSPORT_UC :
		     w->p.ud ? SROCE_TRANSPORT_UD : SROCE_TRANSPORT_RC))
		ret = -SROCE_DROP_NR;
	if (ret) {
		if (!forged)
			sim_fail(w, "%c: legitimate packet dropped: %s",
				 'A' + s->id, sroce_drop_reason_name(ret));
		w->res->cnt[SC_FORGED_DROPPED]++;
		return;
	}
	sim_note(w, s->id, forged ? ST_RX_FORGED : ST_RX, pkt.hdr.bth.opcode,
		 pkt.hdr.bth.psn, pkt.payload_len,
		 ((u64)pkt.hdr.aeth.syndrome << 24) | pkt.hdr.aeth.msn);
	if (w->p.ud)
		rx_datagram(w, s, &pkt, ev->buf + pkt.payload_off, forged);
	else if (pkt.info->mask & SROCE_MASK_REQ)
		rx_request(w, s, &pkt, ev->buf + pkt.payload_off);
	else if (pkt.info->mask & SROCE_MASK_RESP)
		rx_response(w, s, &pkt, ev->buf + pkt.payload_off);
}

static void on_rpost(struct sim *w, struct sim_side *s)
{
	u32 n = w->p.rq_batch;

	if (s->qp_err || s->rposted >= s->nrwqes)
		return;
	if (n > s->nrwqes - s->rposted)
		n = s->nrwqes - s->rposted;
	s->rposted += n;
	sim_note(w, s->id, ST_RPOST, 0xff, 0, s->rposted, n);
	if (s->rposted < s->nrwqes)
		ev_at(w, w->now + w->p.rq_gap_ns, EV_RPOST, s->id, 0, NULL, 0,
		      0);
}

static void on_forge(struct sim *w, const struct sim_ev *ev)
{
	struct sim_forge f;
	const struct sim_forge *fp = &f;

	if (w->cfg->script) {
		fp = &w->cfg->script[ev->gen];
		if (ev->gen + 1 < w->cfg->nscript)
			ev_at(w, w->now + w->cfg->script[ev->gen + 1].delay_ns,
			      EV_FORGE, 0, ev->gen + 1, NULL, 0, 0);
	} else {
		sim_forge_random(&w->adv, &f);
	}
	w->res->cnt[SC_FORGED]++;
	sim_forge_inject(w, fp);
}

/*
 * A slow receiver takes packets in one at a time, rx_ns each, and none
 * during a stall; what finds rx_queue packets waiting is dropped, as a
 * full socket or ring drops it.  True if @ev was queued or dropped.
 */
static bool rx_slow(struct sim *w, struct sim_side *s, const struct sim_ev *ev)
{
	const struct sim_wire_cfg *c = &w->cfg->wire;
	u64 t = w->now > s->rx_free ? w->now : s->rx_free;
	u8 *b;

	if (!c->rx_ns)
		return false;
	if (ev->flags & EVF_TAKEN) {
		s->rx_queued--;
		return false;
	}
	if (s->rx_queued >= c->rx_queue) {
		w->res->cnt[SC_RX_OVERFLOW]++;
		sim_note(w, s->peer->id, ST_LOST, ev->buf[0],
			 sroce_get_be24(ev->buf + 9), ev->len, 1);
		return true;
	}
	if (c->stall_every_ns && t % c->stall_every_ns < c->stall_ns)
		t += c->stall_ns - t % c->stall_every_ns;
	s->rx_free = t + c->rx_ns;
	s->rx_queued++;
	b = xmalloc(ev->len);
	memcpy(b, ev->buf, ev->len);
	ev_at(w, s->rx_free, EV_DELIVER, s->id, 0, b, ev->len,
	      ev->flags | EVF_TAKEN);
	return true;
}

static void dispatch(struct sim *w, const struct sim_ev *ev)
{
	struct sim_side *s = &w->side[ev->side & 1];

	switch (ev->type) {
	case EV_DELIVER:
		if (!rx_slow(w, s, ev))
			deliver(w, s, ev);
		break;
	case EV_REXMIT:
		on_rexmit(w, s, ev->gen);
		break;
	case EV_RNR:
		on_rnr(w, s, ev->gen);
		break;
	case EV_TX_READY:
		s->tx_sched = false;
		pump(w, s);
		break;
	case EV_POST:
		user_post(w, s);
		break;
	case EV_RPOST:
		on_rpost(w, s);
		break;
	case EV_FORGE:
		on_forge(w, ev);
		break;
	}
}

/* ---------------------------------------------------------------- */
/* A run                                                               */

static void engines_start(struct sim *w, struct sim_side *s)
{
	const struct sim_params *p = &w->p;
	u32 i;

	sroce_sq_init(&s->sq, s->ring, p->sq_size[s->id]);
	sroce_sq_config(&s->sq, p->mtu, p->max_rd[s->id], p->retry_cnt,
			p->rnr_retry, p->timeout);
	sroce_sq_set_psn(&s->sq, p->psn0[s->id]);
	sroce_rq_init(&s->rq, s->res, SIM_MAX_RES);
	sroce_rq_config(&s->rq, p->mtu, p->max_rd[s->peer->id],
			SROCE_ACC_REMOTE_WRITE | SROCE_ACC_REMOTE_READ |
			SROCE_ACC_REMOTE_ATOMIC, p->min_rnr_timer);
	sroce_rq_set_psn(&s->rq, p->psn0[s->peer->id]);
	if (p->uc) {
		sroce_sq_set_uc(&s->sq);
		sroce_rq_set_uc(&s->rq);
	}
	s->uc_last_op = -1;
	sroce_rq_start(&s->rq);
	sroce_sq_start(&s->sq);
	sq_checked(w, s, "sroce_sq_start");
	rq_checked(w, s, "sroce_rq_start");
	s->sq_base = s->comp_seen = s->sq.fetch;
	for (i = 0; i < s->nops; i++)
		if (s->ops[i].post_ns)
			ev_at(w, s->ops[i].post_ns, EV_POST, s->id, 0, NULL,
			      0, 0);
	if (p->rq_trickle)
		ev_at(w, 0, EV_RPOST, s->id, 0, NULL, 0, 0);
	else
		s->rposted = s->nrwqes;
}

static void schedule_script(struct sim *w)
{
	if (w->cfg->script && w->cfg->nscript)
		ev_at(w, w->cfg->script[0].delay_ns, EV_FORGE, 0, 0, NULL, 0,
		      0);
}

static void side_state(const struct sim_side *s, char *buf, size_t n)
{
	const struct sroce_sq_eng *e = &s->sq;

	snprintf(buf, n, "done %u/%u posted %u, comp %u req %u+%u fetch %u, una %06x next %06x sent %06x, rnr_wait %d rd_out %u; epsn %06x",
		 s->done, s->nops, s->posted, e->comp - s->sq_base,
		 e->req - s->sq_base, e->req_off, e->fetch - s->sq_base,
		 e->una_psn, e->next_psn, e->sent_psn, e->rnr_wait, sroce_sq_reads_out(e),
		 s->rq.epsn);
}

static void run_loop(struct sim *w)
{
	u64 limit = w->cfg->time_limit_ns ? w->cfg->time_limit_ns : ~0ULL;
	struct sim_ev ev;

	/* UC: WQEs complete when sent; run until the wire is empty too */
	while (!w->failed &&
	       (!sim_all_done(w) || (sim_unreliable(&w->p) && w->nheap))) {
		if (!ev_pop(w, &ev)) {
			char a[160], b[160];

			side_state(&w->side[0], a, sizeof(a));
			side_state(&w->side[1], b, sizeof(b));
			sim_fail(w, "stuck: nothing scheduled; A: %s; B: %s", a,
				 b);
			break;
		}
		if (ev.t > limit || (w->cfg->event_limit &&
				     w->res->events >= w->cfg->event_limit)) {
			free(ev.buf);
			sim_fail(w, "no progress: %s limit reached; A done %u/%u B done %u/%u",
				 ev.t > limit ? "time" : "event",
				 w->side[0].done, w->side[0].nops,
				 w->side[1].done, w->side[1].nops);
			break;
		}
		w->res->events++;
		w->now = ev.t;
		dispatch(w, &ev);
		free(ev.buf);
	}
}

static void world_free(struct sim *w)
{
	u32 i;

	for (i = 0; i < w->nheap; i++)
		free(w->heap[i].buf);
	free(w->heap);
	sim_work_free(w);
}

enum sim_outcome sim_run(const struct sim_cfg *cfg, struct sim_result *res)
{
	static struct sim world;
	struct sim *w = &world;
	int i;

	memset(w, 0, sizeof(*w));
	memset(res, 0, sizeof(*res));
	w->cfg = cfg;
	w->res = res;
	w->adversarial = cfg->adversary > 0 || cfg->script;
	rng_seed(&w->wl, cfg->seed, 1);
	rng_seed(&w->net, cfg->seed, 2);
	rng_seed(&w->adv, cfg->seed, 3);
	rng_seed(&w->lo, cfg->seed, 12);
	cur_world = w;
	if (sim_work_build(w)) {
		res->outcome = SIM_FAILED;
		snprintf(res->why, sizeof(res->why), "workload build failed");
		world_free(w);
		return res->outcome;
	}
	for (i = 0; i < 2; i++)
		engines_start(w, &w->side[i]);
	schedule_script(w);
	for (i = 0; i < 2; i++)
		user_post(w, &w->side[i]);
	run_loop(w);
	res->finish_ns = w->now;
	if (!w->failed)
		sim_check_final(w);
	if (w->failed)
		res->outcome = SIM_FAILED;
	if (w->failed && cfg->verbose)
		trace_dump(w, stdout, cfg->verbose > 1 ? 16 : 200);
	world_free(w);
	cur_world = NULL;
	return res->outcome;
}

const char *sim_counter_name(enum sim_counter c)
{
	static const char *const names[SC_EV_BASE] = {
		"pkts", "wire_bytes", "lost", "duped", "reordered", "corrupt",
		"forged", "forged_dropped", "retransmits", "timeouts",
		"rnr_waits", "rx_req", "rx_resp", "acks", "read_resps",
		"rkey_denied", "rq_empty", "atomics", "atomic_writes",
		"rx_overflow",
	};
	static const char *const ev[SROCE_EV_NR] = {
		"ev_stale", "ev_ghost", "ev_bad_resp", "ev_seq_nak_rcvd",
		"ev_rnr_nak_rcvd", "ev_rewind", "ev_reread", "ev_timeout",
		"ev_dup_req", "ev_oos_req", "ev_seq_nak_sent",
		"ev_rnr_nak_sent", "ev_fatal_nak_sent", "ev_bad_req",
		"ev_dup_read_bad", "ev_atomic_replay", "ev_uc_drop",
		"ev_atomic_misaligned", "ev_atomic_denied", "ev_uc_len_err",
	};

	if (c < SC_EV_BASE)
		return names[c];
	if (c < SC_NR)
		return ev[c - SC_EV_BASE];
	return "?";
}
