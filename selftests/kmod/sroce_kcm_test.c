// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel rdma_cm test: how NVMe-oF, NFS/RDMA and every other in-kernel
 * ULP connect. At load, on the device bound to the address "ip", one
 * cm_id listens on "port" and another connects to it through
 * rdma_resolve_addr(), rdma_resolve_route() and rdma_connect(): the CM's
 * MADs go through the device's GSI QP, looped back through the host's
 * stack. Once both sides are established the client sends a message, the
 * server checks it byte for byte and sends it back inverted, the client
 * checks that; then the client disconnects, the server answers, and both
 * sides must see RDMA_CM_EVENT_DISCONNECTED. A connect to a port nobody listens on must
 * be rejected. Prints KTAP lines prefixed "sroce_kcm_test:" and fails to
 * load (-EIO) if any check failed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "ktest.h"

static char *ip = "10.0.0.1";
module_param(ip, charp, 0444);
MODULE_PARM_DESC(ip, "IPv4 address of the RDMA device to use");
static int port = 7480;
module_param(port, int, 0444);
MODULE_PARM_DESC(port, "port to listen on");

#define MSG_LEN		4096
#define TIMEOUT_MS	180000	/* a safety net, not the thing tested */

/* One side of the connection. */
struct kc_end {
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	u8 *buf;		/* [0, MSG_LEN): send, [MSG_LEN, 2x): recv */
	u64 dma;
	struct completion established;
	struct completion disconnected;
	int error;		/* an unexpected event */
};

struct kc {
	struct kc_end srv, cli;
	struct rdma_cm_id *listen;
	struct completion resolved;	/* client: addr, then route */
	struct completion rejected;
	int resolve_status;
	struct ktest tap;
};

static struct kc *kc;

static void kc_ok(bool cond, const char *what)
{
	ktest_ok(&kc->tap, cond, what);
}

static int kc_end_setup(struct kc_end *e, struct rdma_cm_id *id)
{
	struct ib_qp_init_attr qa = {};
	struct ib_recv_wr wr = {};
	struct ib_sge sge;
	int err;

	e->id = id;
	e->pd = ib_alloc_pd(id->device, 0);
	if (IS_ERR(e->pd))
		return PTR_ERR(e->pd);
	e->cq = ib_alloc_cq(id->device, NULL, 8, 0, IB_POLL_DIRECT);
	if (IS_ERR(e->cq))
		return PTR_ERR(e->cq);
	qa.send_cq = e->cq;
	qa.recv_cq = e->cq;
	qa.qp_type = IB_QPT_RC;
	qa.sq_sig_type = IB_SIGNAL_ALL_WR;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	err = rdma_create_qp(id, e->pd, &qa);
	if (err)
		return err;
	e->dma = ib_dma_map_single(id->device, e->buf, 2 * MSG_LEN,
				   DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(id->device, e->dma))
		return -ENOMEM;
	sge.addr = e->dma + MSG_LEN;
	sge.length = MSG_LEN;
	sge.lkey = e->pd->local_dma_lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ib_post_recv(id->qp, &wr, NULL);
}

static void kc_end_teardown(struct kc_end *e)
{
	if (e->id && e->id->qp)
		rdma_destroy_qp(e->id);
	if (e->dma)
		ib_dma_unmap_single(e->id->device, e->dma, 2 * MSG_LEN,
				    DMA_BIDIRECTIONAL);
	if (!IS_ERR_OR_NULL(e->cq))
		ib_free_cq(e->cq);
	if (!IS_ERR_OR_NULL(e->pd))
		ib_dealloc_pd(e->pd);
	if (e->id)
		rdma_destroy_id(e->id);
}

static int kc_server_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rdma_conn_param param = {};

	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (kc->srv.id)
			return -EBUSY;		/* rejects; the core frees id */
		if (kc_end_setup(&kc->srv, id)) {
			kc->srv.error = 1;
			kc->srv.id = NULL;	/* the core destroys id */
			return -ENOMEM;
		}
		param.responder_resources = 1;
		param.initiator_depth = 1;
		if (rdma_accept(id, &param))
			kc->srv.error = 1;
		return 0;
	case RDMA_CM_EVENT_ESTABLISHED:
		complete(&kc->srv.established);
		return 0;
	case RDMA_CM_EVENT_DISCONNECTED:
		complete(&kc->srv.disconnected);
		return 0;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return 0;
	default:
		pr_info("# server: event %s, status %d\n",
			rdma_event_msg(ev->event), ev->status);
		kc->srv.error = 1;
		return 0;
	}
}

static int kc_client_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		kc->resolve_status = 0;
		complete(&kc->resolved);
		return 0;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		kc->resolve_status = ev->status ? ev->status : -EIO;
		complete(&kc->resolved);
		return 0;
	case RDMA_CM_EVENT_ESTABLISHED:
		complete(&kc->cli.established);
		return 0;
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
		complete(&kc->rejected);
		return 0;
	case RDMA_CM_EVENT_DISCONNECTED:
		complete(&kc->cli.disconnected);
		return 0;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return 0;
	default:
		pr_info("# client: event %s, status %d\n",
			rdma_event_msg(ev->event), ev->status);
		kc->cli.error = 1;
		return 0;
	}
}

/* Resolve address and route of @id to @dst; 0 or an error. */
static int kc_resolve(struct rdma_cm_id *id, struct sockaddr_in *dst)
{
	int err;

	reinit_completion(&kc->resolved);
	err = rdma_resolve_addr(id, NULL, (struct sockaddr *)dst, TIMEOUT_MS);
	if (err)
		return err;
	if (!wait_for_completion_timeout(&kc->resolved,
					 msecs_to_jiffies(2 * TIMEOUT_MS)))
		return -ETIMEDOUT;
	if (kc->resolve_status)
		return kc->resolve_status;
	reinit_completion(&kc->resolved);
	err = rdma_resolve_route(id, TIMEOUT_MS);
	if (err)
		return err;
	if (!wait_for_completion_timeout(&kc->resolved,
					 msecs_to_jiffies(2 * TIMEOUT_MS)))
		return -ETIMEDOUT;
	return kc->resolve_status;
}

/* Wait for one completion on @e's CQ; its status, or -ETIMEDOUT. */
static int kc_poll(struct kc_end *e, struct ib_wc *wc)
{
	unsigned long end = jiffies + msecs_to_jiffies(TIMEOUT_MS);

	while (time_before(jiffies, end)) {
		if (ib_poll_cq(e->cq, 1, wc) == 1)
			return wc->status;
		usleep_range(1000, 2000);
	}
	return -ETIMEDOUT;
}

/* Send @e's first MSG_LEN bytes; 0 once the send completed. */
static int kc_send(struct kc_end *e)
{
	struct ib_send_wr wr = {};
	struct ib_sge sge;
	struct ib_wc wc;
	int err;

	sge.addr = e->dma;
	sge.length = MSG_LEN;
	sge.lkey = e->pd->local_dma_lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;
	ib_dma_sync_single_for_device(e->id->device, e->dma, MSG_LEN,
				      DMA_TO_DEVICE);
	err = ib_post_send(e->id->qp, &wr, NULL);
	if (err)
		return err;
	err = kc_poll(e, &wc);
	return err ? err : (wc.opcode == IB_WC_SEND ? 0 : -EIO);
}

/* Wait for @e's receive; 0 if MSG_LEN bytes came. */
static int kc_recv(struct kc_end *e)
{
	struct ib_wc wc;
	int err;

	err = kc_poll(e, &wc);
	if (err)
		return err;
	ib_dma_sync_single_for_cpu(e->id->device, e->dma + MSG_LEN, MSG_LEN,
				   DMA_FROM_DEVICE);
	return wc.opcode == IB_WC_RECV && wc.byte_len == MSG_LEN ? 0 : -EIO;
}

static bool kc_wait(struct completion *c)
{
	return wait_for_completion_timeout(c, msecs_to_jiffies(TIMEOUT_MS));
}

static void kc_run(void)
{
	struct rdma_conn_param param = {};
	struct sockaddr_in addr = { .sin_family = AF_INET };
	struct rdma_cm_id *id;
	bool same = true;
	int err, i;

	if (!in4_pton(ip, -1, (u8 *)&addr.sin_addr.s_addr, -1, NULL)) {
		kc_ok(false, "the ip parameter is an IPv4 address");
		return;
	}

	/* Server: listen on ip:port */
	id = rdma_create_id(&init_net, kc_server_handler, kc, RDMA_PS_TCP,
			    IB_QPT_RC);
	kc_ok(!IS_ERR(id), "listener: rdma_create_id");
	if (IS_ERR(id))
		return;
	kc->listen = id;
	addr.sin_port = htons(port);
	err = rdma_bind_addr(id, (struct sockaddr *)&addr);
	kc_ok(!err, "listener: rdma_bind_addr to the device's address");
	err = err ? err : rdma_listen(id, 4);
	kc_ok(!err, "listener: rdma_listen");
	if (err)
		return;
	kc_ok(id->device && !strncmp(dev_name(&id->device->dev), "sroce", 5),
	      "listener bound to the sroce device");

	/* Client: resolve and connect */
	id = rdma_create_id(&init_net, kc_client_handler, kc, RDMA_PS_TCP,
			    IB_QPT_RC);
	kc_ok(!IS_ERR(id), "client: rdma_create_id");
	if (IS_ERR(id))
		return;
	kc->cli.id = id;
	err = kc_resolve(id, &addr);
	kc_ok(!err, "client: address and route resolved");
	if (err) {
		pr_info("# resolve: %d\n", err);
		return;
	}
	err = kc_end_setup(&kc->cli, id);
	kc_ok(!err, "client: PD, CQ, QP, receive posted");
	if (err)
		return;
	param.responder_resources = 1;
	param.initiator_depth = 1;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	err = rdma_connect(id, &param);
	kc_ok(!err, "client: rdma_connect");
	if (err)
		return;
	kc_ok(kc_wait(&kc->cli.established) && !kc->cli.error,
	      "client: RDMA_CM_EVENT_ESTABLISHED");
	kc_ok(kc_wait(&kc->srv.established) && !kc->srv.error,
	      "server: connect request accepted, ESTABLISHED");
	if (!kc->srv.id || kc->srv.error || kc->cli.error)
		return;

	/* Data both ways, compared byte for byte */
	for (i = 0; i < MSG_LEN; i++)
		kc->cli.buf[i] = (u8)(i * 7 + 3);
	kc_ok(!kc_send(&kc->cli), "client: send 4 KiB completes");
	kc_ok(!kc_recv(&kc->srv), "server: 4 KiB received");
	for (i = 0; i < MSG_LEN; i++) {
		same &= kc->srv.buf[MSG_LEN + i] == (u8)(i * 7 + 3);
		kc->srv.buf[i] = ~kc->srv.buf[MSG_LEN + i];
	}
	kc_ok(same, "server: the data is the client's, byte for byte");
	kc_ok(!kc_send(&kc->srv), "server: send back completes");
	kc_ok(!kc_recv(&kc->cli), "client: reply received");
	same = true;
	for (i = 0; i < MSG_LEN; i++)
		same &= kc->cli.buf[MSG_LEN + i] == (u8)~(i * 7 + 3);
	kc_ok(same, "client: the reply is the data inverted");

	/* DREQ, then the server's DREP as a ULP answers DISCONNECTED */
	kc_ok(!rdma_disconnect(kc->cli.id), "client: rdma_disconnect");
	kc_ok(kc_wait(&kc->srv.disconnected), "server: DISCONNECTED");
	kc_ok(!rdma_disconnect(kc->srv.id), "server: rdma_disconnect");
	kc_ok(kc_wait(&kc->cli.disconnected), "client: DISCONNECTED");
}

/* A connect to a port with no listener is rejected, not left hanging. */
static void kc_run_reject(void)
{
	struct rdma_conn_param param = {};
	struct sockaddr_in addr = { .sin_family = AF_INET };
	struct kc_end e = {};
	int err;

	in4_pton(ip, -1, (u8 *)&addr.sin_addr.s_addr, -1, NULL);
	addr.sin_port = htons(port + 1);
	reinit_completion(&kc->rejected);
	e.buf = kc->cli.buf;
	e.id = rdma_create_id(&init_net, kc_client_handler, kc, RDMA_PS_TCP,
			      IB_QPT_RC);
	if (IS_ERR(e.id)) {
		kc_ok(false, "reject: rdma_create_id");
		return;
	}
	err = kc_resolve(e.id, &addr);
	err = err ? err : kc_end_setup(&e, e.id);
	err = err ? err : rdma_connect(e.id, &param);
	kc_ok(!err && kc_wait(&kc->rejected),
	      "connect to a port with no listener: REJECTED");
	kc_end_teardown(&e);
}

static int __init kc_init(void)
{
	int failed;

	kc = kzalloc(sizeof(*kc), GFP_KERNEL);
	if (!kc)
		return -ENOMEM;
	kc->srv.buf = kzalloc(2 * MSG_LEN, GFP_KERNEL);
	kc->cli.buf = kzalloc(2 * MSG_LEN, GFP_KERNEL);
	if (!kc->srv.buf || !kc->cli.buf) {
		kfree(kc->srv.buf);
		kfree(kc->cli.buf);
		kfree(kc);
		return -ENOMEM;
	}
	init_completion(&kc->resolved);
	init_completion(&kc->rejected);
	init_completion(&kc->srv.established);
	init_completion(&kc->srv.disconnected);
	init_completion(&kc->cli.established);
	init_completion(&kc->cli.disconnected);

	kc_run();
	/* Client first: its teardown ends the connection for the server */
	kc_end_teardown(&kc->cli);
	kc->cli.id = NULL;
	if (kc->listen)
		rdma_destroy_id(kc->listen);	/* waits for the handlers */
	kc_end_teardown(&kc->srv);
	if (!kc->tap.failed)
		kc_run_reject();
	pr_info("1..%d\n", kc->tap.n);

	failed = kc->tap.failed;
	kfree(kc->srv.buf);
	kfree(kc->cli.buf);
	kfree(kc);
	return failed ? -EIO : 0;
}

static void __exit kc_exit(void)
{
}

module_init(kc_init);
module_exit(kc_exit);
MODULE_DESCRIPTION("sroce selftest: kernel rdma_cm connection");
MODULE_LICENSE("GPL");
