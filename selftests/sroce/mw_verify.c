// SPDX-License-Identifier: GPL-2.0-only
/*
 * mw_verify: memory windows through the stock rxe provider, on one device
 * whose RC QPs connect to each other through its own address. QP "own"
 * owns an MR and binds windows over part of it; QP "peer" uses their
 * rkeys. Each case gets a fresh pair (a refusal puts a pair in error).
 *
 * Checked: a type 1 window (ibv_bind_mw) lets the peer read and write
 * inside it, data compared, and nothing outside it or beyond its rights;
 * rebinding moves it and retires the old key byte; the MR cannot be
 * deregistered while a window is bound to it. A type 2 window (a send
 * WQE, IBV_WR_BIND_MW) serves only the QP it is bound to, and is freed
 * by IBV_WR_LOCAL_INV or by the peer's Send with Invalidate (the receive
 * reports the key). Binds that must fail complete IBV_WC_MW_BIND_ERR: an
 * MR without MW_BIND, a writable window over an MR without LOCAL_WRITE,
 * (while LOCAL_WRITE among a bind's own flags, as UCX and rdma-core's
 * examples pass them, is accepted and grants nothing more),
 * a window outside its MR, a type 2 window bound twice; LOCAL_INV of the
 * MR under a window fails IBV_WC_LOC_QP_OP_ERR.
 *
 *   mw_verify -d DEV -g GID_INDEX        prints KTAP, exits 1 on a failure
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#include "verbs_util.h"

#define BUF		65536
#define WIN_OFF		4096		/* the window: [WIN_OFF, +WIN_LEN) */
#define WIN_LEN		8192
#define WAIT_S		300		/* a safety net, never the thing tested */

struct ctx {
	struct ibv_context *ibv;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	union ibv_gid gid;
	int gid_index;
	uint8_t *mem;			/* own's memory, under mr */
	uint8_t *buf;			/* peer's buffer, under pmr */
	struct ibv_mr *mr, *pmr;
	struct ibv_qp *own, *peer, *other;	/* other: a second peer */
	struct ibv_qp *own2;		/* own's QP facing other */
};

static struct ibv_qp *make_qp(struct ctx *c)
{
	struct ibv_qp_init_attr a = {
		.send_cq = c->cq, .recv_cq = c->cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp *qp = ibv_create_qp(c->pd, &a);

	if (!qp)
		die("ibv_create_qp");
	return qp;
}

static void connect_qp(struct ctx *c, struct ibv_qp *qp, uint32_t dest)
{
	struct vu_rc p;

	vu_rc_path(&p, &c->gid, c->gid_index, dest);
	p.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_MW_BIND;
	vu_rc_connect(qp, &p);
}

/* Fresh QPs: own <-> peer, own2 <-> other */
static void pairs_new(struct ctx *c)
{
	struct ibv_qp **q[] = { &c->own, &c->peer, &c->own2, &c->other };
	unsigned int i;

	for (i = 0; i < 4; i++) {
		if (*q[i])
			ibv_destroy_qp(*q[i]);
		*q[i] = make_qp(c);
	}
	connect_qp(c, c->own, c->peer->qp_num);
	connect_qp(c, c->peer, c->own->qp_num);
	connect_qp(c, c->own2, c->other->qp_num);
	connect_qp(c, c->other, c->own2->qp_num);
}

/* The completion of @wr_id (others are skipped); its status or -1 */
static int wait_wc(struct ctx *c, uint64_t wr_id, struct ibv_wc *out)
{
	time_t end = time(NULL) + WAIT_S;
	struct ibv_wc wc;

	while (time(NULL) < end) {
		int n = ibv_poll_cq(c->cq, 1, &wc);

		if (n < 0)
			return -1;
		if (!n)
			continue;
		if (wc.wr_id == wr_id) {
			if (out)
				*out = wc;
			return wc.status;
		}
	}
	printf("# no completion for %llu\n", (unsigned long long)wr_id);
	return -1;
}

/* @qp reads or writes @len bytes at own's mem + @off with @rkey */
static int rdma(struct ctx *c, struct ibv_qp *qp, int write, uint32_t rkey,
		uint64_t off, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->buf, .length = len, .lkey = c->pmr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 7, .sg_list = &sge, .num_sge = 1,
		.opcode = write ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)c->mem + off,
			     .rkey = rkey },
	}, *bad;

	if (ibv_post_send(qp, &wr, &bad))
		return -1;
	return wait_wc(c, 7, NULL);
}

/* Type 2 bind on own: its status */
static int bind2(struct ctx *c, struct ibv_mw *mw, struct ibv_mr *mr,
		 uint64_t off, uint64_t len, unsigned int access,
		 uint32_t *rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = 8, .opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int st;

	*rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = *rkey;
	wr.bind_mw.bind_info.mr = mr;
	wr.bind_mw.bind_info.addr = (uintptr_t)c->mem + off;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = access;
	if (ibv_post_send(c->own, &wr, &bad))
		return -1;
	st = wait_wc(c, 8, NULL);
	/* the application keeps a type 2 window's key, as for type 1 */
	if (st == IBV_WC_SUCCESS)
		mw->rkey = *rkey;
	return st;
}

/* Type 1 bind on own (ibv_bind_mw): its status */
static int bind1(struct ctx *c, struct ibv_mw *mw, struct ibv_mr *mr,
		 uint64_t off, uint64_t len, unsigned int access)
{
	struct ibv_mw_bind b = {
		.wr_id = 9, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = mr, .addr = (uintptr_t)c->mem + off,
			       .length = len, .mw_access_flags = access },
	};

	if (ibv_bind_mw(c->own, mw, &b))
		return -1;
	return wait_wc(c, 9, NULL);
}

static int check_window(struct ctx *c, uint8_t seed)
{
	int i;

	for (i = 0; i < WIN_LEN; i++)
		if (c->mem[WIN_OFF + i] != (uint8_t)(i * 11 + seed))
			return 0;
	/* and not a byte around it */
	for (i = 0; i < WIN_OFF; i++)
		if (c->mem[i] || c->mem[WIN_OFF + WIN_LEN + i])
			return 0;
	return 1;
}

static void test_type1(struct ctx *c)
{
	struct ibv_mw *mw = ibv_alloc_mw(c->pd, IBV_MW_TYPE_1);
	struct ibv_send_wr inv = {
		.wr_id = 10, .opcode = IBV_WR_LOCAL_INV,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	uint32_t old;
	int i, st;

	ok(mw != NULL, "ibv_alloc_mw type 1");
	if (!mw)
		return;
	pairs_new(c);
	st = bind1(c, mw, c->mr, WIN_OFF, WIN_LEN,
		   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	ok(st == IBV_WC_SUCCESS, "type 1 bound over [4096, +8192) (status %d)",
	   st);
	memset(c->mem, 0, BUF);
	for (i = 0; i < WIN_LEN; i++)
		c->buf[i] = (uint8_t)(i * 11 + 1);
	st = rdma(c, c->peer, 1, mw->rkey, WIN_OFF, WIN_LEN);
	ok(st == IBV_WC_SUCCESS && check_window(c, 1),
	   "the peer writes the whole window, nothing around it (status %d)",
	   st);
	memset(c->buf, 0, WIN_LEN);
	st = rdma(c, c->other, 0, mw->rkey, WIN_OFF, WIN_LEN);
	ok(st == IBV_WC_SUCCESS && !memcmp(c->buf, c->mem + WIN_OFF, WIN_LEN),
	   "another QP of the PD reads it back (type 1), compared (status %d)",
	   st);
	ok(ibv_dereg_mr(c->mr) == EBUSY,
	   "ibv_dereg_mr of the MR under the window fails EBUSY");
	st = rdma(c, c->peer, 0, mw->rkey, WIN_OFF + WIN_LEN - 8, 16);
	ok(st == IBV_WC_REM_ACCESS_ERR,
	   "a READ running 8 bytes past the window fails (status %d)", st);

	/* an MR with a window bound (any user MR) cannot be invalidated */
	pairs_new(c);
	inv.invalidate_rkey = c->mr->rkey;
	st = ibv_post_send(c->own, &inv, &bad) ? -1 : wait_wc(c, 10, NULL);
	ok(st == IBV_WC_LOC_QP_OP_ERR,
	   "IBV_WR_LOCAL_INV of the MR under the window fails (status %d)",
	   st);

	pairs_new(c);
	old = mw->rkey;
	st = bind1(c, mw, c->mr, 0, WIN_OFF, IBV_ACCESS_REMOTE_READ);
	ok(st == IBV_WC_SUCCESS && mw->rkey != old,
	   "rebound, read-only, over [0, +4096), a new key byte (status %d)",
	   st);
	st = rdma(c, c->peer, 0, mw->rkey, 0, WIN_OFF);
	ok(st == IBV_WC_SUCCESS, "READ through the new binding (status %d)",
	   st);
	st = rdma(c, c->peer, 1, mw->rkey, 0, 64);
	ok(st == IBV_WC_REM_ACCESS_ERR,
	   "a WRITE to the read-only window fails (status %d)", st);
	pairs_new(c);
	st = rdma(c, c->peer, 0, old, WIN_OFF, 64);
	ok(st == IBV_WC_REM_ACCESS_ERR,
	   "the old key byte fails (status %d)", st);
	ok(!ibv_dealloc_mw(mw), "ibv_dealloc_mw");
}

/*
 * A bind whose access flags include IBV_ACCESS_LOCAL_WRITE (a window's
 * rights are remote ones; rdma_rxe and hardware accept the local bit and
 * ignore it): both types bind, and the peer writes through the window.
 */
static void test_local_write(struct ctx *c)
{
	const unsigned int acc = IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_REMOTE_WRITE |
				 IBV_ACCESS_REMOTE_READ;
	struct ibv_mw *mw1 = ibv_alloc_mw(c->pd, IBV_MW_TYPE_1);
	struct ibv_mw *mw2 = ibv_alloc_mw(c->pd, IBV_MW_TYPE_2);
	uint32_t rkey;
	int i, st;

	if (!mw1 || !mw2)
		die("ibv_alloc_mw");
	pairs_new(c);
	st = bind1(c, mw1, c->mr, WIN_OFF, WIN_LEN, acc);
	ok(st == IBV_WC_SUCCESS,
	   "type 1 bind with LOCAL_WRITE among its flags (status %d)", st);
	memset(c->mem, 0, BUF);
	for (i = 0; i < WIN_LEN; i++)
		c->buf[i] = (uint8_t)(i * 11 + 5);
	st = st ? st : rdma(c, c->peer, 1, mw1->rkey, WIN_OFF, WIN_LEN);
	ok(st == IBV_WC_SUCCESS && check_window(c, 5),
	   "the peer writes through it, data compared (status %d)", st);
	st = bind1(c, mw1, c->mr, 0, 0, 0);
	ok(st == IBV_WC_SUCCESS, "type 1 unbound (status %d)", st);

	st = bind2(c, mw2, c->mr, WIN_OFF, WIN_LEN, acc, &rkey);
	ok(st == IBV_WC_SUCCESS,
	   "type 2 bind with LOCAL_WRITE among its flags (status %d)", st);
	memset(c->mem, 0, BUF);
	for (i = 0; i < WIN_LEN; i++)
		c->buf[i] = (uint8_t)(i * 11 + 6);
	st = st ? st : rdma(c, c->peer, 1, rkey, WIN_OFF, WIN_LEN);
	ok(st == IBV_WC_SUCCESS && check_window(c, 6),
	   "the peer writes through it, data compared (status %d)", st);
	ok(!ibv_dealloc_mw(mw2) && !ibv_dealloc_mw(mw1),
	   "both windows deallocated");
}

static void test_type2(struct ctx *c)
{
	struct ibv_mw *mw = ibv_alloc_mw(c->pd, IBV_MW_TYPE_2), *mw2;
	struct ibv_send_wr inv = {
		.wr_id = 10, .opcode = IBV_WR_LOCAL_INV,
		.send_flags = IBV_SEND_SIGNALED,
	}, sinv = {
		.wr_id = 11, .opcode = IBV_WR_SEND_WITH_INV,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_sge rs = {
		.addr = (uintptr_t)c->buf + BUF / 2, .length = 64,
		.lkey = c->pmr->lkey,
	};
	struct ibv_recv_wr rwr = { .wr_id = 12, .sg_list = &rs, .num_sge = 1 };
	struct ibv_recv_wr *rbad;
	struct ibv_wc wc;
	uint32_t rkey, qpn;
	int st;

	ok(mw != NULL, "ibv_alloc_mw type 2");
	if (!mw)
		return;
	pairs_new(c);
	st = bind2(c, mw, c->mr, WIN_OFF, WIN_LEN,
		   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE, &rkey);
	ok(st == IBV_WC_SUCCESS, "type 2 bound by IBV_WR_BIND_MW (status %d)",
	   st);
	st = rdma(c, c->peer, 0, rkey, WIN_OFF, WIN_LEN);
	ok(st == IBV_WC_SUCCESS && !memcmp(c->buf, c->mem + WIN_OFF, WIN_LEN),
	   "the QP's peer reads the window (status %d)", st);
	st = rdma(c, c->other, 0, rkey, WIN_OFF, 64);
	ok(st == IBV_WC_REM_ACCESS_ERR,
	   "another QP cannot use a type 2 window (status %d)", st);

	inv.invalidate_rkey = rkey;
	st = ibv_post_send(c->own, &inv, &bad) ? -1 : wait_wc(c, 10, &wc);
	ok(st == IBV_WC_SUCCESS && wc.opcode == IBV_WC_LOCAL_INV,
	   "IBV_WR_LOCAL_INV of the window (status %d)", st);
	st = rdma(c, c->peer, 0, rkey, WIN_OFF, 64);
	ok(st == IBV_WC_REM_ACCESS_ERR,
	   "a READ after LOCAL_INV fails (status %d)", st);

	pairs_new(c);
	st = bind2(c, mw, c->mr, WIN_OFF, WIN_LEN, IBV_ACCESS_REMOTE_READ,
		   &rkey);
	ok(st == IBV_WC_SUCCESS, "bound again (status %d)", st);
	/* own receives the peer's Send with Invalidate of the window */
	sinv.invalidate_rkey = rkey;
	sinv.sg_list = &rs;
	sinv.num_sge = 1;
	if (ibv_post_recv(c->own, &rwr, &rbad) ||
	    ibv_post_send(c->peer, &sinv, &bad))
		st = -1;
	else
		st = wait_wc(c, 12, &wc);
	ok(st == IBV_WC_SUCCESS && (wc.wc_flags & IBV_WC_WITH_INV) &&
	   wc.invalidated_rkey == rkey,
	   "Send with Invalidate of the window: the receive reports the key (status %d)",
	   st);
	ok(wait_wc(c, 11, NULL) == IBV_WC_SUCCESS, "the Send completed");
	st = rdma(c, c->peer, 0, rkey, WIN_OFF, 64);
	ok(st == IBV_WC_REM_ACCESS_ERR,
	   "a READ after the remote invalidation fails (status %d)", st);

	pairs_new(c);
	st = bind2(c, mw, c->mr, WIN_OFF, WIN_LEN, IBV_ACCESS_REMOTE_READ,
		   &rkey);
	ok(st == IBV_WC_SUCCESS, "bound again (status %d)", st);
	st = bind2(c, mw, c->mr, WIN_OFF, WIN_LEN, IBV_ACCESS_REMOTE_READ,
		   &rkey);
	ok(st == IBV_WC_MW_BIND_ERR,
	   "binding a bound type 2 window fails IBV_WC_MW_BIND_ERR (status %d)",
	   st);

	/* its QP destroyed, a new QP with the same number gains nothing */
	mw2 = ibv_alloc_mw(c->pd, IBV_MW_TYPE_2);
	if (!mw2)
		die("ibv_alloc_mw");
	pairs_new(c);
	qpn = c->own->qp_num;
	st = bind2(c, mw2, c->mr, WIN_OFF, WIN_LEN, IBV_ACCESS_REMOTE_READ,
		   &rkey);
	pairs_new(c);
	printf("# QP number %s\n", c->own->qp_num == qpn ? "reused" :
						    "not reused");
	st = st == IBV_WC_SUCCESS ? rdma(c, c->peer, 0, rkey, WIN_OFF, 64) : -1;
	ok(st == IBV_WC_REM_ACCESS_ERR,
	   "a type 2 window of a destroyed QP serves no later QP (status %d)",
	   st);
	ok(!ibv_dealloc_mw(mw2), "its window deallocated");
	ok(!ibv_dealloc_mw(mw), "ibv_dealloc_mw of a bound window");
}

static void test_refused(struct ctx *c)
{
	struct ibv_mr *nobind, *ro;
	struct ibv_mw *mw;
	uint32_t rkey;
	int st;

	nobind = ibv_reg_mr(c->pd, c->mem, BUF, IBV_ACCESS_LOCAL_WRITE);
	ro = ibv_reg_mr(c->pd, c->mem, BUF, IBV_ACCESS_MW_BIND);
	mw = ibv_alloc_mw(c->pd, IBV_MW_TYPE_2);
	if (!nobind || !ro || !mw)
		die("refused: MRs, window");

	pairs_new(c);
	st = bind2(c, mw, nobind, 0, 64, IBV_ACCESS_REMOTE_READ, &rkey);
	ok(st == IBV_WC_MW_BIND_ERR,
	   "bind over an MR without MW_BIND fails (status %d)", st);
	pairs_new(c);
	st = bind2(c, mw, ro, 0, 64, IBV_ACCESS_REMOTE_WRITE, &rkey);
	ok(st == IBV_WC_MW_BIND_ERR,
	   "a writable window over an MR without LOCAL_WRITE fails (status %d)",
	   st);
	pairs_new(c);
	st = bind2(c, mw, c->mr, BUF - 64, 128, IBV_ACCESS_REMOTE_READ,
		   &rkey);
	ok(st == IBV_WC_MW_BIND_ERR,
	   "a window running past its MR fails (status %d)", st);
	ok(!ibv_dealloc_mw(mw) && !ibv_dereg_mr(nobind) && !ibv_dereg_mr(ro),
	   "windows and MRs released");
}

int main(int argc, char **argv)
{
	struct ibv_device_attr_ex attr;
	const char *dev = NULL;
	struct ctx c = {};
	int opt;

	while ((opt = getopt(argc, argv, "d:g:")) != -1) {
		if (opt == 'd')
			dev = optarg;
		else if (opt == 'g')
			c.gid_index = atoi(optarg);
		else
			return 2;
	}
	printf("KTAP version 1\n");
	c.ibv = vu_open(dev);
	vu_query_gid(c.ibv, c.gid_index, &c.gid);
	ok(!ibv_query_device_ex(c.ibv, NULL, &attr) &&
	   (attr.orig_attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW) &&
	   (attr.orig_attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B),
	   "the device offers memory windows, type 2B too");
	c.pd = ibv_alloc_pd(c.ibv);
	c.cq = ibv_create_cq(c.ibv, 256, NULL, NULL, 0);
	c.mem = calloc(1, BUF);
	c.buf = calloc(1, BUF);
	if (!c.pd || !c.cq || !c.mem || !c.buf)
		die("pd / cq / buffers");
	c.mr = ibv_reg_mr(c.pd, c.mem, BUF, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_MW_BIND);
	c.pmr = ibv_reg_mr(c.pd, c.buf, BUF, IBV_ACCESS_LOCAL_WRITE);
	if (!c.mr || !c.pmr)
		die("ibv_reg_mr");

	test_type1(&c);
	test_type2(&c);
	test_local_write(&c);
	test_refused(&c);
	ok(!ibv_dereg_mr(c.mr), "ibv_dereg_mr once no window is bound");

	return ktap_done();
}
