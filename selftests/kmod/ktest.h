/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the in-kernel test modules share: KTAP points in the kernel log
 * (struct ktest, ktest_ok()), the device's IPv4-mapped GID, and an RC QP
 * connected along a path to another QP of the device. Each module
 * includes it once.
 */
#ifndef SROCE_KTEST_H
#define SROCE_KTEST_H

#include <linux/printk.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

struct ktest {
	int n, failed;
};

static inline void ktest_ok(struct ktest *t, bool cond, const char *what)
{
	t->n++;
	if (!cond)
		t->failed++;
	pr_info("%sok %d %s\n", cond ? "" : "not ", t->n, what);
}

/* The first IPv4-mapped GID of @ibdev's port 1, and its index */
static inline int ktest_find_gid(struct ib_device *ibdev, union ib_gid *gid,
				 int *index)
{
	int i;

	for (i = 0; i < 16; i++) {
		if (rdma_query_gid(ibdev, 1, i, gid))
			continue;
		if (ipv6_addr_v4mapped((struct in6_addr *)gid->raw)) {
			*index = i;
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * RESET -> INIT -> RTR -> RTS to QP @dest_qpn behind @gid (GID @gid_index
 * on both sides: a QP of this device), path MTU 1024, hop limit 64, four
 * READs or atomics in flight, every retry, with @access and the PSNs
 * given: the first failing move's error, or 0.
 */
static inline int ktest_rc_connect(struct ib_qp *qp, u32 dest_qpn,
				   union ib_gid *gid, int gid_index,
				   int access, u32 sq_psn, u32 rq_psn)
{
	struct ib_qp_attr a = {};
	int err;

	a.qp_state = IB_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = access;
	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (err)
		return err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	a.path_mtu = IB_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&a.ah_attr, 1);
	rdma_ah_set_grh(&a.ah_attr, gid, 0, gid_index, 64, 0);
	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_AV |
			   IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (err)
		return err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = sq_psn;
	a.max_rd_atomic = 4;
	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

#endif /* SROCE_KTEST_H */
