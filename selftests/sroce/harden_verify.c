// SPDX-License-Identifier: GPL-2.0-only
/*
 * harden_verify: verbs that standard programs use and that sroce once
 * refused or let through, through the stock rxe provider, and a UD
 * receiver for forged datagrams.
 *
 *   harden_verify -d DEV -g GID_INDEX verbs
 *	A flow label of ~0 (what UCX passes) is taken by create_ah and by
 *	modify_qp to RTR, and the QP then carries a message to itself,
 *	data compared; a Send doorbell (ibv_wr_complete) on a UD QP in
 *	RESET fails with EINVAL; a destroyed QP's number is not the next
 *	one given. ATOMIC WRITE (IBA 1.5, ibv_wr_atomic_write) between two
 *	RC QPs of the device: the device reports it, two of them store
 *	their 8 bytes in turn (the bytes around untouched) and complete as
 *	IBV_WC_ATOMIC_WRITE; a misaligned one fails the QP with a remote
 *	invalid request error, one to an MR without REMOTE_WRITE with a
 *	remote access error, and neither stores anything.
 *   harden_verify -d DEV -g GID_INDEX -f FILE -w FILE ud
 *	A UD QP (Q_Key 0x11111111) writes "QPN" to -f, then waits until
 *	-w exists, then sends one datagram to itself through the device's
 *	own address (delivered inside the host) and checks that exactly two
 *	datagrams arrived, in order: one of bytes 0x5a (the unicast one
 *	forged by the peer, the control) and its own. Everything else the
 *	test forges (broadcast, group and loopback datagrams) must not
 *	arrive.
 *
 * Prints KTAP; exits 1 on a failure.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "verbs_util.h"

#define QKEY		0x11111111
#define MSG		64
#define GRH		40
#define WAIT_S		300		/* a safety net, never the thing tested */

struct ctx {
	struct ibv_context *ibv;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	union ibv_gid gid;
	int gid_index;
	uint8_t *buf;
	struct ibv_mr *mr;
};

/* The next completion, or -1 after WAIT_S */
static int wait_wc(struct ctx *c, struct ibv_wc *wc)
{
	return vu_wait_wc(c->cq, WAIT_S, wc);
}

static struct ibv_qp *make_qp(struct ctx *c, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr a = {
		.send_cq = c->cq, .recv_cq = c->cq,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = type,
	};
	struct ibv_qp *qp = ibv_create_qp(c->pd, &a);

	if (!qp)
		die("ibv_create_qp");
	return qp;
}

static void ah_attr(struct ctx *c, struct ibv_ah_attr *ah, uint32_t flow)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->grh.dgid = c->gid;
	ah->grh.sgid_index = c->gid_index;
	ah->grh.hop_limit = 64;
	ah->grh.traffic_class = 106;	/* DSCP 26, ECT(0): as UCX */
	ah->grh.flow_label = flow;
	ah->port_num = 1;
}

static int post_recv(struct ctx *c, struct ibv_qp *qp, uint64_t id,
		     uint32_t off, uint32_t len)
{
	struct ibv_sge s = {
		.addr = (uintptr_t)c->buf + off, .length = len,
		.lkey = c->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &s, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

static void ud_ready(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = QKEY,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		die("UD INIT");
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		die("UD RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("UD RTS");
}

/* An RC QP of the new post API with @ops, in INIT */
static struct ibv_qp *rc_new(struct ctx *c, uint64_t ops, int access)
{
	struct ibv_qp_init_attr_ex x = {
		.send_cq = c->cq, .recv_cq = c->cq,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = c->pd,
		.send_ops_flags = ops,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(c->ibv, &x);

	if (!qp)
		die("ibv_create_qp_ex (RC)");
	if (vu_rc_init(qp, access))
		die("RC INIT");
	return qp;
}

/*
 * Connect @qp to QP number @dest of this device through a path with
 * flow label @flow: the error of the move to RTR, 0 once in RTS
 */
static int rc_connect(struct ctx *c, struct ibv_qp *qp, uint32_t dest,
		      uint32_t flow)
{
	struct ibv_ah_attr ah;
	struct vu_rc p;
	int rc;

	/* the path ah_attr() gives a UD send */
	ah_attr(c, &ah, flow);
	vu_rc_path(&p, &ah.grh.dgid, ah.grh.sgid_index, dest);
	p.hop_limit = ah.grh.hop_limit;
	p.traffic_class = ah.grh.traffic_class;
	p.flow_label = ah.grh.flow_label;
	p.rd_atomic = 4;
	rc = vu_rc_rtr(qp, &p);
	if (rc)
		return rc;
	if (vu_rc_rts(qp, &p))
		die("RC RTS");
	return 0;
}

/*
 * Two such QPs connected to each other (a QP connected to itself would
 * flush its own WQE when its responder side fails): *@qa sends, *@qb
 * answers.
 */
static void rc_pair(struct ctx *c, uint64_t ops, int access,
		    struct ibv_qp **qa, struct ibv_qp **qb)
{
	*qa = rc_new(c, ops, access);
	*qb = rc_new(c, ops, access);
	if (rc_connect(c, *qa, (*qb)->qp_num, 0) ||
	    rc_connect(c, *qb, (*qa)->qp_num, 0))
		die("RC RTR");
}

/* Flow label ~0 taken; an RC QP connected to itself moves a message. */
static void test_flow_label(struct ctx *c)
{
	struct ibv_qp *qp = rc_new(c, IBV_QP_EX_WITH_SEND,
				   IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge s = {
		.addr = (uintptr_t)c->buf, .length = MSG, .lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 2, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_ah_attr ah;
	struct ibv_wc wc;
	struct ibv_ah *h;
	int i, rc, got = 0, good = 1;

	ah_attr(c, &ah, 0xffffffff);
	h = ibv_create_ah(c->pd, &ah);
	ok(h != NULL, "create_ah with flow label 0xffffffff, traffic class 106 (%s)",
	   h ? "ok" : strerror(errno));
	if (h)
		ibv_destroy_ah(h);

	rc = rc_connect(c, qp, qp->qp_num, 0xffffffff);
	ok(!rc, "modify_qp to RTR with flow label 0xffffffff (%s)",
	   rc ? strerror(rc) : "ok");
	if (rc)
		goto out;
	for (i = 0; i < MSG; i++) {
		c->buf[i] = (uint8_t)(i * 7 + 3);
		c->buf[4096 + i] = 0;
	}
	if (post_recv(c, qp, 1, 4096, MSG) || ibv_post_send(qp, &wr, &bad))
		die("post");
	while (got < 2 && !wait_wc(c, &wc)) {
		good &= wc.status == IBV_WC_SUCCESS;
		got++;
	}
	ok(got == 2 && good && !memcmp(c->buf, c->buf + 4096, MSG),
	   "and the QP sends itself %d bytes, data compared", MSG);
out:
	ibv_destroy_qp(qp);
}

/* Post one ATOMIC WRITE of @v to @addr under @rkey; its completion */
static int atomic_write(struct ctx *c, struct ibv_qp *qp, uint32_t rkey,
			uint64_t addr, uint64_t v, struct ibv_wc *wc)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp);
	int rc;

	ibv_wr_start(qx);
	qx->wr_id = v;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qx, rkey, addr, &v);
	rc = ibv_wr_complete(qx);
	if (rc) {
		errno = rc;
		die("ibv_wr_complete (ATOMIC WRITE)");
	}
	return wait_wc(c, wc);
}

/* The 8 bytes at @p: @v, with the 8 on each side still @fill */
static int cell_is(const uint8_t *p, uint64_t v, uint8_t fill)
{
	int i;

	for (i = 1; i <= 8; i++)
		if (p[-i] != fill || p[7 + i] != fill)
			return 0;
	return !memcmp(p, &v, 8);
}

static void test_atomic_write(struct ctx *c)
{
	const uint64_t ops = IBV_QP_EX_WITH_ATOMIC_WRITE |
			     IBV_QP_EX_WITH_SEND;
	struct ibv_device_attr_ex dx;
	struct ibv_mr *w, *noaccess;
	uint8_t *t = c->buf + 12288;	/* 8-aligned: calloc'd */
	uint64_t v1 = 0x0123456789abcdefULL, v2 = 0xfedcba9876543210ULL;
	struct ibv_qp *qp, *qb;
	struct ibv_wc wc;
	int rc;

	rc = ibv_query_device_ex(c->ibv, NULL, &dx);
	ok(!rc && (dx.device_cap_flags_ex & (1ULL << 40)),
	   "device reports ATOMIC WRITE (device_cap_flags_ex bit 40)");
	memset(t, 0xa5, 64);
	w = ibv_reg_mr(c->pd, t, 64, IBV_ACCESS_LOCAL_WRITE |
		       IBV_ACCESS_REMOTE_WRITE);
	noaccess = ibv_reg_mr(c->pd, t, 64, IBV_ACCESS_LOCAL_WRITE |
			      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!w || !noaccess)
		die("ibv_reg_mr (ATOMIC WRITE target)");

	/* a QP with REMOTE_WRITE only: ATOMIC WRITE needs no more */
	rc_pair(c, ops, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, &qp,
		&qb);
	rc = atomic_write(c, qp, w->rkey, (uintptr_t)t + 16, v1, &wc);
	ok(!rc && wc.status == IBV_WC_SUCCESS &&
	   wc.opcode == IBV_WC_ATOMIC_WRITE && wc.wr_id == v1 &&
	   cell_is(t + 16, v1, 0xa5),
	   "ATOMIC WRITE stores its 8 bytes, completes as ATOMIC_WRITE (status %d opcode %d)",
	   rc ? -1 : (int)wc.status, rc ? -1 : (int)wc.opcode);
	rc = atomic_write(c, qp, w->rkey, (uintptr_t)t + 16, v2, &wc);
	ok(!rc && wc.status == IBV_WC_SUCCESS && cell_is(t + 16, v2, 0xa5),
	   "a second ATOMIC WRITE to the same place replaces it");
	rc = atomic_write(c, qp, w->rkey, (uintptr_t)t + 36, v1, &wc);
	ok(!rc && wc.status == IBV_WC_REM_INV_REQ_ERR &&
	   cell_is(t + 16, v2, 0xa5) && t[36] == 0xa5 && t[43] == 0xa5,
	   "a misaligned ATOMIC WRITE fails, remote invalid request (status %d), stores nothing",
	   rc ? -1 : (int)wc.status);
	ibv_destroy_qp(qp);
	ibv_destroy_qp(qb);

	rc_pair(c, ops, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, &qp,
		&qb);
	rc = atomic_write(c, qp, noaccess->rkey, (uintptr_t)t + 40, v1, &wc);
	ok(!rc && wc.status == IBV_WC_REM_ACCESS_ERR && t[40] == 0xa5 &&
	   t[47] == 0xa5,
	   "an ATOMIC WRITE to an MR without REMOTE_WRITE fails, remote access (status %d)",
	   rc ? -1 : (int)wc.status);
	ibv_destroy_qp(qp);
	ibv_destroy_qp(qb);
	ibv_dereg_mr(noaccess);
	ibv_dereg_mr(w);
}

/* A Send doorbell on a QP in RESET, through the new post API */
static void test_reset_doorbell(struct ctx *c)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = c->cq, .recv_cq = c->cq,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = c->pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct ibv_qp_attr m = { .qp_state = IBV_QPS_RESET };
	struct ibv_ah_attr ah;
	struct ibv_qp_ex *qx;
	struct ibv_ah *h;
	struct ibv_qp *qp;
	int rc;

	qp = ibv_create_qp_ex(c->ibv, &a);
	if (!qp)
		die("ibv_create_qp_ex");
	qx = ibv_qp_to_qp_ex(qp);
	ah_attr(c, &ah, 0);
	h = ibv_create_ah(c->pd, &ah);
	if (!h)
		die("ibv_create_ah");
	ud_ready(qp);
	if (ibv_modify_qp(qp, &m, IBV_QP_STATE))
		die("modify RESET");
	ibv_wr_start(qx);
	qx->wr_id = 3;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qx);
	ibv_wr_set_ud_addr(qx, h, qp->qp_num, QKEY);
	ibv_wr_set_sge(qx, c->mr->lkey, (uintptr_t)c->buf, MSG);
	rc = ibv_wr_complete(qx);
	ok(rc == EINVAL, "Send doorbell on a UD QP in RESET fails with EINVAL (%d: %s)",
	   rc, strerror(rc));
	ibv_destroy_ah(h);
	ibv_destroy_qp(qp);
}

/* A destroyed QP's number does not come back at once */
static void test_qpn_cyclic(struct ctx *c)
{
	struct ibv_qp *qp = make_qp(c, IBV_QPT_RC);
	uint32_t first = qp->qp_num;
	int again = 0, i;

	for (i = 0; i < 4; i++) {
		ibv_destroy_qp(qp);
		qp = make_qp(c, IBV_QPT_RC);
		again |= qp->qp_num == first;
	}
	ok(!again, "QP numbers: %u destroyed, the next four are others (last %u)",
	   first, qp->qp_num);
	ibv_destroy_qp(qp);
}

/* The UD receiver of the forged datagrams (see the header) */
static void test_ud(struct ctx *c, const char *info, const char *go)
{
	struct ibv_qp *qp = make_qp(c, IBV_QPT_UD);
	struct ibv_sge s = {
		.addr = (uintptr_t)c->buf + 8192, .length = MSG,
		.lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 100, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_ah_attr ah;
	time_t end = time(NULL) + WAIT_S;
	int i, n, recv = 0, sent = 0, order_ok = 1;
	uint8_t first[MSG], second[MSG];
	struct ibv_wc wc;
	struct ibv_ah *h;
	FILE *f;

	ud_ready(qp);
	for (i = 0; i < 8; i++)
		if (post_recv(c, qp, i, i * 256, GRH + MSG))
			die("post_recv");
	f = fopen(info, "w");
	if (!f)
		die(info);
	fprintf(f, "%u\n", qp->qp_num);
	fclose(f);
	while (access(go, F_OK) && time(NULL) < end)
		usleep(100000);
	ok(!access(go, F_OK), "the peer and a local process forged");

	ah_attr(c, &ah, 0);
	h = ibv_create_ah(c->pd, &ah);
	if (!h)
		die("ibv_create_ah");
	for (i = 0; i < MSG; i++)
		c->buf[8192 + i] = (uint8_t)(i + 1);
	wr.wr.ud.ah = h;
	wr.wr.ud.remote_qpn = qp->qp_num;
	wr.wr.ud.remote_qkey = QKEY;
	if (ibv_post_send(qp, &wr, &bad))
		die("ibv_post_send");
	/* Our own datagram is the last to come: what came before is there */
	while (time(NULL) < end && (!sent || recv < 2)) {
		n = ibv_poll_cq(c->cq, 1, &wc);
		if (n < 0)
			die("ibv_poll_cq");
		if (!n)
			continue;
		if (wc.wr_id == 100) {
			sent = wc.status == IBV_WC_SUCCESS ? 1 : -1;
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS || wc.byte_len != GRH + MSG) {
			order_ok = 0;
			continue;
		}
		memcpy(recv ? second : first, c->buf + wc.wr_id * 256 + GRH,
		       MSG);
		order_ok &= wc.wr_id == (uint64_t)recv;
		if (++recv == 2)
			break;
	}
	usleep(500000);		/* anything more, forged late, shows here */
	while ((n = ibv_poll_cq(c->cq, 1, &wc)) > 0)
		if (wc.wr_id != 100)
			recv++;
	ok(sent == 1, "own datagram to own address sent");
	ok(recv == 2, "exactly two datagrams received (got %d)", recv);
	for (i = 0; recv == 2 && i < MSG; i++)
		order_ok &= first[i] == 0x5a && second[i] == (uint8_t)(i + 1);
	ok(recv == 2 && order_ok,
	   "the forged unicast control, then our own, data compared");
	ibv_destroy_ah(h);
	ibv_destroy_qp(qp);
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *info = NULL, *go = NULL;
	struct ctx c = { .gid_index = 1 };
	int opt;

	while ((opt = getopt(argc, argv, "d:g:f:w:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'g': c.gid_index = atoi(optarg); break;
		case 'f': info = optarg; break;
		case 'w': go = optarg; break;
		default: return 2;
		}
	}
	if (!dev || optind != argc - 1 ||
	    (!strcmp(argv[optind], "ud") && (!info || !go))) {
		fprintf(stderr, "usage: harden_verify -d DEV [-g N] [-f INFO -w GO] verbs|ud\n");
		return 2;
	}
	c.ibv = vu_open(dev);
	c.pd = ibv_alloc_pd(c.ibv);
	c.cq = ibv_create_cq(c.ibv, 64, NULL, NULL, 0);
	c.buf = calloc(1, 16384);
	if (!c.pd || !c.cq || !c.buf)
		die("setup");
	c.mr = ibv_reg_mr(c.pd, c.buf, 16384, IBV_ACCESS_LOCAL_WRITE);
	if (!c.mr)
		die("ibv_reg_mr");
	vu_query_gid(c.ibv, c.gid_index, &c.gid);

	if (!strcmp(argv[optind], "ud")) {
		test_ud(&c, info, go);
	} else {
		test_flow_label(&c);
		test_reset_doorbell(&c);
		test_qpn_cyclic(&c);
		test_atomic_write(&c);
	}
	return ktap_done();
}
