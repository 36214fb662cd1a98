// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload and parameters of a run, all drawn from the seed's workload
 * stream (so a lossless reference run gets the very same workload):
 *
 * - path MTU, SQ depths 1..256, max_rd_atomic 1..16, retry counts,
 *   ACK timeout (above the path's worst round trip), RNR timer, PSNs
 *   (sometimes just before the 2^24 wrap), QPNs;
 * - one run in five with UC QPs, one in eight of the rest with UD QPs
 *   (one-MTU Sends, no Reads, Writes or atomics);
 * - per endpoint a list of Send, Send-with-imm, Write, Write-with-imm,
 *   Read, compare-and-swap, fetch-and-add and ATOMIC WRITE WQEs, and local WQEs
 *   (fast registration, invalidation: no packets; some ORDERED, standing
 *   for a LOCAL_INV of the buffers before them), 0 B..1 MiB skewed
 *   toward small, some exactly k * MTU +-1, signalled or not, posted at
 *   once or over time; atomics on a few 8-byte cells of the peer, with
 *   small values so that compares both hit and miss;
 * - receive WQEs at the peer for every Send / Write-with-imm, posted all
 *   at once or in batches over time (empty RQ: RNR NAKs);
 * - memory: zones (peer-writable, peer-readable, both, atomic, local,
 *   receive) filled with random bytes, five MRs (the last grants nothing
 *   remote),
 *   VAs sometimes at the very top of the 64-bit space.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

#define SIM_DEFAULT_BUDGET	(1024 * 1024)
#define SIM_DEFAULT_MAX_OPS	160
#define SIM_GUARD		4096

static void *zalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p) {
		fprintf(stderr, "sim: out of memory (%zu bytes)\n", n);
		exit(2);
	}
	return p;
}

/* Smallest ACK timeout code whose timeout exceeds the worst round trip */
static u8 timeout_floor(const struct sim_cfg *cfg)
{
	const struct sim_wire_cfg *c = &cfg->wire;
	u64 one_way = c->latency_ns + c->jitter_ns + c->reorder_ns;
	u64 backlog = 4ULL * 64 * 1024 * c->ps_per_byte / 1000;
	u64 need = 2 * one_way + backlog + 200000;
	u8 t = 1;

	while (t < 24 && (4096ULL << t) < need)
		t++;
	return t;
}

static void gen_params(struct sim *w)
{
	const struct sim_wire_cfg *c = &w->cfg->wire;
	struct sim_params *p = &w->p;
	struct sim_rng *r = &w->wl, u;
	int i;

	/* One run in five is UC, drawn apart: RC runs keep their seeds */
	rng_seed(&u, w->cfg->seed, 11);
	p->uc = rng_chance(&u, 0.2);
	p->ud = !p->uc && rng_chance(&u, 0.15);
	p->mtu = 256U << rng_below(r, 5);
	for (i = 0; i < 2; i++) {
		p->sq_size[i] = 1U << rng_below(r, 9);
		p->max_rd[i] = (u32)rng_range(r, 1, 16);
		p->psn0[i] = rng_chance(r, 0.25) ?
			     SROCE_PSN_MASK - (u32)rng_below(r, 64) :
			     (u32)rng_below(r, SROCE_PSN_MODULUS);
		p->qpn[i] = (u32)rng_range(r, 16, 0xfffffe);
	}
	if (p->qpn[0] == p->qpn[1])
		p->qpn[1] ^= 1;
	p->retry_cnt = rng_chance(r, 0.8) ? 7 : (u8)rng_below(r, 7);
	p->rnr_retry = rng_chance(r, 0.6) ? 7 : (u8)rng_below(r, 7);
	p->timeout = w->cfg->timeout ? w->cfg->timeout :
		     (u8)(timeout_floor(w->cfg) + rng_below(r, 3));
	p->min_rnr_timer = (u8)rng_range(r, 1, 14);
	p->rq_trickle = rng_chance(r, 0.3);
	p->rq_batch = (u32)rng_range(r, 1, 8);
	p->rq_gap_ns = rng_range(r, 1000, 300000);
	/* UD completes sends at once: trickling receives drop most of them */
	if (p->ud && rng_chance(&u, 0.75))
		p->rq_trickle = false;
	p->uc_strict = sim_unreliable(p) && !p->rq_trickle && !c->loss &&
		       !c->dup &&
		       !c->reorder && !c->corrupt && !c->jitter_ns &&
		       w->cfg->adversary <= 0 && !w->cfg->script;
}

/* Friendly fixed parameters for the bench: only the wire varies */
static void bench_params(struct sim *w)
{
	struct sim_params *p = &w->p;
	int i;

	p->mtu = 4096;
	for (i = 0; i < 2; i++) {
		p->sq_size[i] = 128;
		p->max_rd[i] = 8;
		p->psn0[i] = (u32)rng_below(&w->wl, SROCE_PSN_MODULUS);
		p->qpn[i] = 0x100 + (u32)i;
	}
	p->retry_cnt = 7;
	p->rnr_retry = 7;
	p->timeout = w->cfg->timeout ? w->cfg->timeout :
		     (u8)(timeout_floor(w->cfg) + 1);
	p->min_rnr_timer = 1;
	p->rq_trickle = false;
	p->rq_batch = 1;
	p->rq_gap_ns = 1000;
}

/* Message size: skewed small, some k * MTU +- 1, a few up to 1 MiB */
static u32 pick_len(struct sim_rng *r, u32 mtu)
{
	u64 u = rng_below(r, 100);
	s64 k;

	if (u < 30)
		return (u32)rng_below(r, 65);
	if (u < 50)
		return (u32)rng_range(r, 65, 4096);
	if (u < 68) {
		k = (s64)rng_range(r, 1, 8) * mtu + (s64)rng_below(r, 3) - 1;
		return (u32)k;
	}
	if (u < 82)
		return (u32)rng_range(r, 4097, 65536);
	if (u < 94)
		return (u32)rng_range(r, 65537, 262144);
	if (u < 98)
		return (u32)rng_range(r, 262145, 1048575);
	return 1048576;
}

static u8 pick_kind(struct sim_rng *r, bool atomics)
{
	u64 u = rng_below(r, 100);

	if (atomics && u >= 90)
		return u < 94 ? SROCE_WR_CMP_SWAP :
		       u < 98 ? SROCE_WR_FETCH_ADD : SROCE_WR_ATOMIC_WRITE;
	if (u < 22)
		return SROCE_WR_SEND;
	if (u < 32)
		return SROCE_WR_SEND_IMM;
	if (u < 55)
		return SROCE_WR_WRITE;
	if (u < 65)
		return SROCE_WR_WRITE_IMM;
	return SROCE_WR_READ;
}

/* Reserve @len bytes of @zone at a random small offset; zone offset */
static u64 zone_take(struct sim_side *s, struct sim_rng *r, u8 zone, u64 len)
{
	u64 off = s->zone_len[zone] + rng_below(r, 64);

	s->zone_len[zone] = off + len;
	return off;
}

static void gen_rwqe(struct sim *w, struct sim_side *s, struct sim_op *op,
		     u32 i)
{
	struct sim_side *peer = s->peer;
	struct sim_rwqe *rw = &peer->rwqes[peer->g.nrwqes];
	u32 slack = rng_chance(&w->wl, 0.5) ? 0 :
		    (u32)rng_range(&w->wl, 1, 256);

	rw->op = i;
	rw->len = op->kind == SROCE_WR_WRITE_IMM ? slack : op->len + slack;
	if (w->p.ud)
		rw->len += SROCE_GRH_LEN;	/* the GRH comes first */
	rw->off = zone_take(peer, &w->wl, SZ_RECV, rw->len);
	rw->status = SIM_WC_NONE;
	op->rwqe = peer->g.nrwqes++;
}

/* A local WQE, drawn from a stream of its own */
static void gen_local(struct sim_op *op, struct sim_rng *r)
{
	op->kind = SROCE_WR_LOCAL;
	op->flags = rng_chance(r, 0.7) ? SROCE_WQE_SIGNALED : 0;
	if (rng_chance(r, 0.5))
		op->flags |= SROCE_WQE_ORDERED;
	if (rng_chance(r, 0.1))
		op->flags |= SROCE_WQE_FENCE;
	op->status = SIM_WC_NONE;
	op->rwqe = ~0U;
	op->lzone = SZ_LOCAL;
	op->rzone = SZ_NR;
}

static void gen_op(struct sim *w, struct sim_side *s, struct sim_op *op,
		   u32 i, u64 *left)
{
	struct sim_rng *r = &w->wl;

	if (!w->p.ud && !w->cfg->bench_mix && rng_chance(&w->lo, 0.06)) {
		gen_local(op, &w->lo);
		return;
	}

	op->kind = pick_kind(r, !w->cfg->bench_mix);
	if (w->p.uc && op->kind >= SROCE_WR_READ)
		op->kind = SROCE_WR_WRITE;	/* UC has no Read or atomics */
	if (w->p.ud && op->kind > SROCE_WR_SEND_IMM)
		op->kind = op->kind & 1 ? SROCE_WR_SEND_IMM : SROCE_WR_SEND;
	op->len = pick_len(r, w->p.mtu);
	if (w->p.ud && op->len > w->p.mtu)	/* a datagram is one packet */
		op->len = (u32)rng_below(r, w->p.mtu + 1);
	if (op->len > *left)
		op->len = (u32)rng_below(r, 65);
	if (sim_kind_atomic(op->kind)) {
		op->len = 8;
		op->cell = (u8)rng_below(r, SIM_NCELLS);
		if (op->kind == SROCE_WR_FETCH_ADD) {
			op->swap_add = rng_range(r, 1, 3);
		} else if (op->kind == SROCE_WR_ATOMIC_WRITE) {
			op->swap_add = rng_below(r, 12);
		} else {
			op->compare = rng_below(r, 12);
			op->swap_add = rng_below(r, 12);
		}
	}
	*left -= op->len < *left ? op->len : *left;
	op->flags = rng_chance(r, 0.7) ? SROCE_WQE_SIGNALED : 0;
	if (rng_chance(r, 0.2))
		op->flags |= SROCE_WQE_SOLICITED;
	if (rng_chance(r, 0.05))
		op->flags |= SROCE_WQE_FENCE;
	op->imm = (u32)rng_next(r);
	op->status = SIM_WC_NONE;
	op->rwqe = ~0U;
	op->lzone = SZ_LOCAL;
	op->loff = zone_take(s, r, SZ_LOCAL, op->len);
	if (op->kind == SROCE_WR_WRITE || op->kind == SROCE_WR_WRITE_IMM)
		op->rzone = rng_chance(r, 0.5) ? SZ_W : SZ_RW;
	else if (op->kind == SROCE_WR_READ)
		op->rzone = rng_chance(r, 0.5) ? SZ_R : SZ_RW;
	else if (sim_kind_atomic(op->kind))
		op->rzone = SZ_A;	/* its cell: placed by finish_ops() */
	else
		op->rzone = SZ_NR;
	if (op->rzone != SZ_NR && op->rzone != SZ_A)
		op->roff = zone_take(s->peer, r, op->rzone, op->len);
	if (op->kind == SROCE_WR_SEND || op->kind == SROCE_WR_SEND_IMM ||
	    op->kind == SROCE_WR_WRITE_IMM)
		gen_rwqe(w, s, op, i);
}

static void gen_ops(struct sim *w, struct sim_side *s)
{
	const struct sim_cfg *cfg = w->cfg;
	u32 max_ops = cfg->max_ops ? cfg->max_ops : SIM_DEFAULT_MAX_OPS;
	u64 left = cfg->budget ? cfg->budget : SIM_DEFAULT_BUDGET;
	bool spread = !cfg->bench_mix && rng_chance(&w->wl, 0.5);
	u64 t = 0;
	u32 i;

	s->nops = cfg->bench_mix ? max_ops : (u32)rng_range(&w->wl, 1, max_ops);
	s->ops = zalloc(s->nops * sizeof(*s->ops));
	s->peer->rwqes = zalloc(s->nops * sizeof(*s->peer->rwqes));
	for (i = 0; i < s->nops; i++) {
		gen_op(w, s, &s->ops[i], i, &left);
		if (spread)
			t += rng_below(&w->wl, 20000);
		s->ops[i].post_ns = t;
	}
}

static void fill_random(struct sim_rng *r, u8 *p, u64 n)
{
	u64 i, v;

	for (i = 0; i + 8 <= n; i += 8) {
		v = rng_next(r);
		memcpy(p + i, &v, 8);
	}
	v = rng_next(r);
	if (i < n)
		memcpy(p + i, &v, n - i);
}

static void set_mr(struct sim_side *s, struct sim_rng *r, int i, u64 off,
		   u64 len, u32 access)
{
	struct hg_mr *mr = &s->g.mr[i];

	mr->off = off;
	mr->len = len;
	mr->va = s->va_base + off;
	mr->access = access;
	mr->rkey = ((u32)rng_next(r) & ~0xffU) | (u32)(i << 4) | (u32)s->id;
}

/* Zones back to back with guards, then memory and MRs */
static void layout(struct sim *w, struct sim_side *s)
{
	struct sim_rng *r = &w->wl;
	u64 off = SIM_GUARD;
	int z;
	u32 c;

	s->zone_len[SZ_A] = SIM_NCELLS * 8 + 8;	/* + room to align */
	for (z = 0; z < SZ_NR; z++) {
		s->zone_off[z] = off;
		off += s->zone_len[z] + SIM_GUARD;
	}
	s->mem_len = off;
	s->g.mem = zalloc(s->mem_len);
	s->init = zalloc(s->mem_len);
	s->mark = zalloc(s->mem_len);
	fill_random(r, s->init, s->mem_len);
	memcpy(s->g.mem, s->init, s->mem_len);
	if (rng_chance(r, 0.15))	/* right below 2^64 */
		s->va_base = 0 - s->mem_len - rng_below(r, 4096);
	else
		s->va_base = 0x7f0000000000ULL + rng_below(r, 1 << 20) * 4096 +
			     rng_below(r, 4096);
	set_mr(s, r, 0, s->zone_off[SZ_W], s->zone_len[SZ_W],
	       SROCE_ACC_REMOTE_WRITE);
	set_mr(s, r, 1, s->zone_off[SZ_R], s->zone_len[SZ_R],
	       SROCE_ACC_REMOTE_READ);
	set_mr(s, r, 2, s->zone_off[SZ_RW], s->zone_len[SZ_RW],
	       SROCE_ACC_REMOTE_WRITE | SROCE_ACC_REMOTE_READ);
	set_mr(s, r, 3, s->zone_off[SZ_A], s->zone_len[SZ_A],
	       SROCE_ACC_REMOTE_ATOMIC | SROCE_ACC_REMOTE_WRITE);
	/* Cells 8-byte aligned in VA space; small values, compares hit */
	s->cell0 = (8 - (s->va_base + s->zone_off[SZ_A]) % 8) % 8;
	for (c = 0; c < SIM_NCELLS; c++) {
		u64 v = rng_below(r, 4);
		u64 at = s->zone_off[SZ_A] + s->cell0 + 8ULL * c;

		memcpy(s->init + at, &v, 8);
		memcpy(s->g.mem + at, &v, 8);
	}
	set_mr(s, r, 4, s->zone_off[SZ_LOCAL],
	       s->zone_off[SZ_RECV] + s->zone_len[SZ_RECV] -
	       s->zone_off[SZ_LOCAL], 0);
}

u64 sim_zone_va(const struct sim_side *s, u8 zone, u64 zoff)
{
	return s->va_base + s->zone_off[zone] + zoff;
}

static void mark(struct sim_side *s, u64 off, u64 len, u8 bits)
{
	u64 i;

	for (i = 0; i < len; i++)
		s->mark[off + i] |= bits;
}

/* Remote addresses, keys and the per-byte marks, once laid out */
static void finish_ops(struct sim *w, struct sim_side *s)
{
	struct sim_side *peer = s->peer;
	u32 i;

	for (i = 0; i < s->nops; i++) {
		struct sim_op *op = &s->ops[i];
		u64 loff = s->zone_off[op->lzone] + op->loff;

		if (op->rzone == SZ_NR)
			continue;
		if (op->rzone == SZ_A)
			op->roff = peer->cell0 + 8ULL * op->cell;
		op->rva = sim_zone_va(peer, op->rzone, op->roff);
		op->rkey = peer->g.mr[op->rzone].rkey;
		if (op->kind == SROCE_WR_READ || sim_kind_atomic(op->kind))
			mark(s, loff, op->len, SM_TARGET | SM_PEER);
		if (op->kind != SROCE_WR_READ)
			mark(peer, peer->zone_off[op->rzone] + op->roff,
			     op->len, SM_TARGET);
	}
	for (i = 0; i < s->g.nrwqes; i++) {
		struct sim_rwqe *rw = &s->rwqes[i];
		const struct sim_op *op = &peer->ops[rw->op];

		rw->off += s->zone_off[SZ_RECV];
		mark(s, rw->off, rw->len, SM_PEER);
		if (sim_unreliable(&w->p))	/* any later message that fits */
			mark(s, rw->off, rw->len, SM_TARGET);
		else if (op->kind != SROCE_WR_WRITE_IMM)
			mark(s, rw->off, op->len, SM_TARGET);
	}
	mark(s, s->zone_off[SZ_W], s->zone_len[SZ_W], SM_PEER);
	mark(s, s->zone_off[SZ_RW], s->zone_len[SZ_RW], SM_PEER);
	mark(s, s->zone_off[SZ_A], s->zone_len[SZ_A], SM_PEER);
}

static void describe(struct sim *w)
{
	const struct sim_params *p = &w->p;

	snprintf(w->res->desc, sizeof(w->res->desc),
		 "%smtu %u sq %u/%u rd %u/%u ops %u/%u retry %u rnr %u%s timeout %u psn %06x/%06x",
		 p->uc ? "UC " : p->ud ? "UD " : "", p->mtu, p->sq_size[0],
		 p->sq_size[1],
		 p->max_rd[0],
		 p->max_rd[1], w->side[0].nops, w->side[1].nops, p->retry_cnt,
		 p->rnr_retry, p->rq_trickle ? " trickle" : "", p->timeout,
		 p->psn0[0], p->psn0[1]);
}

int sim_work_build(struct sim *w)
{
	int i;
	u32 j;

	for (i = 0; i < 2; i++) {
		w->side[i].id = i;
		w->side[i].peer = &w->side[!i];
	}
	if (w->cfg->bench_mix)
		bench_params(w);
	else
		gen_params(w);
	for (i = 0; i < 2; i++)
		gen_ops(w, &w->side[i]);
	for (i = 0; i < 2; i++)
		layout(w, &w->side[i]);
	for (i = 0; i < 2; i++) {
		struct sim_side *s = &w->side[i];

		finish_ops(w, s);
		s->g.ring = zalloc(w->p.sq_size[i] * sizeof(*s->g.ring));
		/* engine state of a fresh slot is garbage, as after reuse */
		memset(s->g.ring, 0xa5, w->p.sq_size[i] * sizeof(*s->g.ring));
		for (j = 0; j < s->nops; j++) {
			w->res->bytes += s->ops[j].len;
			w->res->ops++;
		}
	}
	describe(w);
	return 0;
}

void sim_work_free(struct sim *w)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct sim_side *s = &w->side[i];

		free(s->g.mem);
		free(s->init);
		free(s->mark);
		free(s->ops);
		free(s->rwqes);
		free(s->g.ring);
	}
}
