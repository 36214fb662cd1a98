// SPDX-License-Identifier: GPL-2.0-only
/*
 * RC engine tests: a requester and a responder from the core wired back
 * to back through the real header builder and parser, driven by hand.
 * Small, exact scenarios; tools/sim/ runs the random, lossy ones.
 */
#include <stdio.h>
#include <string.h>

#include "sroce/rc_engine.h"
#include "sroce/opcode.h"
#include "tap.h"
#include "tests.h"

#define SQ_SIZE		16
#define MEM		(300 * 1024)
#define RKEY		0x1234

struct end {
	struct sroce_sq_eng sq;
	struct sroce_wqe wqe[SQ_SIZE];
	u8 local[SQ_SIZE][MEM];		/* each WQE's local buffer */
	struct sroce_rq_eng rq;
	struct sroce_rd_res res[16];
	u8 mem[MEM];			/* remote-accessible memory */
	u8 rbuf[MEM];			/* the receive buffer */
	int rwqes;			/* receive WQEs posted */
	u32 recv_len;
	int recvs;
	int atomics;			/* atomics carried out here */
	int awrites;			/* of which ATOMIC WRITEs */
	u32 events;			/* responder events seen */
	u32 rwqe_len;			/* receive WQE length, 0: MEM */
	u32 atomic_access;		/* 0: every rkey_ok range is atomic */
	int local_runs;			/* local WQEs carried out */
	u32 local_comp;			/* sq.comp when the last one ran */
	u8 local_status;		/* what they end with */
	int invs;			/* Send with Invalidate completions */
	u32 inv_rkey;
	bool inv_fail;			/* the invalidation fails */
	u8 recv_status;
};

struct pkt {
	u8 buf[SROCE_MAX_PKT_LEN];
	u32 len;
};

static struct pkt wire[2][1024];	/* [to B, to A] */
static int nwire[2];

static int take_rwqe(void *ctx, u32 *len)
{
	struct end *x = ctx;

	if (!x->rwqes)
		return -1;
	x->rwqes--;
	*len = x->rwqe_len ? x->rwqe_len : MEM;
	return 0;
}

static bool rkey_ok(void *ctx, u32 rkey, u64 va, u32 len, u32 access)
{
	(void)ctx;
	(void)access;
	return rkey == RKEY && va <= MEM && len <= MEM - va;
}

static bool do_atomic(void *ctx, const struct sroce_atomic_op *op, u64 *orig)
{
	struct end *x = ctx;
	u64 v;

	if (op->write) {
		if (!rkey_ok(ctx, op->rkey, op->va, 8, SROCE_ACC_REMOTE_WRITE))
			return false;
		memcpy(x->mem + op->va, &op->swap_add, 8);
		x->atomics++;
		x->awrites++;
		return true;
	}
	if (!rkey_ok(ctx, op->rkey, op->va, 8, SROCE_ACC_REMOTE_ATOMIC) ||
	    x->atomic_access)
		return false;
	memcpy(&v, x->mem + op->va, 8);
	*orig = v;
	if (!op->cmp_swap)
		v += op->swap_add;
	else if (v == op->compare)
		v = op->swap_add;
	memcpy(x->mem + op->va, &v, 8);
	x->atomics++;
	return true;
}

static void emit(int dir, struct sroce_hdrs *h, const u8 *payload, u32 len)
{
	struct pkt *p = &wire[dir][nwire[dir]++];
	int hl;

	h->bth.pkey = 0xffff;
	p->len = (u32)sroce_pkt_len(h->bth.opcode, len);
	hl = sroce_build_hdrs(p->buf, p->len, h, len);
	if (hl < 0) {
		fprintf(stderr, "build failed\n");
		return;
	}
	if (len)
		memcpy(p->buf + hl, payload, len);
}

/* Run the requester of @x (sending towards @dir) until idle */
static void req_run(struct end *x, int dir)
{
	for (;;) {
		struct sroce_sq_act act;
		struct sroce_tx_req tx;
		struct sroce_hdrs h = {};

		enum sroce_req_verdict v = sroce_req_next(&x->sq, &tx, &act);

		if (v == SROCE_REQ_LOCAL) {
			x->local_runs++;
			x->local_comp = x->sq.comp;
			sroce_sq_local_done(&x->sq, tx.idx, x->local_status,
					    &act);
			continue;
		}
		if (v != SROCE_REQ_SEND)
			return;
		sroce_tx_req_hdrs(&tx, 0, 0xffff, 0xabcd, 0x7700 + tx.idx,
				  &h);
		emit(dir, &h, tx.awrite ? (u8 *)&tx.swap_add :
		     x->local[tx.idx % SQ_SIZE] + tx.off, tx.len);
	}
}

static void resp_run(struct end *x, int dir)
{
	struct sroce_tx_rsp r;

	while (sroce_rq_next(&x->rq, &r)) {
		struct sroce_hdrs h = {};

		if (r.is_ack) {
			sroce_tx_ack_hdrs(&r.ack, 0, 0xffff, &h);
			emit(dir, &h, NULL, 0);
			continue;
		}
		sroce_tx_rsp_hdrs(&r, 0, 0xffff, &h);
		emit(dir, &h, x->mem + r.va, r.len);
	}
}

/* Deliver packets queued towards @x (wire @dir), in order, skipping @drop */
static void deliver(struct end *x, int dir, int out_dir, int drop)
{
	struct sroce_rq_env env = { x, take_rwqe, rkey_ok, do_atomic };
	int i, n = nwire[dir];

	nwire[dir] = 0;
	for (i = 0; i < n; i++) {
		struct sroce_pkt p;
		const u8 *pl;

		if (i == drop)
			continue;
		if (sroce_parse_bth_packet(wire[dir][i].buf, wire[dir][i].len,
					   &p))
			continue;
		pl = wire[dir][i].buf + p.payload_off;
		if (p.info->mask & SROCE_MASK_REQ) {
			struct sroce_rq_act a;

			sroce_rq_rx(&x->rq, &p, &env, &a);
			x->events |= a.events;
			if (a.place == SROCE_PLACE_RWQE)
				memcpy(x->rbuf + a.off, pl, a.len);
			else if (a.place == SROCE_PLACE_MR)
				memcpy(x->mem + a.va, pl, a.len);
			if (a.complete && a.wc_inv && x->inv_fail)
				sroce_rq_fail(&x->rq, p.hdr.bth.psn,
					      SROCE_NAK_INVALID_REQ,
					      SROCE_WC_REM_INV_REQ_ERR, &a);
			if (a.complete) {
				x->recvs++;
				x->recv_len = a.wc_byte_len;
				x->recv_status = a.wc_status;
				x->invs += a.wc_inv;
				if (a.wc_inv)
					x->inv_rkey = a.inv_rkey;
			}
			if (a.ack) {
				struct sroce_hdrs h;

				sroce_tx_ack_hdrs(&a.tx, 0, 0xffff, &h);
				emit(out_dir, &h, NULL, 0);
			}
			resp_run(x, out_dir);
		} else {
			struct sroce_sq_act a, b;

			sroce_comp_rx(&x->sq, &p, &a);
			/* placement last, and only on a QP that did not fail */
			if (a.error) {
				req_run(x, out_dir);
				continue;
			}
			if (a.place && a.awrite) {
				sroce_comp_placed(&x->sq, &a, true, &b);
			} else if (a.place && a.atomic) {
				memcpy(x->local[a.place_idx % SQ_SIZE],
				       &a.atomic_orig, 8);
				sroce_comp_placed(&x->sq, &a, true, &b);
			} else if (a.place) {
				memcpy(x->local[a.place_idx % SQ_SIZE] +
				       a.place_off, pl, a.place_len);
				sroce_comp_placed(&x->sq, &a, true, &b);
			}
			req_run(x, out_dir);
		}
	}
}

static struct end A, B;

static void setup(u32 mtu)
{
	memset(&A, 0, sizeof(A));
	memset(&B, 0, sizeof(B));
	nwire[0] = nwire[1] = 0;
	sroce_sq_init(&A.sq, A.wqe, SQ_SIZE);
	sroce_sq_config(&A.sq, mtu, 4, 7, 7, 14);
	sroce_sq_set_psn(&A.sq, 0xfffff0);	/* across the wrap */
	sroce_rq_init(&B.rq, B.res, 16);
	sroce_rq_config(&B.rq, mtu, 4, SROCE_ACC_REMOTE_WRITE |
			SROCE_ACC_REMOTE_READ | SROCE_ACC_REMOTE_ATOMIC, 12);
	sroce_rq_set_psn(&B.rq, 0xfffff0);
	sroce_rq_start(&B.rq);
	sroce_sq_start(&A.sq);
}

static void post(u8 kind, u32 len, u64 raddr)
{
	struct sroce_wqe *w = &A.wqe[A.sq.fetch % SQ_SIZE];
	u32 i;

	memset(w, 0, sizeof(*w));
	w->kind = kind;
	w->flags = SROCE_WQE_SIGNALED;
	w->length = len;
	w->remote_addr = raddr;
	w->rkey = RKEY;
	for (i = 0; i < len; i++)
		A.local[A.sq.fetch % SQ_SIZE][i] = (u8)(i * 7 + kind);
	sroce_sq_push(&A.sq);
}

/* Until quiet: A's requests to B, B's answers to A; drop packet @drop */
static void pump(int drop)
{
	int rounds;

	req_run(&A, 0);
	for (rounds = 0; rounds < 1000 && (nwire[0] || nwire[1]); rounds++) {
		deliver(&B, 0, 1, drop);
		drop = -1;
		deliver(&A, 1, 0, -1);
	}
}

static void test_lossless(void)
{
	u32 i;

	tap_begin("engine: send, write, read end to end, no loss");
	setup(1024);
	B.rwqes = 1;
	post(SROCE_WR_SEND, 5000, 0);
	post(SROCE_WR_WRITE, 9000, 100);
	for (i = 0; i < 9000; i++)
		B.mem[20000 + i] = (u8)(i ^ 0x5a);
	post(SROCE_WR_READ, 9000, 20000);
	pump(-1);
	CHECK_EQ(A.sq.comp, 3);
	CHECK_EQ(A.sq.una_psn, A.sq.sent_psn);
	CHECK_EQ(B.recvs, 1);
	CHECK_EQ(B.recv_len, 5000);
	CHECK(!memcmp(B.rbuf, A.local[0], 5000));
	CHECK(!memcmp(B.mem + 100, A.local[1], 9000));
	CHECK(!memcmp(A.local[2], B.mem + 20000, 9000));
	CHECK(sroce_sq_check(&A.sq) && sroce_rq_check(&B.rq));
	tap_end();
}

static void test_read_loss(void)
{
	u32 i;

	tap_begin("engine: a lost READ response is re-read from the hole");
	setup(256);
	for (i = 0; i < 4000; i++)
		B.mem[i] = (u8)(i * 13);
	post(SROCE_WR_READ, 4000, 0);
	req_run(&A, 0);
	deliver(&B, 0, 1, -1);
	/* drop the third response */
	deliver(&A, 1, 0, 2);
	CHECK_EQ(A.sq.comp, 0);
	CHECK(A.sq.reread_owed || nwire[0]);
	pump(-1);
	CHECK_EQ(A.sq.comp, 1);
	CHECK(!memcmp(A.local[0], B.mem, 4000));
	tap_end();
}

static void test_long(void)
{
	u32 i;

	tap_begin("engine: messages far larger than the window");
	setup(1024);
	B.rwqes = 1;
	post(SROCE_WR_SEND, 250000, 0);
	post(SROCE_WR_WRITE, 200000, 1000);
	B.rwqes++;
	post(SROCE_WR_WRITE_IMM, 1025, 205000);
	for (i = 0; i < 90000; i++)
		B.mem[i + 210000] = (u8)(i * 3);
	post(SROCE_WR_READ, 90000, 210000);
	pump(-1);
	CHECK_EQ(A.sq.comp, 4);
	CHECK_EQ(A.sq.una_psn, A.sq.sent_psn);
	CHECK_EQ(B.recvs, 2);
	CHECK(!memcmp(B.mem + 205000, A.local[2], 1025));
	CHECK(!memcmp(B.rbuf, A.local[0], 250000));	/* before the imm */
	CHECK(!memcmp(B.mem + 1000, A.local[1], 200000));
	CHECK(!memcmp(A.local[3], B.mem + 210000, 90000));
	tap_end();
}

static void test_read_half_space(void)
{
	struct sroce_rq_env env = { &B, take_rwqe, rkey_ok, do_atomic };
	struct sroce_hdrs h = {};
	struct sroce_rq_act a;
	struct sroce_pkt p;
	u8 buf[64];
	int len;

	tap_begin("engine: a READ spanning half the PSN space is refused");
	setup(256);
	h.bth.opcode = SROCE_OPCODE(SROCE_TRANSPORT_RC, SROCE_OP_READ_REQ);
	h.bth.pkey = 0xffff;
	h.bth.psn = 0xfffff0;
	h.reth.rkey = RKEY;
	h.reth.len = 0x80000000U;	/* 2^23 responses at MTU 256 */
	len = sroce_pkt_len(h.bth.opcode, 0);
	CHECK(len > 0 && sroce_build_hdrs(buf, (u32)len, &h, 0) > 0);
	CHECK(!sroce_parse_bth_packet(buf, (u32)len, &p));
	sroce_rq_rx(&B.rq, &p, &env, &a);
	CHECK(a.ack && a.error);
	CHECK_EQ(a.tx.syndrome, sroce_syndrome_nak(SROCE_NAK_INVALID_REQ));
	CHECK(B.rq.cur < 0);
	tap_end();
}

/* Parse a packet built from @h with @len payload bytes into @p */
static void mkpkt(struct sroce_hdrs *h, u32 len, u8 *buf, struct sroce_pkt *p)
{
	int n = sroce_pkt_len(h->bth.opcode, len);

	h->bth.pkey = 0xffff;
	CHECK(n > 0 && sroce_build_hdrs(buf, (u32)n, h, len) > 0);
	CHECK(!sroce_parse_bth_packet(buf, (u32)n, p));
}

/*
 * A READ re-request runs from the hole to the end of the original
 * request, and a responder answers a duplicate exactly, LAST at its end,
 * even while it is still answering the request.
 */
static void test_reread_range(void)
{
	struct sroce_rq_env env = { &B, take_rwqe, rkey_ok, do_atomic };
	struct sroce_hdrs h = {};
	struct sroce_rq_act ra;
	struct sroce_tx_rsp r;
	struct sroce_pkt p;
	u8 buf[SROCE_MAX_PKT_LEN];
	u32 i, n, first;

	tap_begin("engine: a READ re-request covers the rest of its request, answered exactly");
	setup(256);		/* 8 KiB requests: 4000 bytes is one */
	for (i = 0; i < 4000; i++)
		B.mem[i] = (u8)(i * 13);
	post(SROCE_WR_READ, 4000, 0);
	first = A.sq.next_psn;
	req_run(&A, 0);
	deliver(&B, 0, 1, -1);
	deliver(&A, 1, 0, 2);		/* the third response is lost */
	req_run(&A, 0);
	CHECK_EQ(nwire[0], 1);
	CHECK(!sroce_parse_bth_packet(wire[0][0].buf, wire[0][0].len, &p));
	CHECK_EQ(p.hdr.bth.opcode, SROCE_OP_READ_REQ);
	CHECK_EQ(p.hdr.bth.psn, sroce_psn_add(first, 2));
	CHECK_EQ(p.hdr.reth.va, 512);
	CHECK_EQ(p.hdr.reth.len, 4000 - 512);	/* not just the hole */
	pump(-1);
	CHECK_EQ(A.sq.comp, 1);
	CHECK(!memcmp(A.local[0], B.mem, 4000));

	/* B answers 3 of 16, then a duplicate for [256, 768) comes */
	setup(256);
	post(SROCE_WR_READ, 4000, 0);
	first = A.sq.next_psn;
	req_run(&A, 0);
	CHECK(!sroce_parse_bth_packet(wire[0][0].buf, wire[0][0].len, &p));
	sroce_rq_rx(&B.rq, &p, &env, &ra);
	for (i = 0; i < 3; i++)
		CHECK(sroce_rq_next(&B.rq, &r) && !r.is_ack);
	h.bth.opcode = SROCE_OP_READ_REQ;
	h.bth.psn = sroce_psn_add(first, 1);
	h.bth.ackreq = true;
	h.reth.va = 256;
	h.reth.rkey = RKEY;
	h.reth.len = 512;
	mkpkt(&h, 0, buf, &p);
	sroce_rq_rx(&B.rq, &p, &env, &ra);
	for (n = 0; n < 20 && sroce_rq_next(&B.rq, &r); n++) {
		CHECK(!r.is_ack);
		CHECK_EQ(r.psn, sroce_psn_add(first, 1 + n));
		CHECK_EQ(r.va, 256 + 256 * n);
		CHECK_EQ(r.opcode, n ? SROCE_OP_READ_RESP_LAST :
			 SROCE_OP_READ_RESP_FIRST);
	}
	CHECK_EQ(n, 2);			/* exactly the duplicate's range */
	CHECK(sroce_rq_check(&B.rq));
	tap_end();
}

static void test_forged(void)
{
	struct sroce_rq_env env = { &B, take_rwqe, rkey_ok, do_atomic };
	struct sroce_hdrs h = {};
	struct sroce_sq_act a;
	struct sroce_rq_act ra;
	struct sroce_pkt p;
	u32 comp, una;
	u8 buf[SROCE_MAX_PKT_LEN];

	tap_begin("engine: a forged READ response for a Send's PSN writes nothing");
	setup(1024);
	B.rwqes = 1;
	post(SROCE_WR_SEND, 8000, 0);
	req_run(&A, 0);		/* 8 packets in flight, none ACKed */
	nwire[0] = 0;
	comp = A.sq.comp;
	una = A.sq.una_psn;
	h.bth.opcode = SROCE_OPCODE(SROCE_TRANSPORT_RC,
				    SROCE_OP_READ_RESP_ONLY);
	h.bth.psn = sroce_psn_add(A.wqe[0].first_psn, 3);
	mkpkt(&h, 1000, buf, &p);
	sroce_comp_rx(&A.sq, &p, &a);
	CHECK(!a.place && !a.error);
	CHECK(a.events & BIT(SROCE_EV_GHOST));
	CHECK_EQ(A.sq.comp, comp);
	CHECK_EQ(A.sq.una_psn, una);
	tap_end();

	tap_begin("engine: ACKs beyond what was sent, or stale, complete nothing");
	memset(&h, 0, sizeof(h));
	h.bth.opcode = SROCE_RC_ACK;
	h.aeth.syndrome = sroce_syndrome_ack(SROCE_AETH_CREDIT_INVALID);
	h.bth.psn = A.sq.sent_psn;		/* never sent */
	mkpkt(&h, 0, buf, &p);
	sroce_comp_rx(&A.sq, &p, &a);
	CHECK(a.events & BIT(SROCE_EV_GHOST));
	h.bth.psn = sroce_psn_add(una, -3);	/* before una - 1 */
	mkpkt(&h, 0, buf, &p);
	sroce_comp_rx(&A.sq, &p, &a);
	CHECK(a.events & BIT(SROCE_EV_STALE));
	CHECK_EQ(A.sq.comp, comp);
	tap_end();

	tap_begin("engine: a request larger than the path MTU is dropped");
	memset(&h, 0, sizeof(h));
	h.bth.opcode = SROCE_RC_SEND_ONLY;
	h.bth.psn = B.rq.epsn;
	mkpkt(&h, 2048, buf, &p);	/* path MTU 1024 */
	sroce_rq_rx(&B.rq, &p, &env, &ra);
	CHECK(!ra.place && !ra.ack && !ra.error && !ra.complete);
	CHECK(ra.events & BIT(SROCE_EV_BAD_REQ));
	CHECK_EQ(B.rq.epsn, h.bth.psn);
	tap_end();
}

static void post_atomic(u8 kind, u64 raddr, u64 swap_add, u64 compare)
{
	struct sroce_wqe *w = &A.wqe[A.sq.fetch % SQ_SIZE];

	memset(w, 0, sizeof(*w));
	w->kind = kind;
	w->flags = SROCE_WQE_SIGNALED;
	w->length = 8;
	w->remote_addr = raddr;
	w->rkey = RKEY;
	w->swap_add = swap_add;
	w->compare = compare;
	memset(A.local[A.sq.fetch % SQ_SIZE], 0xee, 8);
	sroce_sq_push(&A.sq);
}

static u64 get64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, 8);
	return v;
}

static void put64(u8 *p, u64 v)
{
	memcpy(p, &v, 8);
}

static void test_atomic(void)
{
	struct sroce_sq_act a;
	struct sroce_pkt pk;
	u32 i;

	tap_begin("engine: compare-and-swap and fetch-and-add, values returned");
	setup(1024);
	put64(B.mem + 64, 1000);
	put64(B.mem + 72, 7);
	post_atomic(SROCE_WR_FETCH_ADD, 64, 5, 0);
	post_atomic(SROCE_WR_FETCH_ADD, 64, (u64)-1, 0);
	post_atomic(SROCE_WR_CMP_SWAP, 72, 99, 7);	/* matches: swapped */
	post_atomic(SROCE_WR_CMP_SWAP, 72, 55, 7);	/* 99 now: kept */
	B.rwqes = 1;
	post(SROCE_WR_SEND, 3000, 0);
	pump(-1);
	CHECK_EQ(A.sq.comp, 5);
	CHECK_EQ(B.atomics, 4);
	CHECK_EQ(get64(A.local[0]), 1000);
	CHECK_EQ(get64(A.local[1]), 1005);
	CHECK_EQ(get64(A.local[2]), 7);
	CHECK_EQ(get64(A.local[3]), 99);
	CHECK_EQ(get64(B.mem + 64), 1004);
	CHECK_EQ(get64(B.mem + 72), 99);
	CHECK(sroce_sq_check(&A.sq) && sroce_rq_check(&B.rq));
	tap_end();

	tap_begin("engine: a lost ATOMIC ACK is replayed, never executed twice");
	setup(1024);
	put64(B.mem + 8, 40);
	post_atomic(SROCE_WR_FETCH_ADD, 8, 2, 0);
	req_run(&A, 0);
	deliver(&B, 0, 1, -1);
	CHECK_EQ(B.atomics, 1);
	deliver(&A, 1, 0, 0);		/* the ATOMIC ACK is lost */
	CHECK_EQ(A.sq.comp, 0);
	sroce_sq_timeout(&A.sq, &a);
	CHECK(a.kick);
	req_run(&A, 0);
	CHECK_EQ(nwire[0], 1);
	for (i = 0; i < 2; i++) {	/* and the resend arrives twice */
		memcpy(&wire[0][1], &wire[0][0], sizeof(wire[0][0]));
		nwire[0] = 2;
		deliver(&B, 0, 1, -1);
	}
	CHECK_EQ(B.atomics, 1);
	CHECK_EQ(get64(B.mem + 8), 42);
	pump(-1);
	CHECK_EQ(A.sq.comp, 1);
	CHECK_EQ(get64(A.local[0]), 40);
	tap_end();

	tap_begin("engine: ATOMIC ACKs are checked against what was asked");
	setup(1024);
	put64(B.mem + 16, 3);
	for (i = 0; i < 4000; i++)
		B.mem[1000 + i] = (u8)i;
	post(SROCE_WR_READ, 4000, 1000);
	post_atomic(SROCE_WR_CMP_SWAP, 16, 4, 3);
	req_run(&A, 0);
	{
		struct sroce_hdrs h = {};
		struct sroce_pkt p;
		u8 buf[64];

		/* an ATOMIC ACK with the READ's PSN, then a READ response
		 * with the atomic's: both refused */
		h.bth.opcode = SROCE_RC_ATOMIC_ACK;
		h.bth.psn = A.wqe[0].first_psn;
		h.aeth.syndrome = sroce_syndrome_ack(SROCE_AETH_CREDIT_INVALID);
		h.atmack.orig = 0x4141;
		mkpkt(&h, 0, buf, &p);
		sroce_comp_rx(&A.sq, &p, &a);
		CHECK(!a.place && (a.events & BIT(SROCE_EV_BAD_RESP)));
		h.bth.opcode = SROCE_OPCODE(SROCE_TRANSPORT_RC,
					    SROCE_OP_READ_RESP_ONLY);
		h.bth.psn = A.wqe[1].first_psn;
		mkpkt(&h, 8, buf, &p);
		sroce_comp_rx(&A.sq, &p, &a);
		CHECK(!a.place && (a.events & BIT(SROCE_EV_BAD_RESP)));
		/* an ATOMIC ACK carrying a NAK syndrome */
		h.bth.opcode = SROCE_RC_ATOMIC_ACK;
		h.aeth.syndrome = sroce_syndrome_nak(SROCE_NAK_REM_ACCESS);
		mkpkt(&h, 0, buf, &p);
		sroce_comp_rx(&A.sq, &p, &a);
		CHECK(!a.place && !a.error);
	}
	CHECK_EQ(A.sq.comp, 0);
	pump(-1);
	CHECK_EQ(A.sq.comp, 2);
	CHECK_EQ(get64(A.local[1]), 3);
	CHECK_EQ(get64(B.mem + 16), 4);
	tap_end();

	tap_begin("engine: a misaligned atomic is NAKed invalid request");
	setup(1024);
	put64(B.mem + 32, 1);
	post_atomic(SROCE_WR_FETCH_ADD, 33, 1, 0);
	pump(-1);
	CHECK_EQ(B.atomics, 0);
	CHECK(B.events & BIT(SROCE_EV_ATOMIC_MISALIGNED));
	CHECK_EQ(A.sq.state, SROCE_SQ_ERROR);
	CHECK_EQ(A.sq.err_status, SROCE_WC_REM_INV_REQ_ERR);
	CHECK_EQ(B.rq.state, SROCE_RQ_ERROR);
	tap_end();

	tap_begin("engine: an atomic without REMOTE_ATOMIC is NAKed remote access");
	setup(1024);
	B.atomic_access = 1;		/* the key does not grant it */
	post_atomic(SROCE_WR_FETCH_ADD, 32, 1, 0);
	pump(-1);
	CHECK_EQ(B.atomics, 0);
	CHECK_EQ(A.sq.err_status, SROCE_WC_REM_ACCESS_ERR);
	setup(1024);
	sroce_rq_config(&B.rq, 1024, 4, SROCE_ACC_REMOTE_WRITE, 12);
	post_atomic(SROCE_WR_CMP_SWAP, 32, 1, 0);	/* nor the QP */
	pump(-1);
	CHECK_EQ(B.atomics, 0);
	CHECK_EQ(A.sq.err_status, SROCE_WC_REM_ACCESS_ERR);
	tap_end();

	tap_begin("engine: a duplicate atomic gets the newest result of its PSN");
	setup(1024);
	put64(B.mem + 8, 100);
	post_atomic(SROCE_WR_FETCH_ADD, 8, 1, 0);	/* at PSN 0xfffff0 */
	pump(-1);
	CHECK_EQ(get64(A.local[0]), 100);
	/* 2^24 PSNs later (set, not sent): the same PSN again */
	sroce_sq_set_psn(&A.sq, 0xfffff0);
	sroce_rq_set_psn(&B.rq, 0xfffff0);
	post_atomic(SROCE_WR_FETCH_ADD, 8, 1, 0);
	req_run(&A, 0);
	deliver(&B, 0, 1, -1);
	CHECK_EQ(get64(B.mem + 8), 102);
	deliver(&A, 1, 0, 0);		/* its ATOMIC ACK is lost */
	sroce_sq_timeout(&A.sq, &a);
	pump(-1);
	CHECK_EQ(A.sq.comp, 2);
	CHECK_EQ(get64(A.local[1]), 101);	/* not the old 100 */
	CHECK_EQ(get64(B.mem + 8), 102);
	tap_end();

	tap_begin("engine: ATOMIC WRITE stores 8 bytes once, answered by an empty READ response");
	setup(1024);
	put64(B.mem + 40, 1);
	post_atomic(SROCE_WR_ATOMIC_WRITE, 40, 0x1122334455667788ULL, 0);
	req_run(&A, 0);
	CHECK_EQ(nwire[0], 1);
	CHECK(!sroce_parse_bth_packet(wire[0][0].buf, wire[0][0].len, &pk));
	CHECK_EQ(pk.hdr.bth.opcode, SROCE_RC_ATOMIC_WRITE);
	CHECK_EQ(pk.hdr.reth.va, 40);
	CHECK_EQ(pk.hdr.reth.len, 8);
	CHECK_EQ(pk.payload_len, 8);
	CHECK(pk.hdr.bth.ackreq);
	deliver(&B, 0, 1, -1);
	CHECK_EQ(B.awrites, 1);
	CHECK_EQ(get64(B.mem + 40), 0x1122334455667788ULL);
	CHECK_EQ(nwire[1], 1);
	CHECK(!sroce_parse_bth_packet(wire[1][0].buf, wire[1][0].len, &pk));
	CHECK_EQ(pk.hdr.bth.opcode, SROCE_RC_READ_RESP_ONLY);
	CHECK_EQ(pk.payload_len, 0);
	deliver(&A, 1, 0, 0);		/* the answer is lost */
	put64(B.mem + 40, 7);		/* a later local store */
	sroce_sq_timeout(&A.sq, &a);
	req_run(&A, 0);
	CHECK_EQ(nwire[0], 1);
	for (i = 0; i < 2; i++) {	/* the resend, twice: replayed only */
		memcpy(&wire[0][1], &wire[0][0], sizeof(wire[0][0]));
		nwire[0] = 2;
		deliver(&B, 0, 1, -1);
	}
	CHECK_EQ(B.awrites, 1);
	CHECK_EQ(get64(B.mem + 40), 7);
	pump(-1);
	CHECK_EQ(A.sq.comp, 1);
	CHECK_EQ(A.sq.state, SROCE_SQ_RTS);
	CHECK(sroce_sq_check(&A.sq) && sroce_rq_check(&B.rq));
	/* misaligned: NAK invalid request; without REMOTE_WRITE: access */
	setup(1024);
	post_atomic(SROCE_WR_ATOMIC_WRITE, 44, 1, 0);
	pump(-1);
	CHECK_EQ(B.awrites, 0);
	CHECK(B.events & BIT(SROCE_EV_ATOMIC_MISALIGNED));
	CHECK_EQ(A.sq.err_status, SROCE_WC_REM_INV_REQ_ERR);
	setup(1024);
	sroce_rq_config(&B.rq, 1024, 4, SROCE_ACC_REMOTE_READ |
			SROCE_ACC_REMOTE_ATOMIC, 12);
	post_atomic(SROCE_WR_ATOMIC_WRITE, 48, 1, 0);
	pump(-1);
	CHECK_EQ(B.awrites, 0);
	CHECK_EQ(A.sq.err_status, SROCE_WC_REM_ACCESS_ERR);
	/* a forged one whose RETH says 4 bytes: refused, counted */
	setup(1024);
	{
		struct sroce_rq_env env = { &B, take_rwqe, rkey_ok, do_atomic };
		struct sroce_hdrs h = {};
		struct sroce_rq_act ra;
		u8 buf[64] = { 0 };

		h.bth.opcode = SROCE_RC_ATOMIC_WRITE;
		h.bth.psn = B.rq.epsn;
		h.reth.va = 40;
		h.reth.rkey = RKEY;
		h.reth.len = 4;
		mkpkt(&h, 8, buf, &pk);
		sroce_rq_rx(&B.rq, &pk, &env, &ra);
		CHECK(ra.events & BIT(SROCE_EV_BAD_REQ));
		CHECK_EQ(B.rq.state, SROCE_RQ_ERROR);
		CHECK_EQ(B.awrites, 0);
	}
	tap_end();

	tap_begin("engine: atomics outstanding are held to max_rd_atomic");
	setup(1024);
	sroce_sq_config(&A.sq, 1024, 2, 7, 7, 14);
	for (i = 0; i < 6; i++)
		post_atomic(SROCE_WR_FETCH_ADD, 0, 1, 0);
	req_run(&A, 0);
	CHECK_EQ(nwire[0], 2);
	CHECK_EQ(sroce_sq_reads_out(&A.sq), 2);
	pump(-1);
	CHECK_EQ(A.sq.comp, 6);
	CHECK_EQ(get64(B.mem), 6);
	for (i = 0; i < 6; i++)
		CHECK_EQ(get64(A.local[i]), i);
	tap_end();
}

static void setup_uc(u32 mtu)
{
	setup(mtu);
	sroce_sq_set_uc(&A.sq);
	sroce_rq_set_uc(&B.rq);
}

static void test_uc(void)
{
	u32 i;

	tap_begin("engine: UC send and writes complete when sent, land intact");
	setup_uc(1024);
	B.rwqes = 2;
	post(SROCE_WR_SEND, 5000, 0);
	post(SROCE_WR_WRITE, 9000, 100);
	post(SROCE_WR_WRITE_IMM, 3000, 20000);
	req_run(&A, 0);
	CHECK_EQ(A.sq.comp, 3);		/* nothing to wait for */
	CHECK_EQ(A.sq.una_psn, A.sq.sent_psn);
	for (i = 0; i < (u32)nwire[0]; i++) {
		struct sroce_pkt p;

		CHECK(!sroce_parse_bth_packet(wire[0][i].buf, wire[0][i].len,
					      &p));
		CHECK_EQ(sroce_opcode_transport(p.hdr.bth.opcode),
			 SROCE_TRANSPORT_UC);
		CHECK(!p.hdr.bth.ackreq);
	}
	deliver(&B, 0, 1, -1);
	CHECK_EQ(nwire[1], 0);		/* no ACK of any kind */
	CHECK_EQ(B.recvs, 2);
	CHECK_EQ(B.recv_len, 3000);
	CHECK(!memcmp(B.rbuf, A.local[0], 5000));
	CHECK(!memcmp(B.mem + 100, A.local[1], 9000));
	CHECK(!memcmp(B.mem + 20000, A.local[2], 3000));
	CHECK(sroce_sq_check(&A.sq) && sroce_rq_check(&B.rq));
	tap_end();

	tap_begin("engine: UC drops a message with a lost packet, whole");
	setup_uc(1024);
	B.rwqes = 1;
	post(SROCE_WR_SEND, 5000, 0);	/* 5 packets, the 3rd lost */
	post(SROCE_WR_SEND, 2000, 0);
	req_run(&A, 0);
	CHECK_EQ(A.sq.comp, 2);
	deliver(&B, 0, 1, 2);
	CHECK_EQ(nwire[1], 0);
	CHECK_EQ(B.recvs, 1);		/* the second, into the same WQE */
	CHECK_EQ(B.recv_len, 2000);
	CHECK(!memcmp(B.rbuf, A.local[1], 2000));
	CHECK_EQ(B.rq.state, SROCE_RQ_ACTIVE);
	tap_end();

	tap_begin("engine: UC drops what RC would NAK, and stays up");
	setup_uc(1024);
	post(SROCE_WR_SEND, 100, 0);	/* no receive WQE: no RNR */
	post(SROCE_WR_WRITE, 100, MEM);	/* out of bounds */
	B.mem[0] = 0x77;
	post(SROCE_WR_WRITE, 100, 0);	/* and this one lands */
	req_run(&A, 0);
	deliver(&B, 0, 1, -1);
	CHECK_EQ(nwire[1], 0);
	CHECK_EQ(B.recvs, 0);
	CHECK(!memcmp(B.mem, A.local[2], 100));
	CHECK_EQ(B.rq.state, SROCE_RQ_ACTIVE);
	{
		struct sroce_rq_env env = { &B, take_rwqe, rkey_ok, do_atomic };
		struct sroce_hdrs h = {};
		struct sroce_rq_act a;
		struct sroce_pkt p;
		u8 buf[SROCE_MAX_PKT_LEN];

		/* an RC packet at a UC queue, and a UC Middle out of the blue */
		h.bth.opcode = SROCE_RC_SEND_ONLY;
		h.bth.psn = B.rq.epsn;
		mkpkt(&h, 10, buf, &p);
		sroce_rq_rx(&B.rq, &p, &env, &a);
		CHECK(!a.place && !a.ack && (a.events & BIT(SROCE_EV_BAD_REQ)));
		h.bth.opcode = SROCE_OPCODE(SROCE_TRANSPORT_UC,
					    SROCE_OP_WRITE_MIDDLE);
		mkpkt(&h, 1024, buf, &p);
		sroce_rq_rx(&B.rq, &p, &env, &a);
		CHECK(!a.place && !a.ack && !a.error);
		CHECK(a.events & BIT(SROCE_EV_UC_DROP));
	}
	tap_end();

	tap_begin("engine: UC send the glue cannot build completes in error");
	setup_uc(1024);
	post(SROCE_WR_SEND, 100, 0);
	{
		struct sroce_sq_act a;
		struct sroce_tx_req tx;

		CHECK_EQ(sroce_req_next(&A.sq, &tx, &a), SROCE_REQ_SEND);
		CHECK_EQ(A.sq.comp, 1);		/* decided: done */
		sroce_sq_fail(&A.sq, tx.idx, SROCE_WC_LOC_PROT_ERR);
		CHECK_EQ(A.sq.comp, 0);		/* taken back */
		CHECK_EQ(A.sq.state, SROCE_SQ_ERROR);
		CHECK_EQ(A.sq.err_idx, 0);
		CHECK_EQ(A.sq.err_status, SROCE_WC_LOC_PROT_ERR);
	}
	tap_end();

	tap_begin("engine: UC receive WQEs are neither lost nor stalled");
	setup_uc(1024);
	B.rwqes = 1;
	{
		struct sroce_rq_env env = { &B, take_rwqe, rkey_ok, do_atomic };
		struct sroce_hdrs h = {};
		struct sroce_rq_act a;
		struct sroce_pkt p;
		u8 buf[SROCE_MAX_PKT_LEN];

		/* a Write with immediate whose MR vanished at its last packet */
		h.bth.opcode = SROCE_OPCODE(SROCE_TRANSPORT_UC,
					    SROCE_OP_WRITE_ONLY_IMM);
		h.bth.psn = B.rq.epsn;
		h.reth.rkey = RKEY;
		h.reth.len = 10;
		mkpkt(&h, 10, buf, &p);
		sroce_rq_rx(&B.rq, &p, &env, &a);
		CHECK(a.complete && a.place == SROCE_PLACE_MR);
		sroce_rq_fail(&B.rq, h.bth.psn, SROCE_NAK_REM_ACCESS,
			      SROCE_WC_SUCCESS, &a);
		CHECK(!a.complete && !a.error);
		CHECK(B.rq.rwqe_held);		/* the WQE it took stays */
		/* the next Send lands in that WQE, taking no other */
		memset(&h, 0, sizeof(h));
		h.bth.opcode = SROCE_OPCODE(SROCE_TRANSPORT_UC,
					    SROCE_OP_SEND_ONLY);
		h.bth.psn = B.rq.epsn;
		mkpkt(&h, 20, buf, &p);
		sroce_rq_rx(&B.rq, &p, &env, &a);
		CHECK(a.complete && a.wc_status == SROCE_WC_SUCCESS);
		CHECK_EQ(B.rwqes, 0);
		/* too long for its WQE: completes in error, QP stays up */
		B.rwqes = 1;
		B.rwqe_len = 10;
		h.bth.psn = B.rq.epsn;
		mkpkt(&h, 20, buf, &p);
		sroce_rq_rx(&B.rq, &p, &env, &a);
		B.rwqe_len = 0;
		CHECK(a.complete && a.wc_status == SROCE_WC_LOC_LEN_ERR);
		CHECK(!a.error && !B.rq.rwqe_held);
		CHECK_EQ(B.rq.state, SROCE_RQ_ACTIVE);
		/* a forged packet far ahead does not stall the connection */
		h.bth.psn = sroce_psn_add(B.rq.epsn, 100000);
		mkpkt(&h, 0, buf, &p);
		B.rwqes = 2;
		sroce_rq_rx(&B.rq, &p, &env, &a);
		h.bth.psn = sroce_psn_add(B.rq.epsn, -100001);	/* genuine */
		mkpkt(&h, 0, buf, &p);
		sroce_rq_rx(&B.rq, &p, &env, &a);
		CHECK(a.complete && a.wc_status == SROCE_WC_SUCCESS);
		/* a duplicate just behind is dropped */
		sroce_rq_rx(&B.rq, &p, &env, &a);
		CHECK(!a.complete && (a.events & BIT(SROCE_EV_DUP_REQ)));
		CHECK(sroce_rq_check(&B.rq));
	}
	tap_end();
}

static void post_local(u8 flags)
{
	struct sroce_wqe *w = &A.wqe[A.sq.fetch % SQ_SIZE];

	memset(w, 0, sizeof(*w));
	w->kind = SROCE_WR_LOCAL;
	w->flags = SROCE_WQE_SIGNALED | flags;
	sroce_sq_push(&A.sq);
}

static void test_local(void)
{
	tap_begin("engine: local WQEs run once, in order; ORDERED after all before");
	setup(1024);
	B.rwqes = 1;
	post(SROCE_WR_SEND, 3000, 0);
	post_local(SROCE_WQE_ORDERED);
	post(SROCE_WR_WRITE, 2000, 100);
	req_run(&A, 0);
	/* the Send is out; the invalidation waits for its ACK */
	CHECK_EQ(nwire[0], 3);
	CHECK_EQ(A.local_runs, 0);
	CHECK_EQ(A.sq.req, 1);
	pump(-1);
	CHECK_EQ(A.local_runs, 1);
	CHECK_EQ(A.local_comp, 1);
	CHECK_EQ(A.sq.comp, 3);
	CHECK(!memcmp(B.mem + 100, A.local[2], 2000));

	/* Not ORDERED: runs at once; a resend from before it passes it */
	setup(1024);
	B.rwqes = 1;
	post(SROCE_WR_SEND, 3000, 0);
	post_local(0);
	post(SROCE_WR_WRITE, 3000, 100);
	post_local(0);
	req_run(&A, 0);
	CHECK_EQ(A.local_runs, 2);
	CHECK_EQ(A.local_comp, 0);
	CHECK_EQ(A.sq.comp, 0);
	CHECK_EQ(nwire[0], 6);
	/* the Send's first packet is lost: everything is sent again */
	deliver(&B, 0, 1, 0);
	pump(-1);
	CHECK_EQ(A.local_runs, 2);
	CHECK_EQ(A.sq.comp, 4);
	CHECK_EQ(B.recvs, 1);
	CHECK(!memcmp(B.rbuf, A.local[0], 3000));
	CHECK(!memcmp(B.mem + 100, A.local[2], 3000));

	/* A local WQE that fails fails the QP with its own status */
	setup(1024);
	A.local_status = SROCE_WC_LOC_QP_OP_ERR;
	post(SROCE_WR_WRITE, 100, 0);
	post_local(0);
	post(SROCE_WR_WRITE, 100, 0);
	req_run(&A, 0);
	CHECK_EQ(nwire[0], 1);
	CHECK_EQ(A.sq.state, SROCE_SQ_ERROR);
	CHECK_EQ(A.sq.err_idx, 1);
	CHECK_EQ(A.sq.err_status, SROCE_WC_LOC_QP_OP_ERR);
	CHECK(sroce_sq_check(&A.sq));
	tap_end();
}

static void test_send_inv(void)
{
	struct pkt last;

	tap_begin("engine: Send with Invalidate: the R_Key on the last packet, once");
	setup(1024);
	B.rwqes = 2;
	post(SROCE_WR_SEND_INV, 3000, 0);
	req_run(&A, 0);
	CHECK_EQ(nwire[0], 3);
	last = wire[0][2];
	pump(-1);
	CHECK_EQ(A.sq.comp, 1);
	CHECK_EQ(B.recvs, 1);
	CHECK_EQ(B.invs, 1);
	CHECK_EQ(B.inv_rkey, 0x7700);
	CHECK(!memcmp(B.rbuf, A.local[0], 3000));
	/* the last packet again: a duplicate, nothing invalidated twice */
	wire[0][0] = last;
	nwire[0] = 1;
	deliver(&B, 0, 1, -1);
	CHECK_EQ(B.invs, 1);
	CHECK_EQ(B.recvs, 1);

	/* the R_Key cannot be invalidated: NAK, both ends fail */
	setup(1024);
	B.rwqes = 1;
	B.inv_fail = true;
	post(SROCE_WR_SEND_INV, 100, 0);
	pump(-1);
	CHECK_EQ(B.recvs, 1);
	CHECK_EQ(B.recv_status, SROCE_WC_REM_INV_REQ_ERR);
	CHECK_EQ(B.rq.state, SROCE_RQ_ERROR);
	CHECK_EQ(A.sq.state, SROCE_SQ_ERROR);
	CHECK_EQ(A.sq.err_status, SROCE_WC_REM_INV_REQ_ERR);
	tap_end();
}

static void test_timeout(void)
{
	u64 t14 = sroce_ack_timeout_ns(14);
	struct sroce_sq_act a;
	static struct pkt rnr;
	int rounds;
	u32 i;

	tap_begin("engine: a timeout resends one packet; its ACK alone reopens the window");
	setup(1024);
	B.rwqes = 1;
	post(SROCE_WR_SEND, 20000, 0);
	req_run(&A, 0);
	CHECK_EQ(nwire[0], 20);
	nwire[0] = 0;			/* all of it lost */
	sroce_sq_timeout(&A.sq, &a);
	CHECK(a.kick && a.timer == SROCE_TIMER_ARM);
	CHECK_EQ(a.timer_ns, t14 << 1);
	req_run(&A, 0);
	CHECK_EQ(nwire[0], 1);		/* the oldest packet, asking an ACK */
	deliver(&B, 0, 1, -1);
	deliver(&A, 1, 0, -1);		/* a loss, not a slow peer */
	CHECK_EQ(A.sq.backoff, 0);
	CHECK_EQ(A.sq.cwnd, A.sq.window);
	CHECK_EQ(nwire[0], 19);		/* the rest goes at once */
	pump(-1);
	CHECK_EQ(A.sq.comp, 1);
	CHECK(!memcmp(B.rbuf, A.local[0], 20000));
	CHECK(sroce_sq_check(&A.sq) && sroce_rq_check(&B.rq));
	tap_end();

	tap_begin("engine: a peer slower than the timer gets one packet again, keeps the longer timer until new data is acknowledged");
	setup(1024);
	B.rwqes = 2;
	post(SROCE_WR_SEND, 20000, 0);
	req_run(&A, 0);
	CHECK_EQ(nwire[0], 20);		/* all still on their way */
	sroce_sq_timeout(&A.sq, &a);
	req_run(&A, 0);
	CHECK_EQ(nwire[0], 21);		/* one resent, not the window */
	deliver(&B, 0, 1, -1);
	deliver(&A, 1, 0, -1);		/* ACKs of what it never resent */
	CHECK_EQ(A.sq.comp, 1);
	CHECK_EQ(A.sq.backoff, 1);
	CHECK(B.events & BIT(SROCE_EV_DUP_REQ));
	/* data first sent after the timeout, acknowledged: the timer comes down */
	post(SROCE_WR_SEND, 7000, 0);
	pump(-1);
	CHECK_EQ(A.sq.comp, 2);
	CHECK_EQ(A.sq.backoff, 0);
	CHECK(!memcmp(B.rbuf, A.local[1], 7000));
	CHECK(sroce_sq_check(&A.sq) && sroce_rq_check(&B.rq));
	tap_end();

	tap_begin("engine: a late peer holding a window gets a few packets again, not the window");
	setup(1024);				/* window 64 */
	B.rwqes = 1;
	post(SROCE_WR_SEND, 65536, 0);
	req_run(&A, 0);
	CHECK_EQ(nwire[0], 64);
	sroce_sq_timeout(&A.sq, &a);
	req_run(&A, 0);
	deliver(&B, 0, 1, -1);			/* it takes all 65 at last */
	{
		int acks = nwire[1], j, resent = 0;
		static struct pkt save[16];

		CHECK(acks <= 16);
		for (j = 0; j < acks && j < 16; j++)
			save[j] = wire[1][j];
		for (j = 0; j < acks && j < 16; j++) {
			wire[1][0] = save[j];	/* one ACK at a time */
			nwire[1] = 1;
			deliver(&A, 1, 0, -1);
		}
		/* a few per ACK, not what the ACKs had yet to reach (63) */
		resent = nwire[0];
		CHECK(resent < 20);
	}
	CHECK_EQ(A.sq.comp, 1);
	CHECK_EQ(A.sq.backoff, 1);
	pump(-1);
	CHECK(!memcmp(B.rbuf, A.local[0], 65536));
	CHECK(sroce_sq_check(&A.sq) && sroce_rq_check(&B.rq));
	tap_end();

	tap_begin("engine: an RNR NAK behind an unanswered atomic, after a timeout: still live");
	setup(1024);
	post_atomic(SROCE_WR_FETCH_ADD, 64, 1, 0);
	post(SROCE_WR_SEND, 500, 0);
	req_run(&A, 0);
	deliver(&B, 0, 1, -1);		/* no receive WQE: RNR NAK */
	CHECK_EQ(nwire[1], 2);
	rnr = wire[1][1];
	nwire[1] = 0;			/* ATOMIC ACK lost, the NAK late */
	B.rwqes = 1;
	sroce_sq_timeout(&A.sq, &a);
	req_run(&A, 0);
	nwire[0] = 0;			/* the atomic sent again: lost */
	wire[1][0] = rnr;
	nwire[1] = 1;
	deliver(&A, 1, 0, -1);
	CHECK(A.sq.rnr_wait);
	sroce_sq_rnr_done(&A.sq, &a);
	req_run(&A, 0);
	/* the Send goes, or at least a timer runs: never stuck */
	CHECK(nwire[0] || a.timer == SROCE_TIMER_ARM);
	for (rounds = 0; rounds < 8 && A.sq.comp != 2; rounds++) {
		pump(-1);
		if (A.sq.comp != 2)
			sroce_sq_timeout(&A.sq, &a);
	}
	CHECK_EQ(A.sq.comp, 2);
	CHECK_EQ(B.atomics, 1);
	CHECK_EQ(get64(A.local[0]), 0);
	CHECK(sroce_sq_check(&A.sq) && sroce_rq_check(&B.rq));
	tap_end();

	tap_begin("engine: READ responses after a timeout do not each ask for the rest again");
	setup(1024);
	B.rwqes = 2;
	for (i = 0; i < 70000; i++)
		B.mem[100000 + i] = (u8)(i * 3);
	post(SROCE_WR_SEND, 3000, 0);
	post(SROCE_WR_READ, 70000, 100000);
	post(SROCE_WR_FETCH_ADD, 8, 64);
	post(SROCE_WR_SEND, 5000, 0);
	req_run(&A, 0);
	nwire[0] = 0;				/* all of it lost */
	sroce_sq_timeout(&A.sq, &a);
	for (rounds = 0; rounds < 100 && A.sq.comp != 4; rounds++) {
		req_run(&A, 0);
		/* at most the window's requests, never one per response */
		CHECK(nwire[0] <= 16);
		if (!nwire[0])
			break;
		deliver(&B, 0, 1, -1);
		deliver(&A, 1, 0, -1);
	}
	CHECK_EQ(A.sq.comp, 4);
	CHECK(!memcmp(A.local[1], B.mem + 100000, 70000));
	CHECK(sroce_sq_check(&A.sq) && sroce_rq_check(&B.rq));
	tap_end();
}

static void test_idle(void)
{
	struct sroce_wqe wqe[4];
	struct sroce_sq_eng e;
	struct sroce_rq_eng r;
	struct sroce_rd_res res[2];
	struct sroce_sq_act a;
	struct sroce_hdrs h = {};
	struct sroce_pkt p;
	u8 buf[64];

	tap_begin("engine: a new or reset QP holds its invariants, ignores packets");
	sroce_sq_init(&e, wqe, 4);
	sroce_rq_init(&r, res, 2);
	CHECK(sroce_sq_check(&e) && sroce_rq_check(&r));
	h.bth.opcode = SROCE_RC_ACK;
	h.bth.psn = 0;
	mkpkt(&h, 0, buf, &p);
	sroce_comp_rx(&e, &p, &a);
	CHECK(!a.place && !a.error && !a.kick && !a.events);
	sroce_sq_reset(&e);
	CHECK(sroce_sq_check(&e));
	tap_end();
}

void test_engine(void)
{
	test_idle();
	test_forged();
	test_read_half_space();
	test_long();
	test_lossless();
	test_read_loss();
	test_reread_range();
	test_timeout();
	test_atomic();
	test_uc();
	test_local();
	test_send_inv();
}
