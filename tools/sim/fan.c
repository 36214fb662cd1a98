// SPDX-License-Identifier: GPL-2.0-only
/*
 * fan: many RC QPs through one bottleneck, in simulated time.
 *
 * N senders (one QP each, the protocol core's engines through the host
 * glue, tools/host/glue.c) write to N receivers without pause. Every
 * request crosses one shared queue: a service rate, a buffer that drops
 * what does not fit, and a marking threshold past which ECN-capable
 * requests leave CE-marked (a switch's ECN, or fq_codel's). The way back
 * (ACKs, CNPs) is uncongested. A receiver that takes a CE-marked request
 * sends a CNP, at most one per cnp_min_time; a sender's QP reacts by
 * DCQCN (the core's sroce_dcqcn.c, mlx5's defaults) when --ecn is on.
 * The senders are one device's QPs: with --budget N they share N packets
 * in flight (the core's sroce_budget.c), and the QPs it holds wait in a
 * ring, run in turn as packets are acknowledged.
 *
 * What it tells, per run: goodput (bytes completed after a warm-up, of
 * what the link can carry), Jain's fairness index over the QPs' bytes,
 * the most the queue held, drops, marks, CNPs, rate cuts, retransmit
 * timeouts, and the spurious ones (a timeout of a QP none of whose
 * packets was ever dropped: the queue's delay outran its timer), and the
 * probes (the timer's early expiries, which resend a packet and spend no
 * retry: sroce_sqi_arm()).
 * --check runs the cases make unit holds to, as TAP lines.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sroce/dcqcn.h"
#include "../host/glue.h"

#define SQ_SIZE		16
#define MAX_QPS		256

enum ev_type { EV_DEQ, EV_ARRIVE, EV_REXMIT, EV_RNR, EV_PACE, EV_CNP,
	      EV_BUDGET };

struct ev {
	u64	t;
	u64	seq;
	u8	type;
	bool	ce;
	u32	side;	/* sender i = 2i, receiver i = 2i + 1 */
	u32	gen;
	u8	*buf;
	u32	len;
};

struct fside {
	struct hg_side	g;
	struct sroce_wqe ring[SQ_SIZE];
	u32		id;
	u8		*mem;
	u32		rexmit_gen;
	bool		rexmit_on;
	u32		rnr_gen;
	u64		pace_at;	/* a pace event is pending for then */
	u64		cnp_last;
	struct sroce_budget_qp bq;	/* its part of the device's budget */
	bool		waiting;	/* in the budget's ring */
	u64		bytes;		/* completed, after the warm-up */
	u64		drops;
	u64		timeouts;
	u64		probes;
	u64		cuts;
};

struct pkt {
	struct pkt	*next;
	u8		*buf;
	u32		len;
	u32		side;	/* the receiver it goes to */
	bool		ce;
};

struct fan_cfg {
	u32	qps;
	double	rate_gbps;	/* the bottleneck */
	u32	buffer_kb;
	u32	mark_kb;	/* RED's Kmin: marks from here; 0: never */
	u32	mark_max_kb;	/* RED's Kmax: every packet marked past it */
	double	mark_p;		/* RED's Pmax: the chance at Kmax */
	bool	ecn;		/* senders react to CNPs (DCQCN) */
	u32	msg;		/* bytes per Write */
	u64	latency_ns;	/* each way */
	u64	run_ns;
	u64	warm_ns;
	u32	line_mbps;
	u32	budget;		/* the senders' device: packets in flight */
};

struct fan_res {
	double	goodput;	/* of the link's rate */
	double	jain;
	u64	max_q, late_q, late_drops;
	u64	drops, marks, cnps, cuts, timeouts, spurious, probes;
	bool	failed;
};

static struct sroce_dcqcn_params dcqcn = SROCE_DCQCN_DEFAULTS;
static u32 cnp_gap_us = 4;

/* The DCQCN paper's parameters (Zhu et al. 2015, section 5) */
static void paper_params(void)
{
	dcqcn.g = 1020;			/* g = 1/256 */
	dcqcn.alpha_us = 55;
	dcqcn.time_reset_us = 55;
	dcqcn.byte_reset = 10 * 1024 * 1024;
	dcqcn.threshold = 5;
	dcqcn.ai_mbps = 40;
	dcqcn.hai_mbps = 100;
	dcqcn.reduce_us = 50;
	cnp_gap_us = 50;
}
static struct fan_cfg cfg;
static struct fside *side;	/* 2 * qps */
static struct ev *heap;
static u32 nheap, capheap;
static u64 now, seqno;
static bool failed;
/* the bottleneck */
static struct pkt *qhead, *qtail;
static u64 qbytes, max_q, marks, cnps;
static u64 late_q, late_drops;	/* after the warm-up */
static bool busy;
/* the senders' device budget and the QPs it holds, oldest first */
static struct sroce_budget budget;
static u32 *ring, ring_head, ring_n;

static void push(struct ev e)
{
	u32 i;

	if (nheap == capheap) {
		capheap = capheap ? 2 * capheap : 1024;
		heap = realloc(heap, capheap * sizeof(*heap));
		if (!heap)
			abort();
	}
	e.seq = seqno++;
	i = nheap++;
	while (i) {
		u32 p = (i - 1) / 2;

		if (heap[p].t < e.t || (heap[p].t == e.t && heap[p].seq < e.seq))
			break;
		heap[i] = heap[p];
		i = p;
	}
	heap[i] = e;
}

static struct ev pop(void)
{
	struct ev top = heap[0], last = heap[--nheap];
	u32 i = 0;

	for (;;) {
		u32 c = 2 * i + 1;

		if (c >= nheap)
			break;
		if (c + 1 < nheap && (heap[c + 1].t < heap[c].t ||
				      (heap[c + 1].t == heap[c].t &&
				       heap[c + 1].seq < heap[c].seq)))
			c++;
		if (last.t < heap[c].t ||
		    (last.t == heap[c].t && last.seq < heap[c].seq))
			break;
		heap[i] = heap[c];
		i = c;
	}
	if (nheap)
		heap[i] = last;
	return top;
}

static void at(u64 t, u8 type, u32 s, u32 gen, u8 *buf, u32 len, bool ce)
{
	struct ev e = { .t = t, .type = type, .side = s, .gen = gen,
			.buf = buf, .len = len, .ce = ce };

	push(e);
}

static struct fside *of(struct hg_side *g)
{
	return (struct fside *)g;
}

static u64 serve_ns(u32 len)
{
	return (u64)((double)len * 8 / cfg.rate_gbps) + 1;
}

/* splitmix64: the marking's chances, the same every run */
static u64 rng;

static double chance(void)
{
	u64 z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (double)((z ^ (z >> 31)) >> 11) * 0x1p-53;
}

/* RED with ECN, as DCQCN's switches mark: Kmin, Kmax, Pmax */
static bool red_mark(void)
{
	double lo = cfg.mark_kb * 1024.0, hi = cfg.mark_max_kb * 1024.0;

	if (!cfg.mark_kb || qbytes <= lo)
		return false;
	if (qbytes >= hi)
		return true;
	return chance() < cfg.mark_p * (qbytes - lo) / (hi - lo);
}

/* A request: ECN-capable, as sroce's are */
static bool is_request(const u8 *buf)
{
	const struct sroce_opcode_info *info = sroce_opcode_get(buf[0]);

	return info && (info->mask & SROCE_MASK_REQ);
}

static void hook_xmit(struct hg_side *g, u8 *buf, u32 len)
{
	struct fside *s = of(g);
	struct pkt *p;
	/* on the wire: Ethernet, IPv4, UDP around what the glue built */
	u32 wire = len + 42;

	if (s->id & 1) {		/* a receiver's ACK: straight back */
		at(now + cfg.latency_ns, EV_ARRIVE, s->id - 1, 0, buf, len,
		   false);
		return;
	}
	if ((qbytes + wire) > (u64)cfg.buffer_kb * 1024) {
		s->drops++;
		if (now >= cfg.warm_ns)
			late_drops++;
		free(buf);
		return;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		abort();
	p->buf = buf;
	p->len = len;
	p->side = s->id + 1;
	p->ce = is_request(buf) && red_mark();
	marks += p->ce;
	if (qtail)
		qtail->next = p;
	else
		qhead = p;
	qtail = p;
	qbytes += wire;
	if (qbytes > max_q)
		max_q = qbytes;
	if (now >= cfg.warm_ns && qbytes > late_q)
		late_q = qbytes;
	if (!busy) {
		busy = true;
		at(now + serve_ns(wire), EV_DEQ, 0, 0, NULL, 0, false);
	}
}

static void hook_wqe(struct hg_side *g, u32 i, struct hg_wqe *out)
{
	struct fside *s = of(g);

	(void)i;
	memset(out, 0, sizeof(*out));
	out->buf = s->mem;
}

static u8 *hook_rwqe(struct hg_side *g, u32 i, u32 *len)
{
	(void)i;
	*len = 0;
	return of(g)->mem;
}

static void hook_fail(struct hg_side *g, const char *fmt, va_list ap)
{
	printf("# %u: ", of(g)->id);
	vprintf(fmt, ap);
	printf("\n");
	failed = true;
	*g->failed = true;
}

/* Endless Writes into the receiver's memory */
static bool hook_fetch(struct hg_side *g, u32 i, struct sroce_wqe *q)
{
	(void)i;
	if (!sroce_sq_room(&g->sq))
		return false;
	q->kind = SROCE_WR_WRITE;
	q->flags = SROCE_WQE_SIGNALED;
	q->length = cfg.msg;
	q->remote_addr = 0x100000;
	q->rkey = 0x1234;
	return true;
}

static void hook_sq_comp(struct hg_side *g, u32 i, u8 status)
{
	struct fside *s = of(g);

	(void)i;
	if (status != SROCE_WC_SUCCESS) {
		printf("# QP %u: a Write completed with status %u\n", s->id / 2,
		       status);
		failed = true;
		return;
	}
	if (now >= cfg.warm_ns)
		s->bytes += cfg.msg;
}

static void arm(struct fside *s, u64 ns)
{
	s->rexmit_gen++;
	s->rexmit_on = true;
	at(now + ns, EV_REXMIT, s->id, s->rexmit_gen, NULL, 0, false);
}

static void hook_timer(struct hg_side *g, const struct sroce_sq_act *act)
{
	struct fside *s = of(g);

	switch (act->timer) {
	case SROCE_TIMER_ARM_IF_IDLE:
		if (s->rexmit_on)
			break;
		/* fall through */
	case SROCE_TIMER_ARM:
		arm(s, act->timer_ns);
		break;
	case SROCE_TIMER_STOP:
		s->rexmit_on = false;
		s->rexmit_gen++;
		break;
	case SROCE_TIMER_RNR:
		s->rexmit_on = false;
		s->rexmit_gen++;
		s->rnr_gen++;
		at(now + act->timer_ns, EV_RNR, s->id, s->rnr_gen, NULL, 0,
		   false);
		break;
	default:
		break;
	}
}

static void hook_error(struct hg_side *g)
{
	struct fside *s = of(g);

	s->rexmit_on = false;
	s->rexmit_gen++;
	printf("# QP %u (%s) went to error\n", s->id / 2,
	       s->id & 1 ? "receiver" : "sender");
	failed = true;
}

/*
 * A sender's charge follows what it has in flight; what it gives back
 * goes to the QPs the budget held, one packet each, in the order they
 * waited (those still short wait again, at the end).
 */
static void budget_settle(struct fside *s)
{
	u32 freed;

	if (!budget.limit || (s->id & 1))
		return;
	freed = sroce_sq_budget_settle(&s->g.sq, &budget, &s->bq);
	if (!sroce_budget_check(&budget))
		failed = true;
	for (; freed && ring_n; freed--, ring_n--) {
		struct fside *w = &side[ring[ring_head]];

		ring_head = (ring_head + 1) % cfg.qps;
		w->waiting = false;
		at(now, EV_BUDGET, w->id, 0, NULL, 0, false);
	}
}

static void hook_req_pre(struct hg_side *g)
{
	struct fside *s = of(g);

	if (!budget.limit)
		return;
	budget_settle(s);
	sroce_sq_budget_grant(&g->sq, &budget, &s->bq);
}

static void hook_req_budget(struct hg_side *g)
{
	struct fside *s = of(g);

	if (s->waiting)
		return;
	s->waiting = true;
	ring[(ring_head + ring_n++) % cfg.qps] = s->id;
}

static const struct hg_ops ops = {
	.xmit = hook_xmit,
	.wqe = hook_wqe,
	.rwqe = hook_rwqe,
	.fail = hook_fail,
	.fetch = hook_fetch,
	.sq_comp = hook_sq_comp,
	.timer = hook_timer,
	.error = hook_error,
	.req_pre = hook_req_pre,
	.req_budget = hook_req_budget,
};

/* A sender its rate holds: run it again when the rate lets it */
static void pace(struct fside *s)
{
	const struct sroce_dcqcn *d = &s->g.sq.cc;

	if ((s->id & 1) || !s->g.sq.ccp || s->g.qp_err)
		return;
	if (sroce_dcqcn_ready(d, now) || s->pace_at == d->next_tx)
		return;
	s->pace_at = d->next_tx;
	at(d->next_tx, EV_PACE, s->id, 0, NULL, 0, false);
}

static void deliver(struct fside *s, u8 *buf, u32 len, bool ce)
{
	struct sroce_pkt pkt;

	if (hg_parse(&s->g, buf, len, &pkt)) {
		printf("# %u: a packet did not parse\n", s->id);
		failed = true;
		return;
	}
	if (ce && is_request(buf) &&
	    sroce_np_cnp_due(&s->cnp_last, now, cnp_gap_us)) {
		cnps++;
		at(now + cfg.latency_ns, EV_CNP, s->id - 1, 0, NULL, 0, false);
	}
	hg_rx(&s->g, &pkt, buf + pkt.payload_off);
}

static void dispatch(const struct ev *e)
{
	struct fside *s = &side[e->side];
	struct sroce_sq_act act;
	struct pkt *p;

	sroce_sq_clock(&s->g.sq, now);
	switch (e->type) {
	case EV_DEQ:
		p = qhead;
		qhead = p->next;
		if (!qhead)
			qtail = NULL;
		qbytes -= p->len + 42;
		at(now + cfg.latency_ns, EV_ARRIVE, p->side, 0, p->buf, p->len,
		   p->ce);
		free(p);
		if (qhead)
			at(now + serve_ns(qhead->len + 42), EV_DEQ, 0, 0, NULL,
			   0, false);
		else
			busy = false;
		return;
	case EV_ARRIVE:
		deliver(s, e->buf, e->len, e->ce);
		free(e->buf);
		break;
	case EV_REXMIT:
		if (e->gen != s->rexmit_gen || !s->rexmit_on || s->g.qp_err)
			return;
		s->rexmit_on = false;
		memset(&act, 0, sizeof(act));
		sroce_sq_timeout(&s->g.sq, &act);
		if (act.events & BIT(SROCE_EV_TIMEOUT))
			s->timeouts++;
		else
			s->probes++;
		hg_sq_checked(&s->g, "sroce_sq_timeout");
		hg_sq_exec(&s->g, &act, NULL, 0);
		break;
	case EV_RNR:
		if (e->gen != s->rnr_gen || s->g.qp_err)
			return;
		memset(&act, 0, sizeof(act));
		sroce_sq_rnr_done(&s->g.sq, &act);
		hg_sq_exec(&s->g, &act, NULL, 0);
		break;
	case EV_PACE:
		if (e->t != s->pace_at)
			return;
		s->pace_at = 0;
		hg_kick(&s->g);
		break;
	case EV_CNP:
		if (sroce_sq_cnp(&s->g.sq))
			s->cuts++;
		break;
	case EV_BUDGET:
		hg_kick(&s->g);
		break;
	}
	budget_settle(s);
	pace(s);
}

static void setup(void)
{
	u32 i;

	side = calloc(2 * cfg.qps, sizeof(*side));
	ring = calloc(cfg.qps, sizeof(*ring));
	if (!side || !ring)
		abort();
	memset(&budget, 0, sizeof(budget));
	budget.limit = cfg.budget;
	ring_head = ring_n = 0;
	for (i = 0; i < 2 * cfg.qps; i++) {
		struct fside *s = &side[i];
		const struct hg_cfg hc = {
			.mtu = 1024, .sq_size = SQ_SIZE, .max_rd = 1,
			.peer_max_rd = 1, .retry_cnt = 7, .rnr_retry = 7,
			.timeout = 14,	/* 67 ms, as perftest's */
			.min_rnr_timer = 1,
			.psn = 1000 * (i / 2), .peer_psn = 1000 * (i / 2),
			.access = SROCE_ACC_REMOTE_WRITE,
			.transport = SROCE_TRANSPORT_RC,
		};

		s->id = i;
		s->mem = calloc(1, cfg.msg);
		if (!s->mem)
			abort();
		s->g.ops = &ops;
		s->g.failed = &failed;
		s->g.name = i & 1 ? 'R' : 'S';
		s->g.qpn = 0x100 + i;
		s->g.peer_qpn = 0x100 + (i ^ 1);
		s->g.mem = s->mem;
		s->g.mr[0].va = 0x100000;
		s->g.mr[0].off = 0;
		s->g.mr[0].len = cfg.msg;
		s->g.mr[0].rkey = 0x1234;
		s->g.mr[0].access = SROCE_ACC_REMOTE_WRITE;
		s->g.nmr = 1;
		s->g.ring = s->ring;
		s->g.nrwqes = 0;
		hg_start(&s->g, &hc);
		if (!(i & 1) && cfg.ecn)
			sroce_sq_set_cc(&s->g.sq, &dcqcn, cfg.line_mbps);
	}
}

static void teardown(void)
{
	u32 i;

	while (nheap) {
		struct ev e = pop();

		free(e.buf);
	}
	while (qhead) {
		struct pkt *p = qhead;

		qhead = p->next;
		free(p->buf);
		free(p);
	}
	qtail = NULL;
	for (i = 0; i < 2 * cfg.qps; i++)
		free(side[i].mem);
	free(side);
	side = NULL;
	free(ring);
	ring = NULL;
	qbytes = 0;
	busy = false;
}

static struct fan_res run(void)
{
	struct fan_res r = { 0 };
	double sum = 0, sq = 0;
	u32 i;

	now = 0;
	rng = 1;
	max_q = marks = cnps = late_q = late_drops = 0;
	failed = false;
	setup();
	for (i = 0; i < cfg.qps; i++)
		hg_kick(&side[2 * i].g);
	for (i = 0; i < cfg.qps; i++)
		pace(&side[2 * i]);
	while (nheap && !failed) {
		struct ev e = pop();

		if (e.t > cfg.run_ns) {
			free(e.buf);
			break;
		}
		now = e.t;
		dispatch(&e);
	}
	for (i = 0; i < cfg.qps; i++) {
		struct fside *s = &side[2 * i];
		double x = (double)s->bytes;

		sum += x;
		sq += x * x;
		r.drops += s->drops;
		r.cuts += s->cuts;
		r.timeouts += s->timeouts;
		r.probes += s->probes;
		if (!s->drops)
			r.spurious += s->timeouts;
	}
	r.goodput = sum * 8 / ((cfg.run_ns - cfg.warm_ns) * cfg.rate_gbps);
	r.jain = sq > 0 ? sum * sum / (cfg.qps * sq) : 0;
	r.max_q = max_q;
	r.late_q = late_q;
	r.late_drops = late_drops;
	r.marks = marks;
	r.cnps = cnps;
	r.failed = failed;
	teardown();
	return r;
}

static void print(const char *name, const struct fan_res *r)
{
	printf("# %-20s %3u QPs: goodput %.2f of the link, Jain %.3f, queue max %llu KiB (after warm-up %llu), drops %llu (after warm-up %llu), marks %llu, CNPs %llu, cuts %llu, timeouts %llu (spurious %llu), probes %llu%s\n",
	       name, cfg.qps, r->goodput, r->jain,
	       (unsigned long long)r->max_q / 1024,
	       (unsigned long long)r->late_q / 1024,
	       (unsigned long long)r->drops,
	       (unsigned long long)r->late_drops, (unsigned long long)r->marks,
	       (unsigned long long)r->cnps, (unsigned long long)r->cuts,
	       (unsigned long long)r->timeouts,
	       (unsigned long long)r->spurious, (unsigned long long)r->probes,
	       r->failed ? ", FAILED" : "");
}

static void defaults(void)
{
	cfg.qps = 16;
	cfg.rate_gbps = 1;
	cfg.buffer_kb = 2048;
	cfg.mark_kb = 5;	/* the DCQCN paper's switch: 5 KB, */
	cfg.mark_max_kb = 200;	/* 200 KB, */
	cfg.mark_p = 0.01;	/* 1 % */
	cfg.ecn = true;
	cfg.msg = 16384;
	cfg.latency_ns = 10000;
	cfg.run_ns = 200000000;
	cfg.warm_ns = 50000000;
	cfg.line_mbps = 10000;
}

static int n_tap, n_bad;

static void tap(bool ok, const char *what)
{
	n_tap++;
	n_bad += !ok;
	printf("%sok %d - fan: %s\n", ok ? "" : "not ", n_tap, what);
}

/*
 * The cases make unit holds to: with ECN and DCQCN, 1 to 64 QPs into one
 * 1 Gbit/s queue keep it busy, share it (Jain's index over their
 * bytes), drop nothing once past the first window of each, and never
 * time out spuriously; without the reaction the queue holds far more.
 * 256 QPs of one host overflow the buffer with their first windows
 * alone (reported); with a device budget of 512 packets in flight they
 * drop nothing, share it, never time out, and the queue holds no more
 * than the budget and one packet per QP; 64 QPs under the same budget
 * lose nothing of what they had.
 */
static int check(void)
{
	static const u32 qps[] = { 1, 4, 16, 64 };
	struct fan_res r, q16 = { 0 };
	char what[200];
	u32 i;

	for (i = 0; i < sizeof(qps) / sizeof(qps[0]); i++) {
		defaults();
		cfg.qps = qps[i];
		r = run();
		print("ECN and DCQCN", &r);
		if (qps[i] == 16)
			q16 = r;
		snprintf(what, sizeof(what),
			 "%u QPs with ECN and DCQCN: goodput >= 0.9, Jain >= 0.9, no drop after the warm-up, no spurious timeout",
			 qps[i]);
		tap(!r.failed && r.goodput >= 0.9 && r.jain >= 0.9 &&
		    !r.late_drops && !r.spurious, what);
	}
	defaults();
	cfg.qps = 16;
	cfg.ecn = false;
	r = run();
	print("no reaction to CNPs", &r);
	tap(!r.failed && r.late_q > 2 * q16.late_q,
	    "16 QPs that ignore CNPs keep more than twice the queue");
	defaults();
	cfg.qps = 256;
	r = run();
	print("ECN and DCQCN", &r);
	printf("# 256 QPs of one host without a budget: reported, not held\n");
	for (i = 0; i < 2; i++) {
		u64 bound;

		defaults();
		cfg.qps = i ? 256 : 64;
		cfg.budget = 512;
		bound = (u64)(cfg.budget + cfg.qps) * (1024 + SROCE_PACE_OVERHEAD);
		r = run();
		print("budget 512", &r);
		snprintf(what, sizeof(what),
			 "%u QPs, budget 512: goodput >= %s, Jain >= 0.9, no drop, no spurious timeout, queue <= (budget + QPs) packets",
			 cfg.qps, i ? "0.85" : "0.9");
		tap(!r.failed && r.goodput >= (i ? 0.85 : 0.9) &&
		    r.jain >= 0.9 && !r.drops && !r.spurious &&
		    r.max_q <= bound, what);
	}
	printf("1..%d\n", n_tap);
	return n_bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "qps", 1, NULL, 'q' }, { "rate", 1, NULL, 'r' },
		{ "buffer", 1, NULL, 'b' }, { "mark", 1, NULL, 'k' },
		{ "no-ecn", 0, NULL, 'E' }, { "msg", 1, NULL, 'm' },
		{ "ms", 1, NULL, 't' }, { "check", 0, NULL, 'c' },
		{ "paper", 0, NULL, 'P' }, { "budget", 1, NULL, 'B' },
		{ NULL, 0, NULL, 0 },
	};
	struct fan_res r;
	int c;

	defaults();
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'q': cfg.qps = (u32)atoi(optarg); break;
		case 'r': cfg.rate_gbps = atof(optarg); break;
		case 'b': cfg.buffer_kb = (u32)atoi(optarg); break;
		case 'k': cfg.mark_kb = (u32)atoi(optarg); break;
		case 'E': cfg.ecn = false; break;
		case 'm': cfg.msg = (u32)atoi(optarg); break;
		case 't': cfg.run_ns = (u64)atoi(optarg) * 1000000;
			  cfg.warm_ns = cfg.run_ns / 4; break;
		case 'c': return check();
		case 'P': paper_params(); break;
		case 'B': cfg.budget = (u32)atoi(optarg); break;
		default:
			fprintf(stderr, "usage: fan [--qps N] [--rate Gbit/s] [--buffer KiB] [--mark KiB] [--no-ecn] [--msg B] [--ms N] [--budget packets] [--paper] | --check\n");
			return 2;
		}
	}
	if (!cfg.qps || cfg.qps > MAX_QPS || cfg.rate_gbps <= 0 || !cfg.msg ||
	    cfg.msg > 0x100000) {
		fprintf(stderr, "fan: bad arguments\n");
		return 2;
	}
	r = run();
	print(cfg.ecn ? "ECN and DCQCN" : "no reaction to CNPs", &r);
	return r.failed;
}
