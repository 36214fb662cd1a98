/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Memory regions and their keys.
 *
 * A key is index << 8 | key8: the upper 24 bits name a slot in the
 * device's key table, the low 8 bits are a variant a stale key cannot
 * match. lkey == rkey. Lookups run under RCU from any context and take a
 * reference; deregistration removes the key, then waits for every
 * reference to drop before unpinning.
 *
 * A fast-registration MR (alloc_mr) starts free: no key names it until
 * an IB_WR_REG_MR gives it pages (mapped by map_mr_sg), access rights
 * and a key byte; LOCAL_INV or a peer's Send with Invalidate frees it
 * again.
 */
#ifndef SROCE_MR_H
#define SROCE_MR_H

#include <linux/completion.h>
#include <linux/refcount.h>
#include <linux/skbuff.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

struct sroce_dev;

enum sroce_mr_type {
	SROCE_MR_DMA,		/* all kernel memory, addresses are kernel VAs */
	SROCE_MR_USER,		/* pinned user pages */
	SROCE_MR_FAST,		/* fast registration: kernel pages by WQE */
};

enum sroce_mr_state {
	SROCE_MR_VALID,		/* its key grants access */
	SROCE_MR_FREE,		/* fast registration: invalidated or new */
};

struct sroce_mr {
	struct ib_mr		ibmr;
	enum sroce_mr_type	type;
	u8			state;		/* enum sroce_mr_state */
	u32			key;		/* lkey == rkey while VALID */
	u32			access;		/* IB_ACCESS_* */
	u64			iova;
	u64			length;
	/*
	 * Fast registration: map_mr_sg stages fr_npages page addresses
	 * (kernel virtual, virtual DMA) in fr_pages[fr_max]; REG_MR takes
	 * them with ibmr's iova, length and page size.
	 */
	spinlock_t		lock;		/* state, num_mw, dying */
	u32			num_mw;		/* windows bound to it */
	bool			dying;		/* deregistering: bind no more */
	u64			*fr_pages;
	u32			fr_max;
	u32			fr_npages;	/* staged */
	u32			fr_live;	/* registered */
	u32			fr_shift;
	struct ib_umem		*umem;
	struct page		**pages;
	u32			npages;
	u32			page_offset;	/* of iova in pages[0] */
	refcount_t		refs;
	struct completion	released;
	struct rcu_head		rcu;
};

enum sroce_copy_dir {
	SROCE_TO_MR,
	SROCE_FROM_MR,
};

/*
 * Under rcu_read_lock(): the MR a key-table entry holds (not a window),
 * with a reference taken; NULL otherwise.
 */
struct sroce_mr *sroce_mr_tryget(void *entry);
/*
 * Referenced @mr: valid under @key, of @pd, allowing @access over
 * [@iova, @iova + @len)? @mr if so; NULL and the reference dropped if not.
 */
struct sroce_mr *sroce_mr_check(struct sroce_mr *mr, struct ib_pd *pd,
				u32 key, u32 access, u64 iova, u64 len);
/* sroce_mr_tryget() and sroce_mr_check() for @key */
struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, struct ib_pd *pd,
			      u32 key, u32 access, u64 iova, u64 len);
void sroce_mr_put(struct sroce_mr *mr);
void sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		   enum sroce_copy_dir dir);
int sroce_mr_frags(struct sroce_mr *mr, u64 iova, u32 len,
		   struct sk_buff *skb, unsigned int max_frags);
void sroce_mr_store64(struct sroce_mr *mr, u64 iova, u64 val);

struct ib_mr *sroce_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *sroce_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata);
int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *sroce_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			     u32 max_num_sg);
int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);
int sroce_mr_fast_reg(struct sroce_dev *sdev, struct ib_pd *pd,
		      struct ib_mr *ibmr, u32 key, u32 access);
/*
 * LOCAL_INV, or a peer's Send with Invalidate on a QP of @pd: free @mr
 * (referenced; the reference is consumed) if it is the fast-registration
 * MR @key names now. -EINVAL for any other key (another PD's, a stale
 * key byte, a user or DMA MR). Invalidating an MR already free is not an
 * error.
 */
int sroce_mr_invalidate(struct sroce_mr *mr, struct ib_pd *pd, u32 key);

/* Rights that write remotely: they need LOCAL_WRITE too (IBA 10.6.3) */
static inline bool sroce_access_remote_writes(u32 access)
{
	return access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC);
}

#endif /* SROCE_MR_H */
