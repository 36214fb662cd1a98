// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel-verbs test: what an in-kernel ULP does with an sroce device.
 *
 * At load it takes the device named by "dev", creates a PD (with the
 * unsafe global rkey, so kernel memory is remotely addressable), a CQ and
 * two RC QPs connected to each other through the device's own IPv4 GID,
 * and moves data with ib_post_send()/ib_post_recv(): Send, Send with
 * immediate, RDMA Write and RDMA Read, a post from a context with
 * interrupts disabled, and a flush by ib_drain_qp(). A second pair of QPs
 * overflows a one-entry CQ, whose IB_EVENT_CQ_ERR handler must run in
 * process context; work requests with a total length over 2 GiB, a
 * negative SGE count, or inline SGE lengths whose sum wraps 32 bits are
 * refused by ib_post_send() before anything is copied. A third pair
 * receives through an SRQ posted with ib_post_srq_recv(). SRQs and PDs
 * are created until the device refuses one, which must happen exactly
 * at the limits query_device reports. Buffers are kmalloc()
 * memory addressed by kernel virtual address, as virtual DMA devices
 * expect. It prints KTAP lines prefixed "sroce_kverbs_test:" and fails to
 * load (-EIO) if any check failed, so "insmod" itself reports the result.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>

#include "ktest.h"

static char *dev = "sroce0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "RDMA device to test");

#define BUF_LEN		(256 * 1024)
#define KT_SRQ_MAX	8	/* receives kt_srq() posts at most */
/*
 * How long to wait for a completion or an event: a safety net, never
 * the thing tested. A KASAN guest on a busy 2-core host can take tens
 * of seconds to loop a packet back.
 */
#define KT_WAIT		(180 * HZ)

struct kt {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_cq *small_cq;		/* one entry, for the overflow */
	struct ib_qp *qp[6];		/* 0-1, 2-3, 4-5 connected */
	struct ib_srq *srq;		/* qp[4] receives from it */
	u8 *buf[2];
	int gid_index;
	union ib_gid gid;
	struct ktest tap;
	struct completion cq_err;
	atomic_t cq_err_events;
	bool cq_err_in_task;
};

/* QP @me to QP @peer of the same device; PSNs say which is which */
static int kt_connect(struct kt *t, int me, int peer)
{
	return ktest_rc_connect(t->qp[me], t->qp[peer]->qp_num, &t->gid,
				t->gid_index, IB_ACCESS_REMOTE_WRITE |
				IB_ACCESS_REMOTE_READ | IB_ACCESS_LOCAL_WRITE,
				100 * (me + 1), 100 * (peer + 1));
}

/* Poll for @n completions, all successful. */
static bool kt_poll(struct kt *t, int n, struct ib_wc *wc)
{
	unsigned long end = jiffies + KT_WAIT;
	int got = 0;

	while (got < n && time_before(jiffies, end)) {
		int r = ib_poll_cq(t->cq, n - got, wc + got);

		if (r < 0)
			return false;
		got += r;
		if (!r)
			usleep_range(500, 1000);
	}
	if (got != n) {
		pr_info("# %d of %d completions\n", got, n);
		return false;
	}
	while (got--)
		if (wc[got].status != IB_WC_SUCCESS) {
			pr_info("# completion status %d\n", wc[got].status);
			return false;
		}
	return true;
}

static struct ib_sge kt_sge(struct kt *t, int i, u32 off, u32 len)
{
	return (struct ib_sge){
		.addr = (u64)(uintptr_t)(t->buf[i] + off),
		.length = len,
		.lkey = t->pd->local_dma_lkey,
	};
}

static void kt_fill(u8 *p, u32 len, u8 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(i * 7 + seed);
}

static void kt_send_recv(struct kt *t, bool imm)
{
	const u32 len = 100000;
	struct ib_sge rs = kt_sge(t, 1, 0, BUF_LEN), ss = kt_sge(t, 0, 0, len);
	struct ib_recv_wr rwr = { .wr_id = 1, .sg_list = &rs, .num_sge = 1 };
	struct ib_send_wr swr = {
		.wr_id = 2, .sg_list = &ss, .num_sge = 1,
		.opcode = imm ? IB_WR_SEND_WITH_IMM : IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
		.ex.imm_data = cpu_to_be32(0xabcd),
	};
	struct ib_wc wc[2] = {};
	bool good;

	kt_fill(t->buf[0], len, 3);
	memset(t->buf[1], 0, BUF_LEN);
	good = !ib_post_recv(t->qp[1], &rwr, NULL) &&
	       !ib_post_send(t->qp[0], &swr, NULL) && kt_poll(t, 2, wc);
	good = good && !memcmp(t->buf[0], t->buf[1], len) && !t->buf[1][len];
	if (good) {
		struct ib_wc *r = wc[0].wr_id == 1 ? &wc[0] : &wc[1];

		good = r->byte_len == len && r->opcode == IB_WC_RECV &&
		       (!imm || ((r->wc_flags & IB_WC_WITH_IMM) &&
				 be32_to_cpu(r->ex.imm_data) == 0xabcd));
	}
	ktest_ok(&t->tap, good, imm ? "send with immediate, 100000 bytes, compared" :
		 "send, 100000 bytes, compared");
}

static void kt_rdma(struct kt *t, bool read)
{
	const u32 len = 200000;
	struct ib_sge sge = kt_sge(t, 0, 0, len);
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = 3, .sg_list = &sge, .num_sge = 1,
			.opcode = read ? IB_WR_RDMA_READ : IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = (u64)(uintptr_t)t->buf[1],
		.rkey = t->pd->unsafe_global_rkey,
	};
	struct ib_wc wc;
	bool good;

	if (read) {
		kt_fill(t->buf[1], len, 9);
		memset(t->buf[0], 0, len);
	} else {
		kt_fill(t->buf[0], len, 5);
		memset(t->buf[1], 0, len);
	}
	good = !ib_post_send(t->qp[0], &wr.wr, NULL) && kt_poll(t, 1, &wc) &&
	       !memcmp(t->buf[0], t->buf[1], len);
	ktest_ok(&t->tap, good, read ? "rdma read, 200000 bytes, compared" :
		 "rdma write, 200000 bytes, compared");
}

/* ULPs post from completion handlers and under spinlocks. */
static void kt_post_irqs_off(struct kt *t)
{
	struct ib_sge sge = kt_sge(t, 0, 0, 4096);
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = 4, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = (u64)(uintptr_t)t->buf[1],
		.rkey = t->pd->unsafe_global_rkey,
	};
	unsigned long flags;
	struct ib_wc wc;
	int err;

	kt_fill(t->buf[0], 4096, 11);
	memset(t->buf[1], 0, 4096);
	local_irq_save(flags);
	err = ib_post_send(t->qp[0], &wr.wr, NULL);
	local_irq_restore(flags);
	ktest_ok(&t->tap, !err && kt_poll(t, 1, &wc) &&
		 !memcmp(t->buf[0], t->buf[1], 4096),
		 "post with interrupts disabled completes");
}

static void kt_cq_event(struct ib_event *ev, void *ctx)
{
	struct kt *t = ctx;

	if (ev->event != IB_EVENT_CQ_ERR)
		return;
	/*
	 * Handlers may sleep and take locks: no atomic context (which only
	 * a kernel with CONFIG_PREEMPT_COUNT, as Debian's, can tell fully).
	 */
	t->cq_err_in_task = in_task() && !irqs_disabled() &&
			    (!IS_ENABLED(CONFIG_PREEMPT_COUNT) || preemptible());
	atomic_inc(&t->cq_err_events);
	complete(&t->cq_err);
}

/*
 * Three signalled Writes on a QP whose send CQ holds one entry: the
 * second completion is lost and the CQ's event handler is told, in
 * process context.
 */
static void kt_cq_overflow(struct kt *t, struct ib_qp_init_attr *qpa)
{
	struct ib_cq_init_attr ca = { .cqe = 1 };
	struct ib_sge sge = kt_sge(t, 0, 0, 4096);
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = 5, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = (u64)(uintptr_t)t->buf[1],
		.rkey = t->pd->unsafe_global_rkey,
	};
	struct ib_qp_init_attr a = *qpa;
	bool good;
	int i, err;

	init_completion(&t->cq_err);
	t->small_cq = ib_create_cq(t->ibdev, NULL, kt_cq_event, t, &ca);
	if (IS_ERR(t->small_cq)) {
		ktest_ok(&t->tap, false, "a CQ of one entry");
		return;
	}
	a.send_cq = t->small_cq;
	t->qp[2] = ib_create_qp(t->pd, &a);
	t->qp[3] = ib_create_qp(t->pd, qpa);
	if (IS_ERR(t->qp[2]) || IS_ERR(t->qp[3])) {
		ktest_ok(&t->tap, false, "two more RC QPs");
		return;
	}
	err = kt_connect(t, 2, 3) ?: kt_connect(t, 3, 2);
	for (i = 0; i < 3 && !err; i++)
		err = ib_post_send(t->qp[2], &wr.wr, NULL);
	good = !err && wait_for_completion_timeout(&t->cq_err, KT_WAIT);
	ktest_ok(&t->tap, good, "CQ overflow raises IB_EVENT_CQ_ERR");
	ktest_ok(&t->tap, good && t->cq_err_in_task,
		 "IB_EVENT_CQ_ERR handler runs in process context, interrupts on");
	/*
	 * To the error state: every Write is retired once this returns
	 * (the flush is synchronous), and every completion after the first
	 * was lost, the CQ never polled: one overflow, one event.
	 */
	err = ib_modify_qp(t->qp[2], &(struct ib_qp_attr){
				.qp_state = IB_QPS_ERR }, IB_QP_STATE);
	ktest_ok(&t->tap, good && !err && atomic_read(&t->cq_err_events) == 1,
		 "one IB_EVENT_CQ_ERR for one overflow");
	if (atomic_read(&t->cq_err_events) != 1)
		pr_info("# %d events\n", atomic_read(&t->cq_err_events));
}

/*
 * A work request that should have been refused was posted after all:
 * take its completion out of the CQ, so that ib_drain_qp() does not
 * mistake its wr_id for a struct ib_cqe.
 */
static void kt_reap(struct kt *t, int err)
{
	unsigned long end = jiffies + KT_WAIT;
	struct ib_wc wc;

	if (err)
		return;
	while (ib_poll_cq(t->cq, 1, &wc) == 0 && time_before(jiffies, end))
		usleep_range(500, 1000);
}

/* Work requests ib_post_send() must refuse, touching nothing. */
static void kt_post_refused(struct kt *t)
{
	struct ib_sge sge[2];
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = 6, .sg_list = sge, .num_sge = 2,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = (u64)(uintptr_t)t->buf[1],
		.rkey = t->pd->unsafe_global_rkey,
	};
	const struct ib_send_wr *bad = NULL;
	int err;

	/* 2 GiB + 1 in two SGEs: more than max_msg_sz. */
	sge[0] = kt_sge(t, 0, 0, 0x80000000U);
	sge[1] = kt_sge(t, 0, 0, 1);
	err = ib_post_send(t->qp[0], &wr.wr, &bad);
	ktest_ok(&t->tap, err == -EINVAL && bad == &wr.wr,
		 "a write of 2 GiB + 1 byte refused with -EINVAL");
	kt_reap(t, err);

	wr.wr.num_sge = -1;
	bad = NULL;
	err = ib_post_send(t->qp[0], &wr.wr, &bad);
	ktest_ok(&t->tap, err == -EINVAL && bad == &wr.wr,
		 "a negative num_sge refused with -EINVAL");
	kt_reap(t, err);

	/*
	 * Inline: 16 + 0xfffffff0 bytes wrap to 0 in 32 bits. Copying the
	 * second SGE would run far off the end of the buffer.
	 */
	sge[0] = kt_sge(t, 0, 0, 16);
	sge[1] = kt_sge(t, 0, 0, 0xfffffff0U);
	wr.wr.num_sge = 2;
	wr.wr.send_flags |= IB_SEND_INLINE;
	bad = NULL;
	err = ib_post_send(t->qp[0], &wr.wr, &bad);
	ktest_ok(&t->tap, err == -EINVAL && bad == &wr.wr,
		 "inline SGE lengths summing past 2^32 refused with -EINVAL");
}

/*
 * Kernel SRQs: two receives posted with ib_post_srq_recv(), taken in
 * order by two Sends to a QP that has no receive queue of its own; a
 * post beyond the SRQ's size is refused.
 */
static void kt_srq(struct kt *t, struct ib_qp_init_attr *qpa)
{
	struct ib_srq_init_attr sa = { .attr = { .max_wr = 2, .max_sge = 1 } };
	struct ib_sge rs[KT_SRQ_MAX + 1], ss[2];
	struct ib_recv_wr rwr[KT_SRQ_MAX + 1];
	struct ib_send_wr swr[2];
	const struct ib_recv_wr *bad = NULL;
	struct ib_qp_init_attr a = *qpa;
	struct ib_wc wc[4] = {};
	u32 i, n, part, len[2];
	int got = 0, err;
	bool good;

	t->srq = ib_create_srq(t->pd, &sa);
	if (IS_ERR(t->srq)) {
		ktest_ok(&t->tap, false, "a kernel SRQ");
		return;
	}
	/* At least what was asked for, rounded up as the device likes. */
	n = sa.attr.max_wr;
	if (n < 2 || n > KT_SRQ_MAX) {
		ktest_ok(&t->tap, false, "kernel SRQ of 2 receives reports 2..8");
		return;
	}
	a.srq = t->srq;
	a.cap.max_recv_wr = 0;
	a.cap.max_recv_sge = 0;
	t->qp[4] = ib_create_qp(t->pd, &a);
	t->qp[5] = ib_create_qp(t->pd, qpa);
	if (IS_ERR(t->qp[4]) || IS_ERR(t->qp[5])) {
		ktest_ok(&t->tap, false, "an RC QP on the SRQ and its peer");
		return;
	}
	err = kt_connect(t, 4, 5) ?: kt_connect(t, 5, 4);
	ktest_ok(&t->tap, !err, "QP on an SRQ connected");
	if (err)
		return;

	/* n receives, each its part of buf[1], in one chain; then one more */
	part = BUF_LEN / (n + 1);
	len[0] = part - 1000;
	len[1] = part - 7;
	memset(t->buf[1], 0, BUF_LEN);
	for (i = 0; i <= n; i++) {
		rs[i] = kt_sge(t, 1, i * part, part);
		rwr[i] = (struct ib_recv_wr){ .wr_id = 20 + i,
					      .sg_list = &rs[i], .num_sge = 1,
					      .next = i + 1 < n ? &rwr[i + 1] :
								  NULL };
	}
	err = ib_post_srq_recv(t->srq, &rwr[0], &bad);
	ktest_ok(&t->tap, !err, "ib_post_srq_recv, as many receives as the SRQ holds");
	bad = NULL;
	err = ib_post_srq_recv(t->srq, &rwr[n], &bad);
	ktest_ok(&t->tap, err == -ENOMEM && bad == &rwr[n],
		 "a receive beyond the SRQ's size refused with -ENOMEM");

	for (i = 0; i < 2; i++) {
		kt_fill(t->buf[0] + i * part, len[i], 40 + i);
		ss[i] = kt_sge(t, 0, i * part, len[i]);
		swr[i] = (struct ib_send_wr){ .wr_id = 30 + i,
					      .sg_list = &ss[i], .num_sge = 1,
					      .opcode = IB_WR_SEND,
					      .send_flags = IB_SEND_SIGNALED,
					      .next = i ? NULL : &swr[1] };
	}
	good = !ib_post_send(t->qp[5], &swr[0], NULL) && kt_poll(t, 4, wc);
	for (i = 0; good && i < 4; i++) {
		u64 k = wc[i].wr_id - 20;

		if (wc[i].wr_id >= 30)
			continue;
		/* In posting order: the first Send into the first WQE. */
		good = k < 2 && wc[i].qp == t->qp[4] &&
		       wc[i].opcode == IB_WC_RECV && wc[i].byte_len == len[k] &&
		       !memcmp(t->buf[0] + k * part, t->buf[1] + k * part,
			       len[k]) &&
		       !t->buf[1][k * part + len[k]];
		got++;
	}
	ktest_ok(&t->tap, good && got == 2,
		 "two sends received through the SRQ in order, compared");
}

static void *kt_new_srq(struct kt *t)
{
	struct ib_srq_init_attr sa = { .attr = { .max_wr = 1, .max_sge = 1 } };

	return ib_create_srq(t->pd, &sa);
}

static void kt_del_srq(void *srq)
{
	ib_destroy_srq(srq);
}

static void *kt_new_pd(struct kt *t)
{
	return ib_alloc_pd(t->ibdev, 0);
}

static void kt_del_pd(void *pd)
{
	ib_dealloc_pd(pd);
}

/* One kind of object whose number the device limits */
struct kt_kind {
	const char *name;
	enum rdma_restrack_type res;
	int max;			/* what query_device reports */
	void *(*create)(struct kt *t);	/* an ERR_PTR() on failure */
	void (*destroy)(void *obj);
};

/*
 * Create objects of @k until the device refuses one: it must refuse with
 * -ENOMEM exactly when the device holds its reported maximum, counting
 * those that existed before (the RDMA core's own, for MADs, and this
 * test's). Then one destroyed makes room for one more.
 */
static void kt_limit(struct kt *t, const struct kt_kind *k)
{
	int before = rdma_restrack_count(t->ibdev, k->res, true);
	int room = k->max - before, n, err;
	char what[96];
	void **obj;

	obj = room >= 0 ? kvcalloc(room + 1, sizeof(*obj), GFP_KERNEL) : NULL;
	if (!obj) {
		pr_info("# %d %ss before, max %d\n", before, k->name, k->max);
		ktest_ok(&t->tap, false, "room for the limits test");
		return;
	}
	for (n = 0; n <= room; n++) {
		obj[n] = k->create(t);
		if (IS_ERR(obj[n]))
			break;
	}
	err = n <= room ? PTR_ERR(obj[n]) : 0;
	snprintf(what, sizeof(what),
		 "%ss refused with -ENOMEM at the limit (%d), not before",
		 k->name, k->max);
	ktest_ok(&t->tap, err == -ENOMEM && n == room, what);
	if (err != -ENOMEM || n != room)
		pr_info("# %d %ss before, %d created, error %d\n", before,
			k->name, n, err);
	if (n > 0) {
		k->destroy(obj[--n]);
		obj[n] = k->create(t);
		snprintf(what, sizeof(what), "one %s destroyed, one created",
			 k->name);
		ktest_ok(&t->tap, !IS_ERR(obj[n]), what);
		if (!IS_ERR(obj[n]))
			n++;
	}
	while (n--)
		k->destroy(obj[n]);
	kvfree(obj);
}

static void kt_limits(struct kt *t)
{
	const struct kt_kind kinds[] = {
		{ "SRQ", RDMA_RESTRACK_SRQ, t->ibdev->attrs.max_srq,
		  kt_new_srq, kt_del_srq },
		{ "PD", RDMA_RESTRACK_PD, t->ibdev->attrs.max_pd,
		  kt_new_pd, kt_del_pd },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		kt_limit(t, &kinds[i]);
}

static void kt_cleanup(struct kt *t)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(t->qp); i++)
		if (!IS_ERR_OR_NULL(t->qp[i]))
			ib_destroy_qp(t->qp[i]);
	if (!IS_ERR_OR_NULL(t->srq))
		ib_destroy_srq(t->srq);
	if (!IS_ERR_OR_NULL(t->small_cq))
		ib_destroy_cq(t->small_cq);
	if (!IS_ERR_OR_NULL(t->cq))
		ib_free_cq(t->cq);
	if (!IS_ERR_OR_NULL(t->pd))
		ib_dealloc_pd(t->pd);
	kfree(t->buf[0]);
	kfree(t->buf[1]);
	ib_device_put(t->ibdev);
}

static int __init kt_init(void)
{
	struct ib_qp_init_attr qpa = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct kt t = {};
	struct ib_wc wc[1];
	int i, n, err = 0;

	pr_info("KTAP version 1\n");
	t.ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!t.ibdev) {
		pr_info("Bail out! no device %s\n", dev);
		return -ENODEV;
	}
	t.pd = ib_alloc_pd(t.ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	/* Polled here; IB_POLL_DIRECT also lets ib_drain_qp() poll it. */
	t.cq = ib_alloc_cq(t.ibdev, NULL, 64, 0, IB_POLL_DIRECT);
	t.buf[0] = kzalloc(BUF_LEN, GFP_KERNEL);
	t.buf[1] = kzalloc(BUF_LEN, GFP_KERNEL);
	ktest_ok(&t.tap, !IS_ERR(t.pd) && !IS_ERR(t.cq) && t.buf[0] && t.buf[1],
		 "pd, cq, buffers");
	if (t.tap.failed)
		goto out;
	qpa.send_cq = t.cq;
	qpa.recv_cq = t.cq;
	for (i = 0; i < 2; i++)
		t.qp[i] = ib_create_qp(t.pd, &qpa);
	ktest_ok(&t.tap, !IS_ERR(t.qp[0]) && !IS_ERR(t.qp[1]), "two RC QPs");
	ktest_ok(&t.tap, !ktest_find_gid(t.ibdev, &t.gid, &t.gid_index), "an IPv4 GID");
	if (t.tap.failed)
		goto out;
	err = kt_connect(&t, 0, 1) ?: kt_connect(&t, 1, 0);
	ktest_ok(&t.tap, !err, "QPs connected to each other (INIT, RTR, RTS)");
	if (err)
		goto out;

	kt_send_recv(&t, false);
	kt_send_recv(&t, true);
	kt_rdma(&t, false);
	kt_rdma(&t, true);
	kt_post_irqs_off(&t);
	kt_cq_overflow(&t, &qpa);
	kt_post_refused(&t);
	/*
	 * ib_drain_qp: to the error state, flush, wait for the markers'
	 * flush completions (it would hang without them). All our own
	 * completions are polled by now, so the CQ holds only markers.
	 */
	n = 0;
	while (ib_poll_cq(t.cq, 1, wc) == 1)
		n++;		/* ib_drain_qp() would take a wr_id for a cqe */
	ktest_ok(&t.tap, !n, "no completion left over before the drain");
	ib_drain_qp(t.qp[0]);
	ktest_ok(&t.tap, ib_poll_cq(t.cq, 1, wc) == 0,
		 "ib_drain_qp returned, nothing left in the CQ");
	kt_srq(&t, &qpa);
	kt_limits(&t);
out:
	pr_info("1..%d\n", t.tap.n);
	kt_cleanup(&t);
	return t.tap.failed ? -EIO : 0;
}

static void __exit kt_exit(void)
{
}

module_init(kt_init);
module_exit(kt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("sroce kernel verbs selftest");
