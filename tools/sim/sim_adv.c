// SPDX-License-Identifier: GPL-2.0-only
/*
 * The adversary: an attacker that knows both QPNs injects packets at
 * either endpoint, as if from its peer.  A forged packet is described by
 * struct sim_forge (drawn at random, or decoded from a fuzzer's bytes)
 * and made concrete at injection time from the live state:
 *
 * - any RC opcode (requests, READ responses of every kind, ACK, atomic
 *   ACK), or any byte at all;
 * - PSN near the live ones: the target's oldest unacked / next PSN,
 *   inside an outstanding WQE, its expected request PSN, its peer's next
 *   PSN; old, current or ahead by a delta;
 * - AETH with any syndrome and an MSN near the live one;
 * - RETH with a real rkey of the target (or any), a VA inside that MR
 *   (or any), a DMA length up to 2^31;
 * - 0..MTU+some payload bytes (beyond 4096 the parser must refuse).
 */
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

static const u8 rc_opcodes[] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05,		/* SEND */
	0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,		/* WRITE */
	0x0c,						/* READ */
	0x0d, 0x0e, 0x0f, 0x10,				/* READ RESP */
	0x11, 0x12,					/* ACK, ATOMIC ACK */
	0x13, 0x14, 0x16, 0x17,				/* atomics, INV */
	0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x11,		/* responses again */
};

static s32 pick_delta(struct sim_rng *r)
{
	u64 u = rng_below(r, 100);

	if (u < 70)
		return (s32)rng_below(r, 9) - 4;
	if (u < 90)
		return (s32)rng_below(r, 129) - 64;
	return (s32)rng_below(r, SROCE_PSN_MODULUS);
}

static u8 pick_syndrome(struct sim_rng *r)
{
	switch (rng_below(r, 6)) {
	case 0:
	case 1:
		return SROCE_AETH_SYN(SROCE_AETH_TYPE_ACK, rng_below(r, 32));
	case 2:
		return SROCE_AETH_SYN(SROCE_AETH_TYPE_RNR, rng_below(r, 32));
	case 3:
	case 4:
		return SROCE_AETH_SYN(SROCE_AETH_TYPE_NAK, rng_below(r, 6));
	default:
		return (u8)rng_next(r);
	}
}

static u32 pick_dma_len(struct sim_rng *r)
{
	switch (rng_below(r, 5)) {
	case 0:
		return (u32)rng_below(r, 65);
	case 1:
		return (u32)rng_range(r, 1, 16) * 256 + (u32)rng_below(r, 3) - 1;
	case 2:
		return (u32)rng_below(r, 1 << 20);
	case 3:
		return 0x80000000U - (u32)rng_below(r, 4);
	default:
		return (u32)rng_next(r);
	}
}

static u16 pick_payload_len(struct sim_rng *r)
{
	switch (rng_below(r, 5)) {
	case 0:
		return 0;
	case 1:
		return (u16)rng_below(r, 64);
	case 2:
		return (u16)(256U << rng_below(r, 5));
	case 3:
		return (u16)((256U << rng_below(r, 5)) + rng_below(r, 3) - 1);
	default:
		return (u16)rng_below(r, 4096 + 128);
	}
}

void sim_forge_random(struct sim_rng *r, struct sim_forge *f)
{
	memset(f, 0, sizeof(*f));
	f->target = (u8)rng_below(r, 2);
	f->opcode = (u8)rng_below(r, sizeof(rc_opcodes));
	if (rng_chance(r, 0.03)) {
		f->flags |= SIM_FORGE_RAW_OPCODE;
		f->opcode = (u8)rng_next(r);
	}
	f->psn_sel = (u8)rng_below(r, SIM_PSN_NR);
	f->psn_delta = pick_delta(r);
	f->syndrome = pick_syndrome(r);
	f->msn_delta = (s32)rng_below(r, 9) - 4;
	f->key_sel = (u8)rng_below(r, SIM_NMR + 2);
	f->rkey = (u32)rng_next(r);
	f->va_in_mr = rng_chance(r, 0.7);
	f->va = rng_chance(r, 0.5) ? rng_below(r, 1 << 16) : rng_next(r);
	f->dma_len = pick_dma_len(r);
	f->payload_len = pick_payload_len(r);
	if (rng_chance(r, 0.5))
		f->flags |= SIM_FORGE_ACKREQ;
	if (rng_chance(r, 0.1))
		f->flags |= SIM_FORGE_SE;
	if (rng_chance(r, 0.03))
		f->flags |= SIM_FORGE_BAD_QPN;
	f->imm = (u32)rng_next(r);
}

/* A PSN inside an outstanding, already started WQE of @s, or next_psn */
static u32 wqe_psn(const struct sim_side *s, s32 delta)
{
	const struct sroce_sq_eng *e = &s->g.sq;
	u32 n = e->req - e->comp + (e->req_off ? 1 : 0);
	const struct sroce_wqe *q;

	if (!n || e->req - e->comp > e->fetch - e->comp)
		return e->next_psn + (u32)delta;
	q = &e->wqe[(e->comp + (u32)delta % n) & (e->size - 1)];
	return q->first_psn + (u32)delta % (q->npkts ? q->npkts : 1);
}

static u32 forge_psn(const struct sim_side *t, const struct sim_forge *f)
{
	u32 d = (u32)f->psn_delta;

	switch (f->psn_sel % SIM_PSN_NR) {
	case SIM_PSN_UNA:
		return sroce_psn_add(t->g.sq.una_psn, d);
	case SIM_PSN_NEXT:
		return sroce_psn_add(t->g.sq.next_psn, d);
	case SIM_PSN_WQE:
		return sroce_psn_mask(wqe_psn(t, f->psn_delta));
	case SIM_PSN_EPSN:
		return sroce_psn_add(t->g.rq.epsn, d);
	case SIM_PSN_PEER_NEXT:
		return sroce_psn_add(t->peer->g.sq.next_psn, d);
	default:
		return sroce_psn_mask(d);
	}
}

static void forge_reth(const struct sim_side *t, const struct sim_forge *f,
		       struct sroce_hdrs *h)
{
	const struct hg_mr *mr = f->key_sel < SIM_NMR ? &t->g.mr[f->key_sel] :
							 NULL;

	h->reth.rkey = mr ? mr->rkey : f->rkey;
	h->reth.va = mr && f->va_in_mr ? mr->va + f->va % (mr->len + 1) : f->va;
	h->reth.len = f->dma_len;
	h->atmeth.rkey = h->reth.rkey;
	h->atmeth.va = h->reth.va & ~7ULL;
	h->atmeth.swap_add = f->va;
	h->atmeth.compare = f->imm;
}

/* Bytes of a packet the builder refuses: BTH, then payload and ICRC */
static u32 forge_raw(u8 *buf, const struct sroce_hdrs *h, u32 plen)
{
	sroce_bth_encode(buf, &h->bth);
	return SROCE_BTH_LEN + plen + SROCE_ICRC_LEN;
}

void sim_forge_inject(struct sim *w, const struct sim_forge *f)
{
	struct sim_side *t = &w->side[f->target & 1];
	u32 plen = f->payload_len % (SROCE_MAX_PAYLOAD + 256);
	struct sroce_hdrs h;
	u32 total;
	int hl;
	u8 *buf;

	memset(&h, 0, sizeof(h));
	h.bth.opcode = (f->flags & SIM_FORGE_RAW_OPCODE) ? f->opcode :
		       rc_opcodes[f->opcode % sizeof(rc_opcodes)];
	/* UC QPs: their Sends and Writes, the rest as it is */
	if (w->p.uc && !(f->flags & SIM_FORGE_RAW_OPCODE) &&
	    h.bth.opcode <= 0x0b)
		h.bth.opcode |= SROCE_TRANSPORT_UC;
	/* UD QPs: datagrams, with the right Q_Key half of the time */
	if (w->p.ud && !(f->flags & SIM_FORGE_RAW_OPCODE) &&
	    h.bth.opcode <= 0x0b) {
		h.bth.opcode = h.bth.opcode & 1 ? SROCE_UD_SEND_ONLY_IMM :
						  SROCE_UD_SEND_ONLY;
		h.deth.qkey = f->imm & 1 ? SIM_UD_QKEY : f->imm;
		h.deth.sqpn = w->p.qpn[t->peer->id];
	}
	h.bth.pkey = SROCE_DEFAULT_PKEY;
	h.bth.dqpn = w->p.qpn[t->id] ^ ((f->flags & SIM_FORGE_BAD_QPN) ? 1 : 0);
	h.bth.ackreq = f->flags & SIM_FORGE_ACKREQ;
	h.bth.se = f->flags & SIM_FORGE_SE;
	h.bth.psn = forge_psn(t, f);
	h.aeth.syndrome = f->syndrome;
	h.aeth.msn = sroce_psn_add(t->peer->g.rq.msn, (u32)f->msn_delta);
	h.imm = f->imm;
	forge_reth(t, f, &h);

	buf = malloc(SROCE_MAX_HDR_LEN + plen + 3 + SROCE_ICRC_LEN);
	if (!buf)
		return;
	memset(buf, 0, SROCE_MAX_HDR_LEN + plen + 3 + SROCE_ICRC_LEN);
	hl = sroce_build_hdrs(buf, SROCE_MAX_HDR_LEN, &h, plen);
	if (hl < 0) {
		total = forge_raw(buf, &h, plen);
		hl = SROCE_BTH_LEN;
	} else {
		total = (u32)hl + plen + sroce_pad_len(plen) + SROCE_ICRC_LEN;
	}
	if (plen) {
		u32 i;

		for (i = 0; i < plen; i++)
			buf[hl + i] = (u8)(f->imm + i * 131);
	}
	sim_note(w, t->id, ST_FORGE, h.bth.opcode, h.bth.psn, plen,
		 ((u64)h.aeth.syndrome << 24) | h.aeth.msn);
	/* a forged packet arrives now, past the wire and its faults */
	sim_ev_at(w, w->now, EV_DELIVER, t->id, 0, buf, total, EVF_FORGED);
}

/* ---------------------------------------------------------------- */
/* Fuzzer input: configuration and script from bytes                   */

struct byte_reader {
	const u8 *p;
	size_t left;
};

static u64 rd(struct byte_reader *r, int n)
{
	u64 v = 0;

	while (n--) {
		v <<= 8;
		if (r->left) {
			v |= *r->p++;
			r->left--;
		}
	}
	return v;
}

static void decode_forge(struct byte_reader *r, struct sim_forge *f)
{
	u8 sel = (u8)rd(r, 1);

	memset(f, 0, sizeof(*f));
	f->delay_ns = rd(r, 2) * 64;
	f->target = sel & 1;
	f->psn_sel = (sel >> 1) % SIM_PSN_NR;
	f->flags = (u8)(sel >> 4);
	f->opcode = (u8)rd(r, 1);
	f->psn_delta = (s32)(s8)rd(r, 1);
	f->syndrome = (u8)rd(r, 1);
	f->msn_delta = (s32)(s8)rd(r, 1);
	f->key_sel = (u8)(rd(r, 1) % (SIM_NMR + 1));
	f->va_in_mr = f->key_sel < SIM_NMR;
	f->va = rd(r, 4);
	f->rkey = (u32)f->va;
	f->dma_len = (u32)rd(r, 4);
	f->payload_len = (u16)rd(r, 2);
	f->imm = (u32)rd(r, 2);
}

u32 sim_cfg_decode(const u8 *data, size_t size, struct sim_cfg *cfg,
		   struct sim_forge *script, u32 max)
{
	struct byte_reader r = { .p = data, .left = size };
	u32 n = 0;

	memset(cfg, 0, sizeof(*cfg));
	cfg->seed = rd(&r, 4);
	cfg->wire.loss = (double)rd(&r, 1) / 2048;
	cfg->wire.dup = (double)rd(&r, 1) / 2048;
	cfg->wire.reorder = (double)rd(&r, 1) / 1024;
	cfg->wire.corrupt = (double)rd(&r, 1) / 2048;
	cfg->wire.latency_ns = 1000 + rd(&r, 1) * 100;
	cfg->wire.jitter_ns = rd(&r, 1) * 20;
	cfg->wire.reorder_ns = 20000;
	cfg->wire.ps_per_byte = 800;
	cfg->budget = 256 + rd(&r, 2);
	cfg->max_ops = 2 + (u32)rd(&r, 1) % 24;
	while (r.left && n < max)
		decode_forge(&r, &script[n++]);
	cfg->script = script;
	cfg->nscript = n;
	cfg->legit_errors_ok = true;
	cfg->time_limit_ns = 600ULL * 1000 * 1000 * 1000;
	cfg->event_limit = 2000000;
	return n;
}
