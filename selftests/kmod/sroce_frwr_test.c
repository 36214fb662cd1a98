// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fast registration and invalidation, as storage ULPs (nvme-rdma, NFS
 * over RDMA) use them: an IB_MR_TYPE_MEM_REG MR mapped over three
 * separate pages (the first entered at an offset) with ib_map_mr_sg(),
 * registered by IB_WR_REG_MR with a new key byte, written and read by
 * the peer through its rkey, freed by the peer's Send with Invalidate
 * or by IB_WR_LOCAL_INV, and every rule that must refuse: a stale key
 * byte, a key used after invalidation, REG_MR of an MR still valid,
 * LOCAL_INV and Send with Invalidate of another PD's key, and alloc_mr
 * requests the device cannot honour.
 *
 * Each case runs on a fresh pair of connected RC QPs (a refusal puts a
 * pair in the error state). KTAP lines are prefixed "sroce_frwr_test:";
 * the module fails to load (-EIO) if any check failed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "ktest.h"

static char *dev = "sroce0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "RDMA device to test");

/* A safety net, never the thing tested (KASAN guests are slow) */
#define FT_WAIT		(180 * HZ)
#define FT_NPAGES	3
#define FT_OFF0		100		/* the MR starts inside page 0 */
#define FT_TAIL		1000		/* and ends inside page 2 */
#define FT_LEN		(PAGE_SIZE - FT_OFF0 + PAGE_SIZE + FT_TAIL)
#define FT_BUF		(64 * 1024)

struct ft {
	struct ib_device *ibdev;
	struct ib_pd *pd, *pd2;
	struct ib_mr *mr, *mr2;		/* mr2: of pd2, never registered */
	struct page *page[FT_NPAGES];
	struct scatterlist sg[FT_NPAGES];
	bool mapped;
	u8 *buf;			/* the peer's source / destination */
	union ib_gid gid;
	int gid_index;
	/* the pair of the current case */
	struct ib_cq *cq;
	struct ib_qp *qp[2];		/* qp[0] owns the MR, qp[1] is peer */
	struct ktest tap;
};

static int ft_connect(struct ft *t, int me, int peer)
{
	return ktest_rc_connect(t->qp[me], t->qp[peer]->qp_num, &t->gid,
				t->gid_index, IB_ACCESS_REMOTE_WRITE |
				IB_ACCESS_REMOTE_READ | IB_ACCESS_LOCAL_WRITE,
				7, 7);
}

static void ft_pair_free(struct ft *t)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (!IS_ERR_OR_NULL(t->qp[i]))
			ib_destroy_qp(t->qp[i]);
		t->qp[i] = NULL;
	}
	if (!IS_ERR_OR_NULL(t->cq))
		ib_free_cq(t->cq);
	t->cq = NULL;
}

/* A fresh pair of connected RC QPs of t->pd, one CQ */
static bool ft_pair_new(struct ft *t)
{
	struct ib_qp_init_attr qpa = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	int i;

	t->cq = ib_alloc_cq(t->ibdev, NULL, 64, 0, IB_POLL_DIRECT);
	if (IS_ERR(t->cq))
		return false;
	qpa.send_cq = t->cq;
	qpa.recv_cq = t->cq;
	for (i = 0; i < 2; i++) {
		t->qp[i] = ib_create_qp(t->pd, &qpa);
		if (IS_ERR(t->qp[i]))
			return false;
	}
	return !ft_connect(t, 0, 1) && !ft_connect(t, 1, 0);
}

/* The next completion, whatever its status; false if none came */
static bool ft_poll(struct ft *t, struct ib_wc *wc)
{
	unsigned long end = jiffies + FT_WAIT;

	while (time_before(jiffies, end)) {
		int r = ib_poll_cq(t->cq, 1, wc);

		if (r < 0)
			return false;
		if (r)
			return true;
		usleep_range(500, 1000);
	}
	pr_info("# no completion\n");
	return false;
}

/* The completion of @wr_id, skipping others; false if none came */
static bool ft_poll_id(struct ft *t, u64 wr_id, struct ib_wc *wc)
{
	while (ft_poll(t, wc)) {
		if (wc->wr_id == wr_id)
			return true;
		pr_info("# completion %llu status %d while waiting for %llu\n",
			wc->wr_id, wc->status, wr_id);
	}
	return false;
}

/* Post on qp[0]: IB_WR_REG_MR of @mr with @access; its completion */
static bool ft_reg(struct ft *t, struct ib_mr *mr, int access,
		   struct ib_wc *wc)
{
	struct ib_reg_wr wr = {
		.wr = { .wr_id = 10, .opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED },
		.mr = mr,
		.key = mr->rkey,
		.access = access,
	};

	return !ib_post_send(t->qp[0], &wr.wr, NULL) && ft_poll_id(t, 10, wc);
}

/* Map the three pages into t->mr with a new key byte */
static bool ft_map(struct ft *t)
{
	ib_update_fast_reg_key(t->mr, ib_inc_rkey(t->mr->rkey));
	return ib_map_mr_sg(t->mr, t->sg, FT_NPAGES, NULL, PAGE_SIZE) ==
	       FT_NPAGES && t->mr->length == FT_LEN;
}

/* qp[1] reads or writes @len bytes of the MR at @off with @rkey */
static bool ft_rdma(struct ft *t, bool read, u32 rkey, u32 off, u32 len,
		    struct ib_wc *wc)
{
	struct ib_sge sge = {
		.addr = (u64)(uintptr_t)t->buf, .length = len,
		.lkey = t->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = 20, .sg_list = &sge, .num_sge = 1,
			.opcode = read ? IB_WR_RDMA_READ : IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = t->mr->iova + off,
		.rkey = rkey,
	};

	return !ib_post_send(t->qp[1], &wr.wr, NULL) && ft_poll_id(t, 20, wc);
}

/* Byte @i of the MR, through the pages it was mapped on */
static u8 *ft_byte(struct ft *t, u32 i)
{
	u32 pos = FT_OFF0 + i;

	return (u8 *)page_address(t->page[pos / PAGE_SIZE]) + pos % PAGE_SIZE;
}

static bool ft_mr_matches(struct ft *t, u8 seed)
{
	u32 i;

	for (i = 0; i < FT_LEN; i++)
		if (*ft_byte(t, i) != (u8)(i * 13 + seed))
			return false;
	return true;
}

/*
 * qp[1] sends 64 bytes with Invalidate of @rkey into a receive of
 * qp[0]; the two completions in @rwc and @swc.
 */
static bool ft_send_inv(struct ft *t, u32 rkey, struct ib_wc *rwc,
			struct ib_wc *swc)
{
	struct ib_sge rs = {
		.addr = (u64)(uintptr_t)(t->buf + FT_BUF / 2), .length = 64,
		.lkey = t->pd->local_dma_lkey,
	};
	struct ib_sge ss = {
		.addr = (u64)(uintptr_t)t->buf, .length = 64,
		.lkey = t->pd->local_dma_lkey,
	};
	struct ib_recv_wr rwr = { .wr_id = 30, .sg_list = &rs, .num_sge = 1 };
	struct ib_send_wr swr = {
		.wr_id = 31, .sg_list = &ss, .num_sge = 1,
		.opcode = IB_WR_SEND_WITH_INV, .send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = rkey,
	};
	struct ib_wc wc;
	int got = 0;

	if (ib_post_recv(t->qp[0], &rwr, NULL) ||
	    ib_post_send(t->qp[1], &swr, NULL))
		return false;
	while (got != 3 && ft_poll(t, &wc)) {
		if (wc.wr_id == 30) {
			*rwc = wc;
			got |= 1;
		} else if (wc.wr_id == 31) {
			*swc = wc;
			got |= 2;
		}
	}
	return got == 3;
}

/* Register, write, read, invalidate from the peer, then refuse */
static void ft_case_remote_inv(struct ft *t)
{
	int acc = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		  IB_ACCESS_REMOTE_READ;
	struct ib_wc wc, swc;
	u32 i, key;
	bool good;

	if (!ft_pair_new(t)) {
		ktest_ok(&t->tap, false, "a connected pair");
		return;
	}
	ktest_ok(&t->tap, ft_map(t), "ib_map_mr_sg maps 3 pages, the first at an offset");
	good = ft_reg(t, t->mr, acc, &wc);
	ktest_ok(&t->tap, good && wc.status == IB_WC_SUCCESS &&
		 wc.opcode == IB_WC_REG_MR, "IB_WR_REG_MR completes IB_WC_REG_MR");

	for (i = 0; i < FT_LEN; i++)
		t->buf[i] = (u8)(i * 13 + 1);
	good = ft_rdma(t, false, t->mr->rkey, 0, FT_LEN, &wc);
	ktest_ok(&t->tap, good && wc.status == IB_WC_SUCCESS && ft_mr_matches(t, 1),
		 "the peer writes the MR through its rkey, every page compared");

	for (i = 0; i < FT_LEN; i++)
		*ft_byte(t, i) = (u8)(i * 13 + 2);
	memset(t->buf, 0, FT_BUF);
	good = ft_rdma(t, true, t->mr->rkey, 0, FT_LEN, &wc);
	for (i = 0; good && i < FT_LEN; i++)
		good = t->buf[i] == (u8)(i * 13 + 2);
	ktest_ok(&t->tap, good && wc.status == IB_WC_SUCCESS,
		 "the peer reads the MR back, compared");

	good = ft_rdma(t, true, t->mr->rkey, FT_LEN - 10, 10, &wc);
	ktest_ok(&t->tap, good && wc.status == IB_WC_SUCCESS,
		 "the last 10 bytes of the MR are readable");

	key = t->mr->rkey;
	good = ft_send_inv(t, key, &wc, &swc);
	ktest_ok(&t->tap, good && wc.status == IB_WC_SUCCESS &&
		 swc.status == IB_WC_SUCCESS && wc.opcode == IB_WC_RECV &&
		 (wc.wc_flags & IB_WC_WITH_INVALIDATE) &&
		 wc.ex.invalidate_rkey == key,
		 "Send with Invalidate: the receive reports the key invalidated");

	good = ft_rdma(t, true, key, 0, 64, &wc);
	ktest_ok(&t->tap, good && wc.status == IB_WC_REM_ACCESS_ERR,
		 "a READ with the invalidated key fails IB_WC_REM_ACCESS_ERR");
	ft_pair_free(t);
}

static void ft_case_local_inv(struct ft *t)
{
	int acc = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ;
	struct ib_send_wr inv = {
		.wr_id = 40, .opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_wc wc;
	u32 old;
	bool good;

	if (!ft_pair_new(t)) {
		ktest_ok(&t->tap, false, "a connected pair");
		return;
	}
	/* a new key byte: the previous registration's key is dead */
	old = t->mr->rkey;
	good = ft_map(t) && ft_reg(t, t->mr, acc, &wc) &&
	       wc.status == IB_WC_SUCCESS;
	ktest_ok(&t->tap, good, "registered again, with the next key byte");
	good = ft_rdma(t, true, t->mr->rkey, 0, FT_LEN, &wc);
	ktest_ok(&t->tap, good && wc.status == IB_WC_SUCCESS,
		 "READ with the new key");

	inv.ex.invalidate_rkey = t->mr->rkey;
	good = !ib_post_send(t->qp[0], &inv, NULL) && ft_poll_id(t, 40, &wc);
	ktest_ok(&t->tap, good && wc.status == IB_WC_SUCCESS &&
		 wc.opcode == IB_WC_LOCAL_INV,
		 "IB_WR_LOCAL_INV completes IB_WC_LOCAL_INV");
	good = ft_rdma(t, true, t->mr->rkey, 0, 64, &wc);
	ktest_ok(&t->tap, good && wc.status == IB_WC_REM_ACCESS_ERR,
		 "a READ after LOCAL_INV fails IB_WC_REM_ACCESS_ERR");
	ft_pair_free(t);

	/* the old key byte, on an MR valid again under the new one */
	if (!ft_pair_new(t))
		return;
	good = ft_map(t) && ft_reg(t, t->mr, acc, &wc) &&
	       wc.status == IB_WC_SUCCESS;
	good = good && ft_rdma(t, true, old, 0, 64, &wc);
	ktest_ok(&t->tap, good && wc.status == IB_WC_REM_ACCESS_ERR,
		 "a stale key byte of a valid MR fails IB_WC_REM_ACCESS_ERR");
	ft_pair_free(t);
}

static void ft_case_refused(struct ft *t)
{
	int acc = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ;
	struct ib_send_wr inv = {
		.wr_id = 50, .opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_reg_wr reg = {
		.wr = { .opcode = IB_WR_REG_MR },
	};
	const struct ib_send_wr *bad;
	struct ib_wc wc, swc;
	struct ib_mr *mr;
	bool good;

	/* REG_MR of an MR still valid (registered above, not freed) */
	if (!ft_pair_new(t))
		return;
	good = ft_reg(t, t->mr, acc, &wc);
	ktest_ok(&t->tap, good && wc.status == IB_WC_LOC_QP_OP_ERR,
		 "REG_MR of a valid MR fails IB_WC_LOC_QP_OP_ERR");
	ft_pair_free(t);

	/* LOCAL_INV of another PD's MR */
	if (!ft_pair_new(t))
		return;
	inv.ex.invalidate_rkey = t->mr2->rkey;
	good = !ib_post_send(t->qp[0], &inv, NULL) && ft_poll_id(t, 50, &wc);
	ktest_ok(&t->tap, good && wc.status == IB_WC_LOC_QP_OP_ERR,
		 "LOCAL_INV of another PD's key fails IB_WC_LOC_QP_OP_ERR");
	ft_pair_free(t);

	/* LOCAL_INV of the PD's own DMA MR: not a fast-registration MR */
	if (!ft_pair_new(t))
		return;
	inv.ex.invalidate_rkey = t->pd->local_dma_lkey;
	good = !ib_post_send(t->qp[0], &inv, NULL) && ft_poll_id(t, 50, &wc);
	ktest_ok(&t->tap, good && wc.status == IB_WC_LOC_QP_OP_ERR,
		 "LOCAL_INV of the PD's local_dma_lkey fails IB_WC_LOC_QP_OP_ERR");
	ft_pair_free(t);

	/* REG_MR of remote write without local write (IBA 10.6.3) */
	mr = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG, 8);
	if (IS_ERR(mr) || ib_map_mr_sg(mr, t->sg, FT_NPAGES, NULL,
				       PAGE_SIZE) != FT_NPAGES || !ft_pair_new(t)) {
		ktest_ok(&t->tap, false, "a third MR, mapped; a pair");
		if (!IS_ERR(mr))
			ib_dereg_mr(mr);
		return;
	}
	good = ft_reg(t, mr, IB_ACCESS_REMOTE_WRITE, &wc);
	ktest_ok(&t->tap, good && wc.status == IB_WC_LOC_QP_OP_ERR,
		 "REG_MR of REMOTE_WRITE without LOCAL_WRITE fails IB_WC_LOC_QP_OP_ERR");
	ft_pair_free(t);
	good = ft_pair_new(t) &&
	       ft_reg(t, mr, IB_ACCESS_REMOTE_WRITE | IB_ACCESS_LOCAL_WRITE,
		      &wc);
	ktest_ok(&t->tap, good && wc.status == IB_WC_SUCCESS,
		 "the same MR registers with LOCAL_WRITE added");
	ft_pair_free(t);
	ib_dereg_mr(mr);

	/* Send with Invalidate of another PD's MR: refused by the peer */
	if (!ft_pair_new(t))
		return;
	good = ft_send_inv(t, t->mr2->rkey, &wc, &swc);
	ktest_ok(&t->tap, good && swc.status == IB_WC_REM_INV_REQ_ERR &&
		 wc.status == IB_WC_REM_INV_REQ_ERR,
		 "Send with Invalidate of another PD's key: IB_WC_REM_INV_REQ_ERR at both ends");
	ft_pair_free(t);

	if (!ft_pair_new(t))
		return;
	bad = NULL;
	ktest_ok(&t->tap, ib_post_send(t->qp[0], &reg.wr, &bad) == -EINVAL &&
		 bad == &reg.wr, "REG_MR without an MR refused with -EINVAL");
	ft_pair_free(t);

	mr = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG,
			 t->ibdev->attrs.max_fast_reg_page_list_len + 1);
	ktest_ok(&t->tap, IS_ERR(mr), "alloc_mr beyond max_fast_reg_page_list_len refused");
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
	mr = ib_alloc_mr(t->pd, IB_MR_TYPE_SG_GAPS, 4);
	ktest_ok(&t->tap, IS_ERR(mr), "alloc_mr of IB_MR_TYPE_SG_GAPS refused");
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
}

static void ft_cleanup(struct ft *t)
{
	int i;

	ft_pair_free(t);
	if (!IS_ERR_OR_NULL(t->mr))
		ib_dereg_mr(t->mr);
	if (t->mapped)
		ib_dma_unmap_sg(t->ibdev, t->sg, FT_NPAGES, DMA_BIDIRECTIONAL);
	if (!IS_ERR_OR_NULL(t->mr2))
		ib_dereg_mr(t->mr2);
	if (!IS_ERR_OR_NULL(t->pd2))
		ib_dealloc_pd(t->pd2);
	if (!IS_ERR_OR_NULL(t->pd))
		ib_dealloc_pd(t->pd);
	for (i = 0; i < FT_NPAGES; i++)
		if (t->page[i])
			__free_page(t->page[i]);
	kfree(t->buf);
	ib_device_put(t->ibdev);
}

static int __init ft_init(void)
{
	struct ft *t;
	int i, failed;
	bool good;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	pr_info("KTAP version 1\n");
	t->ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!t->ibdev) {
		pr_info("Bail out! no device %s\n", dev);
		kfree(t);
		return -ENODEV;
	}
	ktest_ok(&t->tap, t->ibdev->attrs.device_cap_flags &
		 IB_DEVICE_MEM_MGT_EXTENSIONS,
		 "the device offers IB_DEVICE_MEM_MGT_EXTENSIONS");
	t->pd = ib_alloc_pd(t->ibdev, 0);
	t->pd2 = ib_alloc_pd(t->ibdev, 0);
	t->buf = kzalloc(FT_BUF, GFP_KERNEL);
	good = !IS_ERR(t->pd) && !IS_ERR(t->pd2) && t->buf &&
	       !ktest_find_gid(t->ibdev, &t->gid, &t->gid_index);
	/* three pages apart, not one block: the MR joins them */
	sg_init_table(t->sg, FT_NPAGES);
	for (i = 0; good && i < FT_NPAGES; i++) {
		t->page[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		good = t->page[i];
	}
	if (good) {
		sg_set_page(&t->sg[0], t->page[0], PAGE_SIZE - FT_OFF0, FT_OFF0);
		sg_set_page(&t->sg[1], t->page[1], PAGE_SIZE, 0);
		sg_set_page(&t->sg[2], t->page[2], FT_TAIL, 0);
		t->mapped = ib_dma_map_sg(t->ibdev, t->sg, FT_NPAGES,
					  DMA_BIDIRECTIONAL) == FT_NPAGES;
		good = t->mapped;
	}
	if (good) {
		t->mr = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG, 8);
		t->mr2 = ib_alloc_mr(t->pd2, IB_MR_TYPE_MEM_REG, 8);
		good = !IS_ERR(t->mr) && !IS_ERR(t->mr2);
	}
	ktest_ok(&t->tap, good, "PDs, pages mapped, two fast-registration MRs");
	if (good) {
		ft_case_remote_inv(t);
		ft_case_local_inv(t);
		ft_case_refused(t);
	}
	pr_info("1..%d\n", t->tap.n);
	failed = t->tap.failed;
	ft_cleanup(t);
	kfree(t);
	return failed ? -EIO : 0;
}

static void __exit ft_exit(void)
{
}

module_init(ft_init);
module_exit(ft_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("sroce fast registration selftest");
