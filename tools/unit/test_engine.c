// SPDX-License-Identifier: GPL-2.0-only
/*
 * RC engine tests: a requester and a responder from the core, driven by
 * the host glue the simulator uses too (tools/host/glue.c), wired back
 * to back through a wire the tests work by hand: the packets one side
 * sends wait in a queue until a test delivers them, in order, drops one,
 * or replays and reorders them.  Small, exact scenarios; tools/sim/ runs
 * the random, lossy ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sroce/rc_engine.h"
#include "sroce/opcode.h"
#include "../host/glue.h"
#include "tap.h"
#include "tests.h"

#define SQ_SIZE		16
#define MEM		(300 * 1024)
#define RKEY		0x1234
#define WIRE_MAX	1024		/* packets queued per direction */
#define NRWQES		BIT(20)		/* receive WQEs a test may post */

/* An endpoint: the glue's side, its buffers, what the tests look at */
struct end {
	struct hg_side g;
	struct sroce_wqe wqe[SQ_SIZE];
	u8 local[SQ_SIZE][MEM];		/* each WQE's local buffer */
	u8 mem[MEM];			/* remote-accessible memory: one MR */
	u8 rbuf[MEM];			/* every receive WQE's buffer */
	int out;			/* the wire it sends on */
	u32 recv_len;
	int recvs;
	u32 rwqe_len;			/* receive WQE length, 0: MEM */
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

static struct pkt wire[2][WIRE_MAX];	/* [to B, to A] */
static int nwire[2];
static bool glue_failed;		/* a check of the glue failed */

static struct end *end_of(struct hg_side *g)
{
	return (struct end *)((char *)g - offsetof(struct end, g));
}

/* ops->xmit: the packet waits on the wire until a test moves it */
static void t_xmit(struct hg_side *g, u8 *buf, u32 len)
{
	struct end *x = end_of(g);
	struct pkt *p;

	if (CHECK(nwire[x->out] < WIRE_MAX && len <= sizeof(p->buf))) {
		p = &wire[x->out][nwire[x->out]++];
		memcpy(p->buf, buf, len);
		p->len = len;
	}
	free(buf);
}

static void t_wqe(struct hg_side *g, u32 i, struct hg_wqe *out)
{
	struct end *x = end_of(g);
	u32 idx = i + g->sq_base;

	out->buf = x->local[idx % SQ_SIZE];
	out->imm = 0xabcd;
	out->inv_rkey = 0x7700 + idx;
}

static u8 *t_rwqe(struct hg_side *g, u32 i, u32 *len)
{
	struct end *x = end_of(g);

	(void)i;
	*len = x->rwqe_len ? x->rwqe_len : MEM;
	return x->rbuf;
}

/* ops->fail: what the glue refused fails the test in progress */
static __attribute__((format(printf, 2, 0)))
void t_fail(struct hg_side *g, const char *fmt, va_list ap)
{
	char why[512];

	vsnprintf(why, sizeof(why), fmt, ap);
	*g->failed = true;
	tap_check(false, why, __FILE__, __LINE__);
}

static bool t_local(struct hg_side *g, u32 i, u8 *status)
{
	struct end *x = end_of(g);

	(void)i;
	x->local_runs++;
	x->local_comp = g->sq.comp;
	*status = x->local_status;
	return true;
}

static void t_rq_comp(struct hg_side *g, u32 i, const struct sroce_pkt *pkt,
		      const struct sroce_rq_act *a)
{
	struct end *x = end_of(g);

	(void)i;
	(void)pkt;
	x->recvs++;
	x->recv_len = a->wc_byte_len;
	x->recv_status = a->wc_status;
	x->invs += a->wc_inv;
	if (a->wc_inv)
		x->inv_rkey = a->inv_rkey;
}

static bool t_invalidate(struct hg_side *g, u32 rkey)
{
	(void)rkey;
	return !end_of(g)->inv_fail;
}

/* No timers: the tests call sroce_sq_timeout() when they mean it */
static const struct hg_ops test_ops = {
	.xmit = t_xmit,
	.wqe = t_wqe,
	.rwqe = t_rwqe,
	.fail = t_fail,
	.local = t_local,
	.rq_comp = t_rq_comp,
	.invalidate = t_invalidate,
};

static void end_init(struct end *x, char name, u32 mtu, u8 transport)
{
	const struct hg_cfg cfg = {
		.mtu = mtu, .sq_size = SQ_SIZE, .max_rd = 4, .peer_max_rd = 4,
		.retry_cnt = 7, .rnr_retry = 7, .timeout = 14,
		.min_rnr_timer = 12,
		.psn = 0xfffff0, .peer_psn = 0xfffff0,	/* across the wrap */
		.access = SROCE_ACC_REMOTE_WRITE | SROCE_ACC_REMOTE_READ |
			  SROCE_ACC_REMOTE_ATOMIC,
		.transport = transport,
	};

	memset(x, 0, sizeof(*x));
	x->g.ops = &test_ops;
	x->g.failed = &glue_failed;
	x->g.name = name;
	x->g.qpn = 0x100 + (u32)(name - 'A');
	x->g.peer_qpn = 0x100 + (u32)('B' - name);
	x->g.mem = x->mem;
	x->g.mr[0].len = MEM;
	x->g.mr[0].rkey = RKEY;
	x->g.mr[0].access = cfg.access;
	x->g.nmr = 1;
	x->g.ring = x->wqe;
	x->g.nrwqes = NRWQES;
	x->out = name - 'A';
	hg_start(&x->g, &cfg);
}

/* Run the requester of @x until it has nothing more to send */
static void req_run(struct end *x)
{
	hg_kick(&x->g);
}

/* Deliver the packets queued towards @x, in order, dropping the @drop'th */
static void deliver(struct end *x, int drop)
{
	int in = !x->out, i, n = nwire[in];

	nwire[in] = 0;
	for (i = 0; i < n; i++) {
		struct sroce_pkt p;

		if (i == drop)
			continue;
		if (hg_parse(&x->g, wire[in][i].buf, wire[in][i].len, &p))
			continue;
		hg_rx(&x->g, &p, wire[in][i].buf + p.payload_off);
	}
}

/* Receive WQEs @x has posted and the engine has not taken */
static u32 recv_left(const struct end *x)
{
	return x->g.rposted - x->g.rtaken;
}

/* Exactly @n receive WQEs waiting at @x */
static void recv_set(struct end *x, u32 n)
{
	x->g.rposted = x->g.rtaken + n;
}

static u64 cnt(const struct end *x, enum hg_count c)
{
	return x->g.cnt[c];
}

/* Did @x's engines report @ev on a packet the glue carried out */
static bool seen(const struct end *x, enum sroce_eng_event ev)
{
	return cnt(x, HG_CNT_EV_BASE + ev) != 0;
}

static struct end A, B;

static void setup_t(u32 mtu, u8 transport)
{
	glue_failed = false;
	nwire[0] = nwire[1] = 0;
	end_init(&A, 'A', mtu, transport);
	end_init(&B, 'B', mtu, transport);
}

static void setup(u32 mtu)
{
	setup_t(mtu, SROCE_TRANSPORT_RC);
}

static void post(u8 kind, u32 len, u64 raddr)
{
	struct sroce_wqe *w = &A.wqe[A.g.sq.fetch % SQ_SIZE];
	u32 i;

	memset(w, 0, sizeof(*w));
	w->kind = kind;
	w->flags = SROCE_WQE_SIGNALED;
	w->length = len;
	w->remote_addr = raddr;
	w->rkey = RKEY;
	for (i = 0; i < len; i++)
		A.local[A.g.sq.fetch % SQ_SIZE][i] = (u8)(i * 7 + kind);
	sroce_sq_push(&A.g.sq);
}

/* Until quiet: A's requests to B, B's answers to A; drop packet @drop */
static void pump(int drop)
{
	int rounds;

	req_run(&A);
	for (rounds = 0; rounds < 1000 && (nwire[0] || nwire[1]); rounds++) {
		deliver(&B, drop);
		drop = -1;
		deliver(&A, -1);
	}
}

static void test_lossless(void)
{
	u32 i;

	tap_begin("engine: send, write, read end to end, no loss");
	setup(1024);
	recv_set(&B, 1);
	post(SROCE_WR_SEND, 5000, 0);
	post(SROCE_WR_WRITE, 9000, 100);
	for (i = 0; i < 9000; i++)
		B.mem[20000 + i] = (u8)(i ^ 0x5a);
	post(SROCE_WR_READ, 9000, 20000);
	pump(-1);
	CHECK_EQ(A.g.sq.comp, 3);
	CHECK_EQ(A.g.sq.una_psn, A.g.sq.sent_psn);
	CHECK_EQ(B.recvs, 1);
	CHECK_EQ(B.recv_len, 5000);
	CHECK(!memcmp(B.rbuf, A.local[0], 5000));
	CHECK(!memcmp(B.mem + 100, A.local[1], 9000));
	CHECK(!memcmp(A.local[2], B.mem + 20000, 9000));
	CHECK(sroce_sq_check(&A.g.sq) && sroce_rq_check(&B.g.rq));
	tap_end();
}

/*
 * One packet lost from a long Write, on a wire that keeps order: the
 * responder NAKs the gap once and the requester goes back to it, once.
 * What it resends is what followed the lost packet, plus at most the
 * one packet of a tail probe: the partial ACKs of the resent window are
 * progress, and must not send it again.
 */
static void test_one_loss(void)
{
	u32 i, first;

	tap_begin("engine: one loss, one go-back: resends bounded by the window");
	setup(1024);
	post(SROCE_WR_WRITE, 200 * 1024, 0);
	req_run(&A);
	first = (u32)nwire[0];
	CHECK(first > 8);
	/* lose the third; the rest arrive and are dropped out of sequence */
	deliver(&B, 2);
	for (i = 0; i < 1000 && (nwire[0] || nwire[1]); i++) {
		deliver(&A, -1);
		deliver(&B, -1);
	}
	CHECK_EQ(A.g.sq.comp, 1);
	CHECK(!memcmp(B.mem, A.local[0], 200 * 1024));
	CHECK_EQ(cnt(&B, HG_CNT_EV_BASE + SROCE_EV_SEQ_NAK_SENT), 1);
	CHECK(cnt(&A, HG_CNT_RETRANSMITS) <= first - 2 + 1);
	tap_end();
}

/*
 * The responder drops in silence what comes after a gap it NAKed. A
 * resent packet that overtakes the resent one it waits for is lost so;
 * at the tail nothing would tell but the timer: the requester probes
 * with its last packet once the NAKed PSN is answered.
 */
static void test_tail_probe(void)
{
	struct pkt tmp;

	tap_begin("engine: a resend overtaken at the tail is probed, not timed out");
	setup(1024);
	post(SROCE_WR_WRITE, 100, 0);
	post(SROCE_WR_WRITE, 100, 200);
	post(SROCE_WR_WRITE, 100, 400);
	req_run(&A);
	CHECK_EQ(nwire[0], 3);
	deliver(&B, 1);			/* the second lost: NAK at the third */
	deliver(&A, -1);		/* ACK of the first, the NAK */
	CHECK_EQ(A.g.sq.comp, 1);
	CHECK_EQ(nwire[0], 2);		/* the second and third again */
	tmp = wire[0][0];		/* ... in the wrong order */
	wire[0][0] = wire[0][1];
	wire[0][1] = tmp;
	deliver(&B, -1);		/* third dropped unsaid, second taken */
	deliver(&A, -1);		/* its ACK: the probe goes */
	CHECK_EQ(A.g.sq.comp, 2);
	CHECK_EQ(nwire[0], 1);
	deliver(&B, -1);
	deliver(&A, -1);
	CHECK_EQ(A.g.sq.comp, 3);
	CHECK_EQ(cnt(&A, HG_CNT_EV_BASE + SROCE_EV_TIMEOUT), 0);
	CHECK(!memcmp(B.mem + 400, A.local[2], 100));
	tap_end();
}

/* The tail loss probe's cases: they start at 1 s, the round trip 1 ms */
#define TLP_MS	1000000ULL
#define TLP_T0	(1000ULL * TLP_MS)

/* A fresh pair whose requester timed one Write's round trip: 1 ms */
static void setup_rtt(void)
{
	setup(1024);
	sroce_sq_clock(&A.g.sq, TLP_T0);
	post(SROCE_WR_WRITE, 1024, 0);
	req_run(&A);
	deliver(&B, -1);
	sroce_sq_clock(&A.g.sq, TLP_T0 + TLP_MS);
	deliver(&A, -1);
}

/*
 * A fresh pair that sent a one-packet Write and a four-packet one at
 * once, the last @lost packets lost; the first Write's ACK (copied to
 * @ack if given) came 1 ms later, and a tail loss probe is armed.
 */
static void setup_tail_lost(u32 lost, struct pkt *ack)
{
	setup(1024);
	sroce_sq_clock(&A.g.sq, TLP_T0);
	post(SROCE_WR_WRITE, 1024, 0);
	post(SROCE_WR_WRITE, 4096, 4096);
	req_run(&A);
	CHECK_EQ(nwire[0], 5);
	nwire[0] = 5 - lost;			/* the tail lost */
	deliver(&B, -1);
	if (ack)
		*ack = wire[1][0];		/* the first Write's ACK */
	sroce_sq_clock(&A.g.sq, TLP_T0 + TLP_MS);
	deliver(&A, -1);
	CHECK_EQ(A.g.sq.comp, 1);
	CHECK(A.g.sq.rtt_valid);
	CHECK_EQ(A.g.sq.pto_armed, SROCE_PTO_TAIL);
}

/*
 * The last packets of a flight lost: no later packet makes the responder
 * NAK, and the QP's timeout (67 ms) is far beyond the round trip (1 ms).
 * The timer is first a tail loss probe, at twice the round trip: the last
 * packet again, no retry spent, no window cut; the responder ACKs it
 * (only it was lost) or NAKs the gap before it.
 */
static void test_tail_loss_probe(void)
{
	static struct pkt dup_ack;
	struct sroce_sq_act a;
	u32 lost, cwnd;

	for (lost = 1; lost <= 2; lost++) {
		tap_begin(lost == 1 ?
			  "engine: the last packet lost: a tail loss probe at twice the round trip, no timeout" :
			  "engine: two last packets lost: the tail loss probe draws a NAK, no timeout");
		setup_tail_lost(lost, NULL);
		cwnd = A.g.sq.cwnd;
		sroce_sq_clock(&A.g.sq, TLP_T0 + 4 * TLP_MS);
		sroce_sq_timeout(&A.g.sq, &a);
		CHECK(a.kick && !(a.events & BIT(SROCE_EV_TIMEOUT)));
		CHECK_EQ(a.timer, SROCE_TIMER_ARM);
		CHECK_EQ(a.timer_ns, sroce_ack_timeout_ns(14));	/* then the RTO */
		CHECK_EQ(A.g.sq.retries_left, A.g.sq.retry_cnt);
		CHECK_EQ(A.g.sq.cwnd, cwnd);
		req_run(&A);
		CHECK_EQ(nwire[0], 1);		/* the last packet, once */
		pump(-1);
		CHECK_EQ(A.g.sq.comp, 2);
		CHECK(!memcmp(B.mem + 4096, A.local[1], 4096));
		CHECK_EQ(cnt(&A, HG_CNT_EV_BASE + SROCE_EV_TIMEOUT), 0);
		CHECK_EQ(cnt(&B, HG_CNT_EV_BASE + SROCE_EV_SEQ_NAK_SENT),
			 lost - 1);
		CHECK(sroce_sq_check(&A.g.sq) && sroce_rq_check(&B.g.rq));
		tap_end();
	}

	tap_begin("engine: a probe unanswered: the next expiry is the timeout");
	setup_rtt();
	post(SROCE_WR_WRITE, 2048, 0);
	req_run(&A);
	nwire[0] = 0;				/* both lost */
	sroce_sq_timeout(&A.g.sq, &a);		/* the probe */
	CHECK(!(a.events & BIT(SROCE_EV_TIMEOUT)));
	req_run(&A);
	CHECK_EQ(nwire[0], 1);
	nwire[0] = 0;				/* lost too */
	sroce_sq_timeout(&A.g.sq, &a);
	CHECK(a.events & BIT(SROCE_EV_TIMEOUT));
	CHECK_EQ(A.g.sq.retries_left, A.g.sq.retry_cnt - 1);
	pump(-1);
	CHECK_EQ(A.g.sq.comp, 2);
	tap_end();

	tap_begin("engine: a duplicate ACK does not bring the probe back; a cut window does not stop it");
	setup_tail_lost(1, &dup_ack);
	A.g.sq.cwnd = 2;			/* as a CNP's cut might leave it */
	sroce_sq_timeout(&A.g.sq, &a);		/* the probe */
	CHECK(!(a.events & BIT(SROCE_EV_TIMEOUT)));
	req_run(&A);
	CHECK_EQ(nwire[0], 1);			/* sent past cwnd */
	nwire[0] = 0;				/* and lost */
	wire[1][0] = dup_ack;			/* an old ACK again */
	nwire[1] = 1;
	deliver(&A, -1);
	CHECK_EQ(A.g.sq.pto_armed, 0);
	CHECK(!A.g.sq.tlp_ok);
	sroce_sq_timeout(&A.g.sq, &a);
	CHECK(a.events & BIT(SROCE_EV_TIMEOUT));
	pump(-1);
	CHECK_EQ(A.g.sq.comp, 2);
	CHECK(!memcmp(B.mem + 4096, A.local[1], 4096));
	CHECK(sroce_sq_check(&A.g.sq) && sroce_rq_check(&B.g.rq));
	tap_end();

	tap_begin("engine: a READ at the tail is not probed: its responses may pause");
	setup_rtt();
	memset(B.mem + 8192, 0x6b, 4096);
	post(SROCE_WR_READ, 4096, 8192);
	req_run(&A);
	deliver(&B, -1);
	CHECK_EQ(nwire[1], 4);			/* four responses */
	nwire[1] = 2;				/* the last two lost */
	deliver(&A, -1);
	CHECK_EQ(A.g.sq.pto_armed, 0);		/* the timeout runs */
	sroce_sq_clock(&A.g.sq, TLP_T0 + 100 * TLP_MS);
	sroce_sq_timeout(&A.g.sq, &a);
	CHECK(a.events & BIT(SROCE_EV_TIMEOUT));
	pump(-1);
	CHECK_EQ(A.g.sq.comp, 2);
	CHECK(!memcmp(A.local[1], B.mem + 8192, 4096));
	CHECK(sroce_sq_check(&A.g.sq) && sroce_rq_check(&B.g.rq));
	tap_end();
}

/*
 * The retransmit timer learns a peer slower than the QP's timeout: one
 * packet timed per round trip, none that was sent again (Karn), the
 * period never below the QP's timeout.
 */
static void test_rtt(void)
{
	u64 base = sroce_ack_timeout_ns(14);	/* 67 ms */
	u32 i;

	tap_begin("engine: the timer learns the round trip, never below the QP's timeout");
	setup(1024);
	CHECK_EQ(sroce_sq_timer_ns(&A.g.sq), base);
	for (i = 0; i < 8; i++) {
		sroce_sq_clock(&A.g.sq, (u64)i * 1000000000ULL);
		post(SROCE_WR_WRITE, 100, 0);
		req_run(&A);
		deliver(&B, -1);
		/* the answer comes 300 ms later */
		sroce_sq_clock(&A.g.sq, (u64)i * 1000000000ULL + 300000000ULL);
		deliver(&A, -1);
	}
	CHECK_EQ(A.g.sq.comp, 8);
	CHECK(A.g.sq.rtt_valid);
	CHECK_EQ(A.g.sq.srtt, 300000000ULL);
	CHECK(sroce_sq_timer_ns(&A.g.sq) > 300000000ULL);
	CHECK(sroce_sq_timer_ns(&A.g.sq) <= SROCE_RTO_MAX_NS);
	/* a fast peer: the QP's timeout again */
	for (i = 0; i < 40; i++) {
		sroce_sq_clock(&A.g.sq, 10000000000ULL + (u64)i * 1000000ULL);
		post(SROCE_WR_WRITE, 100, 0);
		req_run(&A);
		deliver(&B, -1);
		deliver(&A, -1);
	}
	CHECK_EQ(sroce_sq_timer_ns(&A.g.sq), base);
	/* Karn: a packet sent again gives no sample */
	post(SROCE_WR_WRITE, 100, 0);
	req_run(&A);
	CHECK(A.g.sq.rtt_timing);
	nwire[0] = 0;				/* lost */
	{
		struct sroce_sq_act act;

		sroce_sq_timeout(&A.g.sq, &act);
		CHECK(!A.g.sq.rtt_timing);
	}
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
	req_run(&A);
	deliver(&B, -1);
	/* drop the third response */
	deliver(&A, 2);
	CHECK_EQ(A.g.sq.comp, 0);
	CHECK(A.g.sq.reread_owed || nwire[0]);
	pump(-1);
	CHECK_EQ(A.g.sq.comp, 1);
	CHECK(!memcmp(A.local[0], B.mem, 4000));
	tap_end();
}

static void test_long(void)
{
	u32 i;

	tap_begin("engine: messages far larger than the window");
	setup(1024);
	recv_set(&B, 1);
	post(SROCE_WR_SEND, 250000, 0);
	post(SROCE_WR_WRITE, 200000, 1000);
	recv_set(&B, recv_left(&B) + 1);
	post(SROCE_WR_WRITE_IMM, 1025, 205000);
	for (i = 0; i < 90000; i++)
		B.mem[i + 210000] = (u8)(i * 3);
	post(SROCE_WR_READ, 90000, 210000);
	pump(-1);
	CHECK_EQ(A.g.sq.comp, 4);
	CHECK_EQ(A.g.sq.una_psn, A.g.sq.sent_psn);
	CHECK_EQ(B.recvs, 2);
	CHECK(!memcmp(B.mem + 205000, A.local[2], 1025));
	CHECK(!memcmp(B.rbuf, A.local[0], 250000));	/* before the imm */
	CHECK(!memcmp(B.mem + 1000, A.local[1], 200000));
	CHECK(!memcmp(A.local[3], B.mem + 210000, 90000));
	tap_end();
}

static void test_read_half_space(void)
{
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
	hg_rq_rx(&B.g, &p, &a);
	CHECK(a.ack && a.error);
	CHECK_EQ(a.tx.syndrome, sroce_syndrome_nak(SROCE_NAK_INVALID_REQ));
	CHECK(B.g.rq.cur < 0);
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
	first = A.g.sq.next_psn;
	req_run(&A);
	deliver(&B, -1);
	deliver(&A, 2);		/* the third response is lost */
	req_run(&A);
	CHECK_EQ(nwire[0], 1);
	CHECK(!sroce_parse_bth_packet(wire[0][0].buf, wire[0][0].len, &p));
	CHECK_EQ(p.hdr.bth.opcode, SROCE_OP_READ_REQ);
	CHECK_EQ(p.hdr.bth.psn, sroce_psn_add(first, 2));
	CHECK_EQ(p.hdr.reth.va, 512);
	CHECK_EQ(p.hdr.reth.len, 4000 - 512);	/* not just the hole */
	pump(-1);
	CHECK_EQ(A.g.sq.comp, 1);
	CHECK(!memcmp(A.local[0], B.mem, 4000));

	/* B answers 3 of 16, then a duplicate for [256, 768) comes */
	setup(256);
	post(SROCE_WR_READ, 4000, 0);
	first = A.g.sq.next_psn;
	req_run(&A);
	CHECK(!sroce_parse_bth_packet(wire[0][0].buf, wire[0][0].len, &p));
	hg_rq_rx(&B.g, &p, &ra);
	for (i = 0; i < 3; i++)
		CHECK(sroce_rq_next(&B.g.rq, &r) && !r.is_ack);
	h.bth.opcode = SROCE_OP_READ_REQ;
	h.bth.psn = sroce_psn_add(first, 1);
	h.bth.ackreq = true;
	h.reth.va = 256;
	h.reth.rkey = RKEY;
	h.reth.len = 512;
	mkpkt(&h, 0, buf, &p);
	hg_rq_rx(&B.g, &p, &ra);
	for (n = 0; n < 20 && sroce_rq_next(&B.g.rq, &r); n++) {
		CHECK(!r.is_ack);
		CHECK_EQ(r.psn, sroce_psn_add(first, 1 + n));
		CHECK_EQ(r.va, 256 + 256 * n);
		CHECK_EQ(r.opcode, n ? SROCE_OP_READ_RESP_LAST :
			 SROCE_OP_READ_RESP_FIRST);
	}
	CHECK_EQ(n, 2);			/* exactly the duplicate's range */
	CHECK(sroce_rq_check(&B.g.rq));
	tap_end();
}

static void test_forged(void)
{
	struct sroce_hdrs h = {};
	struct sroce_sq_act a;
	struct sroce_rq_act ra;
	struct sroce_pkt p;
	u32 comp, una;
	u8 buf[SROCE_MAX_PKT_LEN];

	tap_begin("engine: a forged READ response for a Send's PSN writes nothing");
	setup(1024);
	recv_set(&B, 1);
	post(SROCE_WR_SEND, 8000, 0);
	req_run(&A);		/* 8 packets in flight, none ACKed */
	nwire[0] = 0;
	comp = A.g.sq.comp;
	una = A.g.sq.una_psn;
	h.bth.opcode = SROCE_OPCODE(SROCE_TRANSPORT_RC,
				    SROCE_OP_READ_RESP_ONLY);
	h.bth.psn = sroce_psn_add(A.wqe[0].first_psn, 3);
	mkpkt(&h, 1000, buf, &p);
	sroce_comp_rx(&A.g.sq, &p, &a);
	CHECK(!a.place && !a.error);
	CHECK(a.events & BIT(SROCE_EV_GHOST));
	CHECK_EQ(A.g.sq.comp, comp);
	CHECK_EQ(A.g.sq.una_psn, una);
	tap_end();

	tap_begin("engine: ACKs beyond what was sent, or stale, complete nothing");
	memset(&h, 0, sizeof(h));
	h.bth.opcode = SROCE_RC_ACK;
	h.aeth.syndrome = sroce_syndrome_ack(SROCE_AETH_CREDIT_INVALID);
	h.bth.psn = A.g.sq.sent_psn;		/* never sent */
	mkpkt(&h, 0, buf, &p);
	sroce_comp_rx(&A.g.sq, &p, &a);
	CHECK(a.events & BIT(SROCE_EV_GHOST));
	h.bth.psn = sroce_psn_add(una, -3);	/* before una - 1 */
	mkpkt(&h, 0, buf, &p);
	sroce_comp_rx(&A.g.sq, &p, &a);
	CHECK(a.events & BIT(SROCE_EV_STALE));
	CHECK_EQ(A.g.sq.comp, comp);
	tap_end();

	tap_begin("engine: a request larger than the path MTU is dropped");
	memset(&h, 0, sizeof(h));
	h.bth.opcode = SROCE_RC_SEND_ONLY;
	h.bth.psn = B.g.rq.epsn;
	mkpkt(&h, 2048, buf, &p);	/* path MTU 1024 */
	hg_rq_rx(&B.g, &p, &ra);
	CHECK(!ra.place && !ra.ack && !ra.error && !ra.complete);
	CHECK(ra.events & BIT(SROCE_EV_BAD_REQ));
	CHECK_EQ(B.g.rq.epsn, h.bth.psn);
	tap_end();
}

static void post_atomic(u8 kind, u64 raddr, u64 swap_add, u64 compare)
{
	struct sroce_wqe *w = &A.wqe[A.g.sq.fetch % SQ_SIZE];

	memset(w, 0, sizeof(*w));
	w->kind = kind;
	w->flags = SROCE_WQE_SIGNALED;
	w->length = 8;
	w->remote_addr = raddr;
	w->rkey = RKEY;
	w->swap_add = swap_add;
	w->compare = compare;
	memset(A.local[A.g.sq.fetch % SQ_SIZE], 0xee, 8);
	sroce_sq_push(&A.g.sq);
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
	recv_set(&B, 1);
	post(SROCE_WR_SEND, 3000, 0);
	pump(-1);
	CHECK_EQ(A.g.sq.comp, 5);
	CHECK_EQ(cnt(&B, HG_CNT_ATOMICS), 4);
	CHECK_EQ(get64(A.local[0]), 1000);
	CHECK_EQ(get64(A.local[1]), 1005);
	CHECK_EQ(get64(A.local[2]), 7);
	CHECK_EQ(get64(A.local[3]), 99);
	CHECK_EQ(get64(B.mem + 64), 1004);
	CHECK_EQ(get64(B.mem + 72), 99);
	CHECK(sroce_sq_check(&A.g.sq) && sroce_rq_check(&B.g.rq));
	tap_end();

	tap_begin("engine: a lost ATOMIC ACK is replayed, never executed twice");
	setup(1024);
	put64(B.mem + 8, 40);
	post_atomic(SROCE_WR_FETCH_ADD, 8, 2, 0);
	req_run(&A);
	deliver(&B, -1);
	CHECK_EQ(cnt(&B, HG_CNT_ATOMICS), 1);
	deliver(&A, 0);		/* the ATOMIC ACK is lost */
	CHECK_EQ(A.g.sq.comp, 0);
	sroce_sq_timeout(&A.g.sq, &a);
	CHECK(a.kick);
	req_run(&A);
	CHECK_EQ(nwire[0], 1);
	for (i = 0; i < 2; i++) {	/* and the resend arrives twice */
		memcpy(&wire[0][1], &wire[0][0], sizeof(wire[0][0]));
		nwire[0] = 2;
		deliver(&B, -1);
	}
	CHECK_EQ(cnt(&B, HG_CNT_ATOMICS), 1);
	CHECK_EQ(get64(B.mem + 8), 42);
	pump(-1);
	CHECK_EQ(A.g.sq.comp, 1);
	CHECK_EQ(get64(A.local[0]), 40);
	tap_end();

	tap_begin("engine: ATOMIC ACKs are checked against what was asked");
	setup(1024);
	put64(B.mem + 16, 3);
	for (i = 0; i < 4000; i++)
		B.mem[1000 + i] = (u8)i;
	post(SROCE_WR_READ, 4000, 1000);
	post_atomic(SROCE_WR_CMP_SWAP, 16, 4, 3);
	req_run(&A);
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
		sroce_comp_rx(&A.g.sq, &p, &a);
		CHECK(!a.place && (a.events & BIT(SROCE_EV_BAD_RESP)));
		h.bth.opcode = SROCE_OPCODE(SROCE_TRANSPORT_RC,
					    SROCE_OP_READ_RESP_ONLY);
		h.bth.psn = A.wqe[1].first_psn;
		mkpkt(&h, 8, buf, &p);
		sroce_comp_rx(&A.g.sq, &p, &a);
		CHECK(!a.place && (a.events & BIT(SROCE_EV_BAD_RESP)));
		/* an ATOMIC ACK carrying a NAK syndrome */
		h.bth.opcode = SROCE_RC_ATOMIC_ACK;
		h.aeth.syndrome = sroce_syndrome_nak(SROCE_NAK_REM_ACCESS);
		mkpkt(&h, 0, buf, &p);
		sroce_comp_rx(&A.g.sq, &p, &a);
		CHECK(!a.place && !a.error);
	}
	CHECK_EQ(A.g.sq.comp, 0);
	pump(-1);
	CHECK_EQ(A.g.sq.comp, 2);
	CHECK_EQ(get64(A.local[1]), 3);
	CHECK_EQ(get64(B.mem + 16), 4);
	tap_end();

	tap_begin("engine: a misaligned atomic is NAKed invalid request");
	setup(1024);
	put64(B.mem + 32, 1);
	post_atomic(SROCE_WR_FETCH_ADD, 33, 1, 0);
	pump(-1);
	CHECK_EQ(cnt(&B, HG_CNT_ATOMICS), 0);
	CHECK(seen(&B, SROCE_EV_ATOMIC_MISALIGNED));
	CHECK_EQ(A.g.sq.state, SROCE_SQ_ERROR);
	CHECK_EQ(A.g.sq.err_status, SROCE_WC_REM_INV_REQ_ERR);
	CHECK_EQ(B.g.rq.state, SROCE_RQ_ERROR);
	tap_end();

	tap_begin("engine: an atomic without REMOTE_ATOMIC is NAKed remote access");
	setup(1024);
	/* the key does not grant it */
	B.g.mr[0].access &= ~SROCE_ACC_REMOTE_ATOMIC;
	post_atomic(SROCE_WR_FETCH_ADD, 32, 1, 0);
	pump(-1);
	CHECK_EQ(cnt(&B, HG_CNT_ATOMICS), 0);
	CHECK_EQ(A.g.sq.err_status, SROCE_WC_REM_ACCESS_ERR);
	setup(1024);
	sroce_rq_config(&B.g.rq, 1024, 4, SROCE_ACC_REMOTE_WRITE, 12);
	post_atomic(SROCE_WR_CMP_SWAP, 32, 1, 0);	/* nor the QP */
	pump(-1);
	CHECK_EQ(cnt(&B, HG_CNT_ATOMICS), 0);
	CHECK_EQ(A.g.sq.err_status, SROCE_WC_REM_ACCESS_ERR);
	tap_end();

	tap_begin("engine: a duplicate atomic gets the newest result of its PSN");
	setup(1024);
	put64(B.mem + 8, 100);
	post_atomic(SROCE_WR_FETCH_ADD, 8, 1, 0);	/* at PSN 0xfffff0 */
	pump(-1);
	CHECK_EQ(get64(A.local[0]), 100);
	/* 2^24 PSNs later (set, not sent): the same PSN again */
	sroce_sq_set_psn(&A.g.sq, 0xfffff0);
	sroce_rq_set_psn(&B.g.rq, 0xfffff0);
	post_atomic(SROCE_WR_FETCH_ADD, 8, 1, 0);
	req_run(&A);
	deliver(&B, -1);
	CHECK_EQ(get64(B.mem + 8), 102);
	deliver(&A, 0);		/* its ATOMIC ACK is lost */
	sroce_sq_timeout(&A.g.sq, &a);
	pump(-1);
	CHECK_EQ(A.g.sq.comp, 2);
	CHECK_EQ(get64(A.local[1]), 101);	/* not the old 100 */
	CHECK_EQ(get64(B.mem + 8), 102);
	tap_end();

	tap_begin("engine: ATOMIC WRITE stores 8 bytes once, answered by an empty READ response");
	setup(1024);
	put64(B.mem + 40, 1);
	post_atomic(SROCE_WR_ATOMIC_WRITE, 40, 0x1122334455667788ULL, 0);
	req_run(&A);
	CHECK_EQ(nwire[0], 1);
	CHECK(!sroce_parse_bth_packet(wire[0][0].buf, wire[0][0].len, &pk));
	CHECK_EQ(pk.hdr.bth.opcode, SROCE_RC_ATOMIC_WRITE);
	CHECK_EQ(pk.hdr.reth.va, 40);
	CHECK_EQ(pk.hdr.reth.len, 8);
	CHECK_EQ(pk.payload_len, 8);
	CHECK(pk.hdr.bth.ackreq);
	deliver(&B, -1);
	CHECK_EQ(cnt(&B, HG_CNT_ATOMIC_WRITES), 1);
	CHECK_EQ(get64(B.mem + 40), 0x1122334455667788ULL);
	CHECK_EQ(nwire[1], 1);
	CHECK(!sroce_parse_bth_packet(wire[1][0].buf, wire[1][0].len, &pk));
	CHECK_EQ(pk.hdr.bth.opcode, SROCE_RC_READ_RESP_ONLY);
	CHECK_EQ(pk.payload_len, 0);
	deliver(&A, 0);		/* the answer is lost */
	put64(B.mem + 40, 7);		/* a later local store */
	sroce_sq_timeout(&A.g.sq, &a);
	req_run(&A);
	CHECK_EQ(nwire[0], 1);
	for (i = 0; i < 2; i++) {	/* the resend, twice: replayed only */
		memcpy(&wire[0][1], &wire[0][0], sizeof(wire[0][0]));
		nwire[0] = 2;
		deliver(&B, -1);
	}
	CHECK_EQ(cnt(&B, HG_CNT_ATOMIC_WRITES), 1);
	CHECK_EQ(get64(B.mem + 40), 7);
	pump(-1);
	CHECK_EQ(A.g.sq.comp, 1);
	CHECK_EQ(A.g.sq.state, SROCE_SQ_RTS);
	CHECK(sroce_sq_check(&A.g.sq) && sroce_rq_check(&B.g.rq));
	/* misaligned: NAK invalid request; without REMOTE_WRITE: access */
	setup(1024);
	post_atomic(SROCE_WR_ATOMIC_WRITE, 44, 1, 0);
	pump(-1);
	CHECK_EQ(cnt(&B, HG_CNT_ATOMIC_WRITES), 0);
	CHECK(seen(&B, SROCE_EV_ATOMIC_MISALIGNED));
	CHECK_EQ(A.g.sq.err_status, SROCE_WC_REM_INV_REQ_ERR);
	setup(1024);
	sroce_rq_config(&B.g.rq, 1024, 4, SROCE_ACC_REMOTE_READ |
			SROCE_ACC_REMOTE_ATOMIC, 12);
	post_atomic(SROCE_WR_ATOMIC_WRITE, 48, 1, 0);
	pump(-1);
	CHECK_EQ(cnt(&B, HG_CNT_ATOMIC_WRITES), 0);
	CHECK_EQ(A.g.sq.err_status, SROCE_WC_REM_ACCESS_ERR);
	/* a forged one whose RETH says 4 bytes: refused, counted */
	setup(1024);
	{
		struct sroce_hdrs h = {};
		struct sroce_rq_act ra;
		u8 buf[64] = { 0 };

		h.bth.opcode = SROCE_RC_ATOMIC_WRITE;
		h.bth.psn = B.g.rq.epsn;
		h.reth.va = 40;
		h.reth.rkey = RKEY;
		h.reth.len = 4;
		mkpkt(&h, 8, buf, &pk);
		hg_rq_rx(&B.g, &pk, &ra);
		CHECK(ra.events & BIT(SROCE_EV_BAD_REQ));
		CHECK_EQ(B.g.rq.state, SROCE_RQ_ERROR);
		CHECK_EQ(cnt(&B, HG_CNT_ATOMIC_WRITES), 0);
	}
	tap_end();

	tap_begin("engine: atomics outstanding are held to max_rd_atomic");
	setup(1024);
	sroce_sq_config(&A.g.sq, 1024, 2, 7, 7, 14);
	for (i = 0; i < 6; i++)
		post_atomic(SROCE_WR_FETCH_ADD, 0, 1, 0);
	req_run(&A);
	CHECK_EQ(nwire[0], 2);
	CHECK_EQ(sroce_sq_reads_out(&A.g.sq), 2);
	pump(-1);
	CHECK_EQ(A.g.sq.comp, 6);
	CHECK_EQ(get64(B.mem), 6);
	for (i = 0; i < 6; i++)
		CHECK_EQ(get64(A.local[i]), i);
	tap_end();
}

static void setup_uc(u32 mtu)
{
	setup_t(mtu, SROCE_TRANSPORT_UC);
}

static void test_uc(void)
{
	u32 i;

	tap_begin("engine: UC send and writes complete when sent, land intact");
	setup_uc(1024);
	recv_set(&B, 2);
	post(SROCE_WR_SEND, 5000, 0);
	post(SROCE_WR_WRITE, 9000, 100);
	post(SROCE_WR_WRITE_IMM, 3000, 20000);
	req_run(&A);
	CHECK_EQ(A.g.sq.comp, 3);		/* nothing to wait for */
	CHECK_EQ(A.g.sq.una_psn, A.g.sq.sent_psn);
	for (i = 0; i < (u32)nwire[0]; i++) {
		struct sroce_pkt p;

		CHECK(!sroce_parse_bth_packet(wire[0][i].buf, wire[0][i].len,
					      &p));
		CHECK_EQ(sroce_opcode_transport(p.hdr.bth.opcode),
			 SROCE_TRANSPORT_UC);
		CHECK(!p.hdr.bth.ackreq);
	}
	deliver(&B, -1);
	CHECK_EQ(nwire[1], 0);		/* no ACK of any kind */
	CHECK_EQ(B.recvs, 2);
	CHECK_EQ(B.recv_len, 3000);
	CHECK(!memcmp(B.rbuf, A.local[0], 5000));
	CHECK(!memcmp(B.mem + 100, A.local[1], 9000));
	CHECK(!memcmp(B.mem + 20000, A.local[2], 3000));
	CHECK(sroce_sq_check(&A.g.sq) && sroce_rq_check(&B.g.rq));
	tap_end();

	tap_begin("engine: UC drops a message with a lost packet, whole");
	setup_uc(1024);
	recv_set(&B, 1);
	post(SROCE_WR_SEND, 5000, 0);	/* 5 packets, the 3rd lost */
	post(SROCE_WR_SEND, 2000, 0);
	req_run(&A);
	CHECK_EQ(A.g.sq.comp, 2);
	deliver(&B, 2);
	CHECK_EQ(nwire[1], 0);
	CHECK_EQ(B.recvs, 1);		/* the second, into the same WQE */
	CHECK_EQ(B.recv_len, 2000);
	CHECK(!memcmp(B.rbuf, A.local[1], 2000));
	CHECK_EQ(B.g.rq.state, SROCE_RQ_ACTIVE);
	tap_end();

	tap_begin("engine: UC drops what RC would NAK, and stays up");
	setup_uc(1024);
	post(SROCE_WR_SEND, 100, 0);	/* no receive WQE: no RNR */
	post(SROCE_WR_WRITE, 100, MEM);	/* out of bounds */
	B.mem[0] = 0x77;
	post(SROCE_WR_WRITE, 100, 0);	/* and this one lands */
	req_run(&A);
	deliver(&B, -1);
	CHECK_EQ(nwire[1], 0);
	CHECK_EQ(B.recvs, 0);
	CHECK(!memcmp(B.mem, A.local[2], 100));
	CHECK_EQ(B.g.rq.state, SROCE_RQ_ACTIVE);
	{
		struct sroce_hdrs h = {};
		struct sroce_rq_act a;
		struct sroce_pkt p;
		u8 buf[SROCE_MAX_PKT_LEN];

		/* an RC packet at a UC queue, and a UC Middle out of the blue */
		h.bth.opcode = SROCE_RC_SEND_ONLY;
		h.bth.psn = B.g.rq.epsn;
		mkpkt(&h, 10, buf, &p);
		hg_rq_rx(&B.g, &p, &a);
		CHECK(!a.place && !a.ack && (a.events & BIT(SROCE_EV_BAD_REQ)));
		h.bth.opcode = SROCE_OPCODE(SROCE_TRANSPORT_UC,
					    SROCE_OP_WRITE_MIDDLE);
		mkpkt(&h, 1024, buf, &p);
		hg_rq_rx(&B.g, &p, &a);
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

		CHECK_EQ(sroce_req_next(&A.g.sq, &tx, &a), SROCE_REQ_SEND);
		CHECK_EQ(A.g.sq.comp, 1);		/* decided: done */
		sroce_sq_fail(&A.g.sq, tx.idx, SROCE_WC_LOC_PROT_ERR);
		CHECK_EQ(A.g.sq.comp, 0);		/* taken back */
		CHECK_EQ(A.g.sq.state, SROCE_SQ_ERROR);
		CHECK_EQ(A.g.sq.err_idx, 0);
		CHECK_EQ(A.g.sq.err_status, SROCE_WC_LOC_PROT_ERR);
	}
	tap_end();

	tap_begin("engine: UC receive WQEs are neither lost nor stalled");
	setup_uc(1024);
	recv_set(&B, 1);
	{
		struct sroce_hdrs h = {};
		struct sroce_rq_act a;
		struct sroce_pkt p;
		u8 buf[SROCE_MAX_PKT_LEN];
		const u8 *pl = buf;

		/*
		 * The glue carries out each packet (hg_rq_exec), so that its
		 * receive queue follows the engine's.
		 *
		 * A Write with immediate whose MR vanished at its last packet
		 */
		h.bth.opcode = SROCE_OPCODE(SROCE_TRANSPORT_UC,
					    SROCE_OP_WRITE_ONLY_IMM);
		h.bth.psn = B.g.rq.epsn;
		h.reth.rkey = RKEY;
		h.reth.len = 10;
		mkpkt(&h, 10, buf, &p);
		hg_rq_rx(&B.g, &p, &a);
		CHECK(a.complete && a.place == SROCE_PLACE_MR);
		sroce_rq_fail(&B.g.rq, h.bth.psn, SROCE_NAK_REM_ACCESS,
			      SROCE_WC_SUCCESS, &a);
		CHECK(!a.complete && !a.error);
		CHECK(B.g.rq.rwqe_held);	/* the WQE it took stays */
		hg_rq_exec(&B.g, &p, pl + p.payload_off, &a);
		/* the next Send lands in that WQE, taking no other */
		memset(&h, 0, sizeof(h));
		h.bth.opcode = SROCE_OPCODE(SROCE_TRANSPORT_UC,
					    SROCE_OP_SEND_ONLY);
		h.bth.psn = B.g.rq.epsn;
		mkpkt(&h, 20, buf, &p);
		hg_rq_rx(&B.g, &p, &a);
		CHECK(a.complete && a.wc_status == SROCE_WC_SUCCESS);
		CHECK_EQ(recv_left(&B), 0);
		hg_rq_exec(&B.g, &p, pl + p.payload_off, &a);
		/* too long for its WQE: completes in error, QP stays up */
		recv_set(&B, 1);
		B.rwqe_len = 10;
		h.bth.psn = B.g.rq.epsn;
		mkpkt(&h, 20, buf, &p);
		hg_rq_rx(&B.g, &p, &a);
		B.rwqe_len = 0;
		CHECK(a.complete && a.wc_status == SROCE_WC_LOC_LEN_ERR);
		CHECK(!a.error && !B.g.rq.rwqe_held);
		CHECK_EQ(B.g.rq.state, SROCE_RQ_ACTIVE);
		hg_rq_exec(&B.g, &p, pl + p.payload_off, &a);
		/* a forged packet far ahead does not stall the connection */
		h.bth.psn = sroce_psn_add(B.g.rq.epsn, 100000);
		mkpkt(&h, 0, buf, &p);
		recv_set(&B, 2);
		hg_rq_rx(&B.g, &p, &a);
		hg_rq_exec(&B.g, &p, pl + p.payload_off, &a);
		/* genuine */
		h.bth.psn = sroce_psn_add(B.g.rq.epsn, -100001);
		mkpkt(&h, 0, buf, &p);
		hg_rq_rx(&B.g, &p, &a);
		CHECK(a.complete && a.wc_status == SROCE_WC_SUCCESS);
		hg_rq_exec(&B.g, &p, pl + p.payload_off, &a);
		/* a duplicate just behind is dropped */
		hg_rq_rx(&B.g, &p, &a);
		CHECK(!a.complete && (a.events & BIT(SROCE_EV_DUP_REQ)));
		hg_rq_exec(&B.g, &p, pl + p.payload_off, &a);
		CHECK(sroce_rq_check(&B.g.rq));
		/* the Send, the one too long, the forged, the genuine */
		CHECK_EQ(B.recvs, 4);
	}
	tap_end();
}

static void post_local(u8 flags)
{
	struct sroce_wqe *w = &A.wqe[A.g.sq.fetch % SQ_SIZE];

	memset(w, 0, sizeof(*w));
	w->kind = SROCE_WR_LOCAL;
	w->flags = SROCE_WQE_SIGNALED | flags;
	sroce_sq_push(&A.g.sq);
}

static void test_local(void)
{
	tap_begin("engine: local WQEs run once, in order; ORDERED after all before");
	setup(1024);
	recv_set(&B, 1);
	post(SROCE_WR_SEND, 3000, 0);
	post_local(SROCE_WQE_ORDERED);
	post(SROCE_WR_WRITE, 2000, 100);
	req_run(&A);
	/* the Send is out; the invalidation waits for its ACK */
	CHECK_EQ(nwire[0], 3);
	CHECK_EQ(A.local_runs, 0);
	CHECK_EQ(A.g.sq.req, 1);
	pump(-1);
	CHECK_EQ(A.local_runs, 1);
	CHECK_EQ(A.local_comp, 1);
	CHECK_EQ(A.g.sq.comp, 3);
	CHECK(!memcmp(B.mem + 100, A.local[2], 2000));

	/* Not ORDERED: runs at once; a resend from before it passes it */
	setup(1024);
	recv_set(&B, 1);
	post(SROCE_WR_SEND, 3000, 0);
	post_local(0);
	post(SROCE_WR_WRITE, 3000, 100);
	post_local(0);
	req_run(&A);
	CHECK_EQ(A.local_runs, 2);
	CHECK_EQ(A.local_comp, 0);
	CHECK_EQ(A.g.sq.comp, 0);
	CHECK_EQ(nwire[0], 6);
	/* the Send's first packet is lost: everything is sent again */
	deliver(&B, 0);
	pump(-1);
	CHECK_EQ(A.local_runs, 2);
	CHECK_EQ(A.g.sq.comp, 4);
	CHECK_EQ(B.recvs, 1);
	CHECK(!memcmp(B.rbuf, A.local[0], 3000));
	CHECK(!memcmp(B.mem + 100, A.local[2], 3000));

	/* A local WQE that fails fails the QP with its own status */
	setup(1024);
	A.local_status = SROCE_WC_LOC_QP_OP_ERR;
	post(SROCE_WR_WRITE, 100, 0);
	post_local(0);
	post(SROCE_WR_WRITE, 100, 0);
	req_run(&A);
	CHECK_EQ(nwire[0], 1);
	CHECK_EQ(A.g.sq.state, SROCE_SQ_ERROR);
	CHECK_EQ(A.g.sq.err_idx, 1);
	CHECK_EQ(A.g.sq.err_status, SROCE_WC_LOC_QP_OP_ERR);
	CHECK(sroce_sq_check(&A.g.sq));
	tap_end();
}

static void test_send_inv(void)
{
	struct pkt last;

	tap_begin("engine: Send with Invalidate: the R_Key on the last packet, once");
	setup(1024);
	recv_set(&B, 2);
	post(SROCE_WR_SEND_INV, 3000, 0);
	req_run(&A);
	CHECK_EQ(nwire[0], 3);
	last = wire[0][2];
	pump(-1);
	CHECK_EQ(A.g.sq.comp, 1);
	CHECK_EQ(B.recvs, 1);
	CHECK_EQ(B.invs, 1);
	CHECK_EQ(B.inv_rkey, 0x7700);
	CHECK(!memcmp(B.rbuf, A.local[0], 3000));
	/* the last packet again: a duplicate, nothing invalidated twice */
	wire[0][0] = last;
	nwire[0] = 1;
	deliver(&B, -1);
	CHECK_EQ(B.invs, 1);
	CHECK_EQ(B.recvs, 1);

	/* the R_Key cannot be invalidated: NAK, both ends fail */
	setup(1024);
	recv_set(&B, 1);
	B.inv_fail = true;
	post(SROCE_WR_SEND_INV, 100, 0);
	pump(-1);
	CHECK_EQ(B.recvs, 1);
	CHECK_EQ(B.recv_status, SROCE_WC_REM_INV_REQ_ERR);
	CHECK_EQ(B.g.rq.state, SROCE_RQ_ERROR);
	CHECK_EQ(A.g.sq.state, SROCE_SQ_ERROR);
	CHECK_EQ(A.g.sq.err_status, SROCE_WC_REM_INV_REQ_ERR);
	tap_end();
}

static void test_timeout(void)
{
	u64 t14 = sroce_ack_timeout_ns(14);
	struct sroce_sq_act a;
	static struct pkt rnr;
	int rounds;
	u32 i;

	tap_begin("engine: a timeout resends one packet; its ACK alone reopens half the window");
	setup(1024);
	recv_set(&B, 1);
	post(SROCE_WR_SEND, 20000, 0);
	req_run(&A);
	CHECK_EQ(nwire[0], 20);
	nwire[0] = 0;			/* all of it lost */
	sroce_sq_timeout(&A.g.sq, &a);
	CHECK(a.kick && a.timer == SROCE_TIMER_ARM);
	CHECK_EQ(a.timer_ns, t14 << 1);
	req_run(&A);
	CHECK_EQ(nwire[0], 1);		/* the oldest packet, asking an ACK */
	deliver(&B, -1);
	deliver(&A, -1);		/* a loss, not a slow peer */
	CHECK_EQ(A.g.sq.backoff, 0);
	CHECK_EQ(A.g.sq.cwnd, A.g.sq.window / 2);	/* a loss halves it */
	CHECK_EQ(nwire[0], 19);		/* the rest goes at once */
	pump(-1);
	CHECK_EQ(A.g.sq.comp, 1);
	CHECK(!memcmp(B.rbuf, A.local[0], 20000));
	CHECK(sroce_sq_check(&A.g.sq) && sroce_rq_check(&B.g.rq));
	tap_end();

	tap_begin("engine: a peer slower than the timer gets one packet again, keeps the longer timer until new data is acknowledged");
	setup(1024);
	recv_set(&B, 2);
	post(SROCE_WR_SEND, 20000, 0);
	req_run(&A);
	CHECK_EQ(nwire[0], 20);		/* all still on their way */
	sroce_sq_timeout(&A.g.sq, &a);
	req_run(&A);
	CHECK_EQ(nwire[0], 21);		/* one resent, not the window */
	deliver(&B, -1);
	deliver(&A, -1);		/* ACKs of what it never resent */
	CHECK_EQ(A.g.sq.comp, 1);
	CHECK_EQ(A.g.sq.backoff, 1);
	CHECK(seen(&B, SROCE_EV_DUP_REQ));
	/* data first sent after the timeout, acknowledged: the timer comes down */
	post(SROCE_WR_SEND, 7000, 0);
	pump(-1);
	CHECK_EQ(A.g.sq.comp, 2);
	CHECK_EQ(A.g.sq.backoff, 0);
	CHECK(!memcmp(B.rbuf, A.local[1], 7000));
	CHECK(sroce_sq_check(&A.g.sq) && sroce_rq_check(&B.g.rq));
	tap_end();

	tap_begin("engine: a late peer holding a window gets a few packets again, not the window");
	setup(1024);				/* window 64 */
	recv_set(&B, 1);
	post(SROCE_WR_SEND, 65536, 0);
	req_run(&A);
	CHECK_EQ(nwire[0], 64);
	sroce_sq_timeout(&A.g.sq, &a);
	req_run(&A);
	deliver(&B, -1);			/* it takes all 65 at last */
	{
		int acks = nwire[1], j, resent = 0;
		static struct pkt save[16];

		CHECK(acks <= 16);
		for (j = 0; j < acks && j < 16; j++)
			save[j] = wire[1][j];
		for (j = 0; j < acks && j < 16; j++) {
			wire[1][0] = save[j];	/* one ACK at a time */
			nwire[1] = 1;
			deliver(&A, -1);
		}
		/* a few per ACK, not what the ACKs had yet to reach (63) */
		resent = nwire[0];
		CHECK(resent < 20);
	}
	CHECK_EQ(A.g.sq.comp, 1);
	CHECK_EQ(A.g.sq.backoff, 1);
	pump(-1);
	CHECK(!memcmp(B.rbuf, A.local[0], 65536));
	CHECK(sroce_sq_check(&A.g.sq) && sroce_rq_check(&B.g.rq));
	tap_end();

	tap_begin("engine: an RNR NAK behind an unanswered atomic, after a timeout: still live");
	setup(1024);
	post_atomic(SROCE_WR_FETCH_ADD, 64, 1, 0);
	post(SROCE_WR_SEND, 500, 0);
	req_run(&A);
	deliver(&B, -1);		/* no receive WQE: RNR NAK */
	CHECK_EQ(nwire[1], 2);
	rnr = wire[1][1];
	nwire[1] = 0;			/* ATOMIC ACK lost, the NAK late */
	recv_set(&B, 1);
	sroce_sq_timeout(&A.g.sq, &a);
	req_run(&A);
	nwire[0] = 0;			/* the atomic sent again: lost */
	wire[1][0] = rnr;
	nwire[1] = 1;
	deliver(&A, -1);
	CHECK(A.g.sq.rnr_wait);
	sroce_sq_rnr_done(&A.g.sq, &a);
	req_run(&A);
	/* the Send goes, or at least a timer runs: never stuck */
	CHECK(nwire[0] || a.timer == SROCE_TIMER_ARM);
	for (rounds = 0; rounds < 8 && A.g.sq.comp != 2; rounds++) {
		pump(-1);
		if (A.g.sq.comp != 2)
			sroce_sq_timeout(&A.g.sq, &a);
	}
	CHECK_EQ(A.g.sq.comp, 2);
	CHECK_EQ(cnt(&B, HG_CNT_ATOMICS), 1);
	CHECK_EQ(get64(A.local[0]), 0);
	CHECK(sroce_sq_check(&A.g.sq) && sroce_rq_check(&B.g.rq));
	tap_end();

	tap_begin("engine: READ responses after a timeout do not each ask for the rest again");
	setup(1024);
	recv_set(&B, 2);
	for (i = 0; i < 70000; i++)
		B.mem[100000 + i] = (u8)(i * 3);
	post(SROCE_WR_SEND, 3000, 0);
	post(SROCE_WR_READ, 70000, 100000);
	post(SROCE_WR_FETCH_ADD, 8, 64);
	post(SROCE_WR_SEND, 5000, 0);
	req_run(&A);
	nwire[0] = 0;				/* all of it lost */
	sroce_sq_timeout(&A.g.sq, &a);
	for (rounds = 0; rounds < 100 && A.g.sq.comp != 4; rounds++) {
		req_run(&A);
		/* at most the window's requests, never one per response */
		CHECK(nwire[0] <= 16);
		if (!nwire[0])
			break;
		deliver(&B, -1);
		deliver(&A, -1);
	}
	CHECK_EQ(A.g.sq.comp, 4);
	CHECK(!memcmp(A.local[1], B.mem + 100000, 70000));
	CHECK(sroce_sq_check(&A.g.sq) && sroce_rq_check(&B.g.rq));
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

/*
 * Congestion control in the engine: a CNP cuts the rate, the requester
 * is held by the pacing (SROCE_REQ_PACED) until the clock reaches
 * sroce_sq_pace_at(), and what was held goes whole, in order.
 */
/*
 * The device's budget: the requester stops where the grant ends, asks
 * for an ACK with the last packet granted, says SROCE_REQ_BUDGET, and
 * goes on once the ACK settles the charge; resends need no grant.
 */
static void test_budget_eng(void)
{
	struct sroce_budget b = { .limit = 6 };
	struct sroce_budget_qp q = { 0 }, other = { 0 };
	struct sroce_tx_req tx;
	struct sroce_sq_act act;
	struct sroce_pkt pk;

	tap_begin("engine: the device budget holds the requester, its last packet asks for an ACK");
	setup(1024);
	sroce_budget_settle(&b, &other, 2);	/* another QP holds 2 */
	post(SROCE_WR_WRITE, 16384, 0);
	sroce_sq_budget_grant(&A.g.sq, &b, &q);	/* share 3 */
	req_run(&A);
	CHECK_EQ(nwire[A.out], 3);
	CHECK(!sroce_parse_bth_packet(wire[0][2].buf, wire[0][2].len, &pk));
	CHECK(pk.hdr.bth.ackreq);
	CHECK(!sroce_parse_bth_packet(wire[0][1].buf, wire[0][1].len, &pk));
	CHECK(!pk.hdr.bth.ackreq);
	CHECK_EQ(sroce_req_next(&A.g.sq, &tx, &act), SROCE_REQ_BUDGET);
	CHECK_EQ(sroce_sq_budget_settle(&A.g.sq, &b, &q), 0);
	CHECK_EQ(q.charge, 3);
	CHECK_EQ(b.used, 5);
	deliver(&B, 1);				/* the second is lost */
	deliver(&A, -1);			/* a NAK of the gap */
	/* the resend of PSNs already charged needs no grant */
	sroce_sq_budget_grant(&A.g.sq, &b, &q);
	CHECK_EQ(A.g.sq.budget_end, A.g.sq.sent_psn);
	req_run(&A);
	CHECK_EQ(nwire[A.out], 2);
	deliver(&B, -1);
	/*
	 * The ACK answers all three: with nothing in flight one request
	 * goes at once, the floor every QP has
	 */
	deliver(&A, -1);
	CHECK_EQ(nwire[A.out], 1);
	CHECK_EQ(sroce_sq_budget_settle(&A.g.sq, &b, &q), 2);
	CHECK_EQ(b.used, 3);
	while (A.g.sq.comp != A.g.sq.fetch) {
		sroce_sq_budget_settle(&A.g.sq, &b, &q);
		sroce_sq_budget_grant(&A.g.sq, &b, &q);
		req_run(&A);
		if (!CHECK(nwire[A.out] && nwire[A.out] <= 3))
			break;
		deliver(&B, -1);
		deliver(&A, -1);
	}
	sroce_sq_budget_settle(&A.g.sq, &b, &q);
	CHECK_EQ(q.charge, 0);
	CHECK_EQ(b.qps, 1);
	CHECK_EQ(b.used, 2);
	CHECK(!memcmp(A.local[0], B.mem, 16384));
	tap_end();
}

/*
 * A peer that never answers: once the timer fires, what the QP had in
 * flight is presumed lost, and it holds one packet of the budget (its
 * probe), not a window, through its retries; the ACK that comes at last
 * charges it what is really out again.
 */
static void test_budget_timeout(void)
{
	struct sroce_budget b = { .limit = 8 };
	struct sroce_budget_qp q = { 0 };
	struct sroce_sq_act a;

	tap_begin("engine: after a timeout a QP holds one packet of the device budget");
	setup(1024);
	post(SROCE_WR_WRITE, 16384, 0);
	sroce_sq_budget_grant(&A.g.sq, &b, &q);
	req_run(&A);
	CHECK_EQ(nwire[A.out], 8);
	sroce_sq_budget_settle(&A.g.sq, &b, &q);
	CHECK_EQ(q.charge, 8);
	nwire[A.out] = 0;			/* all of it lost */
	sroce_sq_timeout(&A.g.sq, &a);
	CHECK_EQ(sroce_sq_budget_settle(&A.g.sq, &b, &q), 7);
	CHECK_EQ(q.charge, 1);
	CHECK_EQ(b.used, 1);
	sroce_sq_budget_grant(&A.g.sq, &b, &q);
	req_run(&A);
	CHECK_EQ(nwire[A.out], 1);		/* the probe: a resend, free */
	deliver(&B, -1);
	deliver(&A, -1);
	sroce_sq_budget_settle(&A.g.sq, &b, &q);
	CHECK_EQ(q.charge, 7);			/* acknowledged one of eight */
	CHECK(sroce_budget_check(&b));
	tap_end();
}

static void test_cc(void)
{
	static const struct sroce_dcqcn_params p = SROCE_DCQCN_DEFAULTS;
	const u64 sec = 1000000000ULL;
	struct sroce_tx_req tx;
	struct sroce_sq_act act;
	u32 sent = 0, rounds = 0;

	tap_begin("engine: a CNP cuts the rate, the pacing holds the requester, the clock lets it go");
	setup(1024);
	sroce_sq_set_cc(&A.g.sq, &p, 100);
	sroce_sq_clock(&A.g.sq, sec);
	post(SROCE_WR_WRITE, 16384, 0);
	req_run(&A);
	CHECK_EQ(nwire[A.out], 16);		/* unlimited: the window */
	CHECK(!sroce_sq_cnp(&B.g.sq));		/* off on B: nothing */
	CHECK(sroce_sq_cnp(&A.g.sq));		/* for what is in flight */
	CHECK_EQ(A.g.sq.cc.rc_kbps, 50049);
	/* the window is cut too, by a fifth, once per window of data */
	CHECK_EQ(A.g.sq.cwnd, A.g.sq.window * 4 / 5);
	sroce_sq_clock(&A.g.sq, sec + 2000);	/* within the monitor period */
	CHECK(!sroce_sq_cnp(&A.g.sq));
	CHECK_EQ(A.g.sq.cwnd, A.g.sq.window * 4 / 5);
	deliver(&B, -1);
	deliver(&A, -1);
	/* nothing in flight: late or forged, it cuts nothing */
	sroce_sq_clock(&A.g.sq, sec + 100000);
	CHECK(!sroce_sq_cnp(&A.g.sq));
	CHECK_EQ(A.g.sq.cc.cuts, 1);
	post(SROCE_WR_WRITE, 16384, 0);
	req_run(&A);
	CHECK_EQ(nwire[A.out], 1);		/* then held */
	CHECK_EQ(sroce_req_next(&A.g.sq, &tx, &act), SROCE_REQ_PACED);
	/* 1088 bytes at 50.049 Mbit/s: 173.909 us after the cut */
	CHECK_EQ(sroce_sq_pace_at(&A.g.sq), sec + 173909);
	while (A.g.sq.comp != A.g.sq.fetch && rounds++ < 100) {
		sroce_sq_clock(&A.g.sq, sroce_sq_pace_at(&A.g.sq));
		req_run(&A);
		sent += nwire[A.out];
		deliver(&B, -1);
		deliver(&A, -1);
	}
	CHECK_EQ(A.g.sq.comp, 2);
	CHECK_EQ(B.recvs, 0);
	CHECK_EQ(sent, 16);	/* counted after the first: one per step */
	CHECK(!memcmp(B.mem, A.local[1], 16384));
	CHECK(!glue_failed);
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
	test_one_loss();
	test_tail_probe();
	test_tail_loss_probe();
	test_rtt();
	test_cc();
	test_budget_eng();
	test_budget_timeout();
	test_reread_range();
	test_timeout();
	test_atomic();
	test_uc();
	test_local();
	test_send_inv();
}
