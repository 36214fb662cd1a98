// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulated world: a virtual clock and an event queue, a wire per
 * direction, and two endpoints whose engines the host glue drives
 * (tools/host/glue.c) exactly as the kernel module does.
 *
 * - Events: packet delivered, retransmit timer, RNR timer, link ready to
 *   take more packets, user posts send WQEs, user posts receive WQEs,
 *   adversary injects a packet.  Ties break by insertion order, so a
 *   seed replays event for event (sim_ev.c).
 * - Wire: one link per endpoint (its transmit side) serialises packets at
 *   the configured bandwidth; each packet then gets latency +- jitter, an
 *   optional reorder delay, and may be lost, duplicated or corrupted.
 *   The engines are paused while the link holds more than
 *   SIM_TX_BACKLOG_BYTES, like a NIC ring that is full.
 * - Glue: the host glue calls every engine, checks the engines'
 *   invariants and carries out their actions; through its hooks (struct
 *   hg_ops, below) the simulator adds the timers, the user who posts
 *   WQEs, the trace, and its own checks of what the engines ask for
 *   against the workload (requests and placement inside what was posted
 *   and requested, each WQE completed once, receives as the peer sent).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

/* Ethernet + FCS, IPv4, UDP, preamble and gap: bytes a packet costs */
#define SIM_WIRE_OVERHEAD	(18 + 20 + 8 + 20)
/* Link backlog above which the engines are not asked for more */
#define SIM_TX_BACKLOG_BYTES	(64 * 1024)

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

void sim_dump_trace(void)
{
	if (cur_world)
		sim_trace_dump(cur_world, stdout, 200);
}

static struct sim_side *side_of(struct hg_side *g)
{
	return (struct sim_side *)((char *)g - offsetof(struct sim_side, g));
}

static u8 *op_local(const struct sim_side *s, const struct sim_op *op)
{
	return s->g.mem + s->zone_off[op->lzone] + op->loff;
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
		sim_ev_at(w, w->now + rng_below(&w->adv, 20000), EV_FORGE, 0,
			  0, NULL, 0, 0);
}

/* ops->xmit: put a legitimate packet on @g's link; takes @buf */
static void hook_xmit(struct hg_side *g, u8 *buf, u32 len)
{
	struct sim_side *from = side_of(g);
	struct sim *w = from->world;
	const struct sim_wire_cfg *c = &w->cfg->wire;
	u64 start = w->now > from->link_free ? w->now : from->link_free;
	u64 depart = start + (u64)(len + SIM_WIRE_OVERHEAD) * c->ps_per_byte /
			     1000;
	int copies = 1, i;

	from->link_free = depart;
	/* the context that built it hands it over late (sim_wire_cfg) */
	depart += w->ctx_delay;
	if (!c->ctx_unordered) {
		if (depart < from->tx_floor)
			depart = from->tx_floor;
		from->tx_floor = depart;
	}
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
		sim_ev_at(w, depart + wire_delay(w), EV_DELIVER,
			  from->peer->id, 0, b, len, fl);
	}
}

/* ops->tx_room: the engines wait while the link's backlog is full */
static bool hook_tx_room(struct hg_side *g)
{
	struct sim_side *s = side_of(g);
	struct sim *w = s->world;
	u64 room = (u64)SIM_TX_BACKLOG_BYTES * w->cfg->wire.ps_per_byte / 1000;

	if (s->link_free <= w->now + room)
		return true;
	if (!s->tx_sched) {
		s->tx_sched = true;
		sim_ev_at(w, s->link_free - room, EV_TX_READY, s->id, 0, NULL,
			  0, 0);
	}
	return false;
}

/* ---------------------------------------------------------------- */
/* Records: the trace, failures                                        */

static void hook_note(struct hg_side *g, enum hg_note what, u8 opcode,
		      u32 psn, u64 a, u64 b)
{
	struct sim_side *s = side_of(g);

	sim_note(s->world, s->id, (u8)what, opcode, psn, a, b);
}

static __attribute__((format(printf, 2, 0)))
void hook_fail(struct hg_side *g, const char *fmt, va_list ap)
{
	sim_vfail(side_of(g)->world, fmt, ap);
}

/* ---------------------------------------------------------------- */
/* Send side: the user and the workload                                */

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

/* Successful completions: the engine's WQEs in order, each posted once */
static void hook_sq_comp(struct hg_side *g, u32 i, u8 status)
{
	struct sim_side *s = side_of(g);
	struct sim *w = s->world;

	if (status == SROCE_WC_SUCCESS && i >= s->posted) {
		sim_fail(w, "%c: WQE %u completed, never posted", 'A' + s->id,
			 i);
		return;
	}
	if (status != SROCE_WC_SUCCESS && status != SIM_WC_FLUSH &&
	    !w->res->sq_err_status[s->id])
		w->res->sq_err_status[s->id] = status;
	op_complete(w, s, i, status);
}

/* The engine is flushed: the WQEs it never fetched are flushed too */
static void hook_sq_flushed(struct hg_side *g)
{
	struct sim_side *s = side_of(g);
	struct sim *w = s->world;
	u32 i;

	for (i = g->sq.fetch - g->sq_base; i < s->nops && !w->failed; i++)
		op_complete(w, s, i, SIM_WC_FLUSH);
	sim_note(w, s->id, ST_FLUSH, 0xff, 0, g->sq.comp - g->sq_base,
		 s->nops);
	s->posted = s->nops;
}

/* The user posts send WQEs whose time has come while the SQ has room */
static void user_post(struct sim *w, struct sim_side *s)
{
	bool any = false;

	while (s->posted < s->nops && !s->g.qp_err) {
		const struct sim_op *op = &s->ops[s->posted];

		if (op->post_ns > w->now ||
		    s->posted - s->done >= w->p.sq_size[s->id])
			break;
		sim_note(w, s->id, ST_POST, 0xff, 0, s->posted, op->len);
		s->posted++;
		any = true;
	}
	if (any)
		hg_kick(&s->g);
}

static void hook_sq_room(struct hg_side *g)
{
	struct sim_side *s = side_of(g);

	user_post(s->world, s);
}

/* SROCE_REQ_FETCH: the next posted WQE, if any */
static bool hook_fetch(struct hg_side *g, u32 i, struct sroce_wqe *q)
{
	struct sim_side *s = side_of(g);
	const struct sim_op *op;

	if (i >= s->posted)
		return false;
	op = &s->ops[i];
	q->kind = op->kind;
	q->flags = op->flags;
	q->length = op->len;
	q->remote_addr = op->rva;
	q->rkey = op->rkey;
	q->swap_add = op->swap_add;
	q->compare = op->compare;
	return true;
}

static void hook_wqe(struct hg_side *g, u32 i, struct hg_wqe *out)
{
	struct sim_side *s = side_of(g);
	const struct sim_op *op = &s->ops[i];

	out->buf = op_local(s, op);
	out->imm = op->imm;
	out->inv_rkey = 0;
}

static bool tx_req_valid(struct sim *w, struct sim_side *s,
			 const struct sroce_tx_req *tx)
{
	const struct sroce_sq_eng *e = &s->g.sq;
	const struct sroce_opcode_info *info = sroce_opcode_get(tx->opcode);
	const struct sim_op *op;
	u32 i = tx->idx - s->g.sq_base;
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

/* A request the engine decided: valid for its WQE, recorded for oracle */
static bool hook_req_check(struct hg_side *g, const struct sroce_tx_req *tx)
{
	struct sim_side *s = side_of(g);
	struct sim *w = s->world;
	struct sim_op *op;

	if (!tx_req_valid(w, s, tx))
		return false;
	op = &s->ops[tx->idx - s->g.sq_base];
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
		return false;
	}
	if (op->kind == SROCE_WR_READ && tx->reth &&
	    tx->va - op->rva + tx->dma_len > op->rd_req_hi)
		op->rd_req_hi = tx->va - op->rva + tx->dma_len;
	return true;
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
	hg_send_pkt(&s->g, &h, op_local(s, op), op->len);
	op_complete(w, s, i, SROCE_WC_SUCCESS);
	user_post(w, s);	/* its SQ slot is free */
	return s->ud_sent < s->posted;
}

static bool hook_ud_step(struct hg_side *g)
{
	struct sim_side *s = side_of(g);

	return ud_req_step(s->world, s);
}

/*
 * SROCE_REQ_LOCAL: local WQE @i is carried out once, in order; an
 * ORDERED one only when every WQE before it has completed.
 */
static bool hook_local(struct hg_side *g, u32 i, u8 *status)
{
	struct sim_side *s = side_of(g);
	struct sim *w = s->world;
	struct sroce_sq_eng *e = &g->sq;
	u32 idx = i + g->sq_base;
	struct sim_op *op;

	if (idx - e->comp >= e->req - e->comp || i >= s->nops) {
		sim_fail(w, "%c: local WQE idx %u outside [comp %u, req %u)",
			 'A' + s->id, idx, e->comp, e->req);
		return false;
	}
	op = &s->ops[i];
	if (op->kind != SROCE_WR_LOCAL || op->nlocal++) {
		sim_fail(w, "%c: WQE %u (kind %u) carried out as local, %u times before",
			 'A' + s->id, i, op->kind, op->nlocal - 1);
		return false;
	}
	if ((op->flags & SROCE_WQE_ORDERED) && e->comp != idx) {
		sim_fail(w, "%c: ORDERED local WQE %u carried out with WQE %u not complete",
			 'A' + s->id, i, e->comp - g->sq_base);
		return false;
	}
	if (op->flags & SROCE_WQE_ORDERED)
		s->inv_upto = i + 1;
	*status = SROCE_WC_SUCCESS;
	return true;
}

static void arm_rexmit(struct sim *w, struct sim_side *s, u64 ns)
{
	s->rexmit_gen++;
	if (!ns) {
		sim_fail(w, "%c: retransmit timer armed for 0 ns", 'A' + s->id);
		return;
	}
	s->rexmit_on = true;
	sim_ev_at(w, w->now + ns, EV_REXMIT, s->id, s->rexmit_gen, NULL, 0, 0);
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
		sim_ev_at(w, w->now + act->timer_ns, EV_RNR, s->id,
			  s->rnr_gen, NULL, 0, 0);
		break;
	default:
		sim_fail(w, "%c: unknown timer op %u", 'A' + s->id, act->timer);
	}
}

static void hook_timer(struct hg_side *g, const struct sroce_sq_act *act)
{
	struct sim_side *s = side_of(g);

	sq_timer(s->world, s, act);
}

/* Where a READ response or an atomic result goes: into what was asked */
static bool hook_place_check(struct hg_side *g, const struct sroce_sq_act *act,
			     u32 plen)
{
	struct sim_side *s = side_of(g);
	struct sim *w = s->world;
	const struct sroce_sq_eng *e = &g->sq;
	u32 i = act->place_idx - g->sq_base;
	const struct sim_op *op;

	if (i >= s->nops) {
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
		return true;
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
	return true;
}

static void on_rexmit(struct sim *w, struct sim_side *s, u32 gen)
{
	struct sroce_sq_act act;

	if (gen != s->rexmit_gen || !s->rexmit_on || s->g.qp_err)
		return;
	s->rexmit_on = false;
	w->res->cnt[SC_TIMEOUTS]++;
	sim_note(w, s->id, ST_TIMEOUT, 0xff, s->g.sq.una_psn, s->g.sq.comp,
		 s->g.sq.fetch);
	memset(&act, 0, sizeof(act));
	sroce_sq_timeout(&s->g.sq, &act);
	hg_sq_checked(&s->g, "sroce_sq_timeout");
	sim_note(w, s->id, ST_TIMEOUT, 0xff, s->g.sq.next_psn, act.kick,
		 ((u64)(s->g.sq.req - s->g.sq_base) << 32) | s->g.sq.req_off);
	hg_sq_exec(&s->g, &act, NULL, 0);
}

static void on_rnr(struct sim *w, struct sim_side *s, u32 gen)
{
	struct sroce_sq_act act;

	if (gen != s->rnr_gen || s->g.qp_err)
		return;
	sim_note(w, s->id, ST_RNR_DONE, 0xff, s->g.sq.una_psn, 0, 0);
	memset(&act, 0, sizeof(act));
	sroce_sq_rnr_done(&s->g.sq, &act);
	hg_sq_checked(&s->g, "sroce_sq_rnr_done");
	hg_sq_exec(&s->g, &act, NULL, 0);
}

/* ---------------------------------------------------------------- */
/* Receive side: the workload's receive WQEs and their oracle          */

static u8 *hook_rwqe(struct hg_side *g, u32 i, u32 *len)
{
	struct sim_side *s = side_of(g);

	*len = s->rwqes[i].len;
	return g->mem + s->rwqes[i].off;
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
		      s->g.mem + s->zone_off[op->rzone] + op->roff :
		      s->g.mem + rw->off;
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

static void hook_rq_comp(struct hg_side *g, u32 idx,
			 const struct sroce_pkt *pkt,
			 const struct sroce_rq_act *act)
{
	struct sim_side *s = side_of(g);
	struct sim *w = s->world;
	struct sim_rwqe *rw = &s->rwqes[idx];

	if (rw->ncomp++) {
		sim_fail(w, "%c: receive %u completed twice", 'A' + s->id,
			 idx);
		return;
	}
	rw->status = act->wc_status;
	rw->byte_len = act->wc_byte_len;
	rw->imm = act->wc_imm;
	rw->imm_val = act->wc_imm ? pkt->hdr.imm : 0;
	rw->rdma_imm = act->wc_rdma_imm;
	sim_note(w, s->id, ST_RCOMP, 0xff, 0, idx,
		 ((u64)rw->status << 32) | rw->byte_len);
	rcomp_check(w, s, rw, idx, pkt->hdr.bth.psn);
}

static void hook_rq_flushed(struct hg_side *g, u32 i)
{
	struct sim_side *s = side_of(g);

	s->rwqes[i].ncomp++;
	s->rwqes[i].status = SIM_WC_FLUSH;
}

/* The QP went to error: its timers stop */
static void hook_error(struct hg_side *g)
{
	struct sim_side *s = side_of(g);

	s->err_ns = s->world->now;
	s->rexmit_on = false;
	s->rexmit_gen++;
	s->rnr_gen++;
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
	if (s->g.rtaken >= s->g.rposted) {
		w->res->cnt[SC_RQ_EMPTY]++;
		return;
	}
	rw = &s->rwqes[s->g.rtaken];
	if (sroce_ud_rx_fits(pkt, rw->len) != SROCE_UD_OK)
		return;		/* too big for the next WQE: dropped */
	memcpy(s->g.mem + rw->off + SROCE_GRH_LEN, payload, pkt->payload_len);
	rw->ncomp++;
	rw->status = SROCE_WC_SUCCESS;
	rw->byte_len = SROCE_GRH_LEN + pkt->payload_len;
	rw->imm = pkt->info->mask & SROCE_MASK_IMMDT;
	rw->imm_val = pkt->hdr.imm;
	sim_note(w, s->id, ST_RCOMP, 0xff, 0, s->g.rtaken, rw->byte_len);
	s->g.rtaken++;
	if (w->adversarial)
		return;
	for (i = 0; i < peer->posted; i++) {
		const struct sim_op *op = &peer->ops[i];

		if (op->npkts && op->first_psn == pkt->hdr.bth.psn &&
		    pkt->hdr.deth.sqpn == w->p.qpn[peer->id] &&
		    op->len == pkt->payload_len &&
		    rw->imm == (op->kind == SROCE_WR_SEND_IMM) &&
		    (!rw->imm || rw->imm_val == op->imm) &&
		    !memcmp(s->g.mem + rw->off + SROCE_GRH_LEN,
			    peer->init + peer->zone_off[op->lzone] + op->loff,
			    op->len)) {
			rw->got_op = i;
			if (w->p.uc_strict && i != rw->op)
				sim_fail(w, "%c: UD receive %u on a perfect wire got %c WQE %u, not %u",
					 'A' + s->id, s->g.rtaken - 1,
					 'A' + peer->id, i, rw->op);
			return;
		}
	}
	sim_fail(w, "%c: UD receive %u holds no datagram %c sent (PSN %06x, %u bytes)",
		 'A' + s->id, s->g.rtaken - 1, 'A' + peer->id, pkt->hdr.bth.psn,
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
	ret = hg_parse(&s->g, ev->buf, ev->len, &pkt);
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
	else
		hg_rx(&s->g, &pkt, ev->buf + pkt.payload_off);
}

static void on_rpost(struct sim *w, struct sim_side *s)
{
	u32 n = w->p.rq_batch;

	if (s->g.qp_err || s->g.rposted >= s->g.nrwqes)
		return;
	if (n > s->g.nrwqes - s->g.rposted)
		n = s->g.nrwqes - s->g.rposted;
	s->g.rposted += n;
	sim_note(w, s->id, ST_RPOST, 0xff, 0, s->g.rposted, n);
	if (s->g.rposted < s->g.nrwqes)
		sim_ev_at(w, w->now + w->p.rq_gap_ns, EV_RPOST, s->id, 0,
			  NULL, 0, 0);
}

static void on_forge(struct sim *w, const struct sim_ev *ev)
{
	struct sim_forge f;
	const struct sim_forge *fp = &f;

	if (w->cfg->script) {
		fp = &w->cfg->script[ev->gen];
		if (ev->gen + 1 < w->cfg->nscript)
			sim_ev_at(w, w->now +
				  w->cfg->script[ev->gen + 1].delay_ns,
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
	sim_ev_at(w, s->rx_free, EV_DELIVER, s->id, 0, b, ev->len,
		  ev->flags | EVF_TAKEN);
	return true;
}

static void dispatch(struct sim *w, const struct sim_ev *ev)
{
	struct sim_side *s = &w->side[ev->side & 1];

	/* the engines' clock: the round trips they measure are simulated */
	sroce_sq_clock(&w->side[0].g.sq, w->now);
	sroce_sq_clock(&w->side[1].g.sq, w->now);
	w->ctx_delay = 0;
	if (w->cfg->wire.ctx_ns)
		w->ctx_delay = rng_below(&w->ctx, w->cfg->wire.ctx_ns + 1);
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
		hg_pump(&s->g);
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

static const struct hg_ops sim_glue_ops = {
	.xmit = hook_xmit,
	.wqe = hook_wqe,
	.rwqe = hook_rwqe,
	.fail = hook_fail,
	.note = hook_note,
	.sq_comp = hook_sq_comp,
	.sq_flushed = hook_sq_flushed,
	.fetch = hook_fetch,
	.req_check = hook_req_check,
	.place_check = hook_place_check,
	.local = hook_local,
	.timer = hook_timer,
	.sq_room = hook_sq_room,
	.tx_room = hook_tx_room,
	.ud_step = hook_ud_step,
	.rq_comp = hook_rq_comp,
	.rq_flushed = hook_rq_flushed,
	.error = hook_error,
};

static void engines_start(struct sim *w, struct sim_side *s)
{
	const struct sim_params *p = &w->p;
	const struct hg_cfg cfg = {
		.mtu = p->mtu,
		.sq_size = p->sq_size[s->id],
		.max_rd = p->max_rd[s->id],
		.peer_max_rd = p->max_rd[s->peer->id],
		.retry_cnt = p->retry_cnt,
		.rnr_retry = p->rnr_retry,
		.timeout = p->timeout,
		.min_rnr_timer = p->min_rnr_timer,
		.psn = p->psn0[s->id],
		.peer_psn = p->psn0[s->peer->id],
		.access = SROCE_ACC_REMOTE_WRITE | SROCE_ACC_REMOTE_READ |
			  SROCE_ACC_REMOTE_ATOMIC,
		.transport = p->uc ? SROCE_TRANSPORT_UC :
			     p->ud ? SROCE_TRANSPORT_UD : SROCE_TRANSPORT_RC,
	};
	u32 i;

	s->world = w;
	s->g.ops = &sim_glue_ops;
	s->g.failed = &w->failed;
	s->g.name = (char)('A' + s->id);
	s->g.qpn = p->qpn[s->id];
	s->g.peer_qpn = p->qpn[s->peer->id];
	s->g.nmr = SIM_NMR;
	s->uc_last_op = -1;
	hg_start(&s->g, &cfg);
	for (i = 0; i < s->nops; i++)
		if (s->ops[i].post_ns)
			sim_ev_at(w, s->ops[i].post_ns, EV_POST, s->id, 0,
				  NULL, 0, 0);
	if (p->rq_trickle)
		sim_ev_at(w, 0, EV_RPOST, s->id, 0, NULL, 0, 0);
	else
		s->g.rposted = s->g.nrwqes;
}

static void schedule_script(struct sim *w)
{
	if (w->cfg->script && w->cfg->nscript)
		sim_ev_at(w, w->cfg->script[0].delay_ns, EV_FORGE, 0, 0,
			  NULL, 0, 0);
}

static void side_state(const struct sim_side *s, char *buf, size_t n)
{
	const struct sroce_sq_eng *e = &s->g.sq;

	snprintf(buf, n, "done %u/%u posted %u, comp %u req %u+%u fetch %u, una %06x next %06x sent %06x, rnr_wait %d rd_out %u; epsn %06x",
		 s->done, s->nops, s->posted, e->comp - s->g.sq_base,
		 e->req - s->g.sq_base, e->req_off, e->fetch - s->g.sq_base,
		 e->una_psn, e->next_psn, e->sent_psn, e->rnr_wait, sroce_sq_reads_out(e),
		 s->g.rq.epsn);
}

static void run_loop(struct sim *w)
{
	u64 limit = w->cfg->time_limit_ns ? w->cfg->time_limit_ns : ~0ULL;
	struct sim_ev ev;

	/* UC: WQEs complete when sent; run until the wire is empty too */
	while (!w->failed &&
	       (!sim_all_done(w) || (sim_unreliable(&w->p) && w->nheap))) {
		if (!sim_ev_pop(w, &ev)) {
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

/* What the glue counted, into the run's counters */
static void count_glue(struct sim *w)
{
	static const u8 to_sim[HG_CNT_EV_BASE] = {
		[HG_CNT_RETRANSMITS] = SC_RETRANSMITS,
		[HG_CNT_RX_REQ] = SC_RX_REQ,
		[HG_CNT_RX_RESP] = SC_RX_RESP,
		[HG_CNT_ACKS] = SC_ACKS_SENT,
		[HG_CNT_READ_RESPS] = SC_READ_RESP_SENT,
		[HG_CNT_RKEY_DENIED] = SC_RKEY_DENIED,
		[HG_CNT_RQ_EMPTY] = SC_RQ_EMPTY,
		[HG_CNT_ATOMICS] = SC_ATOMICS,
		[HG_CNT_ATOMIC_WRITES] = SC_ATOMIC_WRITES,
	};
	int i, c;

	for (i = 0; i < 2; i++) {
		const u64 *cnt = w->side[i].g.cnt;

		for (c = 0; c < HG_CNT_EV_BASE; c++)
			w->res->cnt[to_sim[c]] += cnt[c];
		for (c = 0; c < SROCE_EV_NR; c++)
			w->res->cnt[SC_EV_BASE + c] += cnt[HG_CNT_EV_BASE + c];
	}
}

static void world_free(struct sim *w)
{
	sim_ev_free(w);
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
	rng_seed(&w->ctx, cfg->seed, 13);
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
	count_glue(w);
	res->finish_ns = w->now;
	if (!w->failed)
		sim_check_final(w);
	if (w->failed)
		res->outcome = SIM_FAILED;
	if (w->failed && cfg->verbose)
		sim_trace_dump(w, stdout, cfg->verbose > 1 ? 16 : 200);
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
