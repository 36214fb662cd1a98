// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory regions: registration (user pages pinned through ib_umem, the
 * kernel DMA MR), the key table, checked lookups and data copies.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "sroce.h"
#include "sroce_mr.h"
#include "sroce_mw.h"
#include "sroce_param.h"

/*
 * A key is the MR's table index (bits 31..8) and a key byte (7..0). A
 * key deregistered must not name the next MR: indexes are allocated
 * cyclically, so a freed one comes back only after the allocator has gone
 * round the whole table. The key byte is random, so that a peer cannot
 * name an MR it was not given by counting registrations; a revoked key
 * matches a later MR only if its index came round and then 1 time in 256.
 */
static int sroce_mr_add(struct sroce_dev *sdev, struct sroce_mr *mr,
			struct ib_pd *pd, int access)
{
	u32 index;
	int err;

	refcount_set(&mr->refs, 1);
	init_completion(&mr->released);
	spin_lock_init(&mr->lock);
	mr->access = access;
	mr->ibmr.pd = pd;
	/* The last step that can fail: callers undo nothing of it. */
	if (!atomic_add_unless(&sdev->nmr, 1, SROCE_MAX_MR))
		return sroce_refuse(&sdev->ibdev, -ENOMEM,
				    "MR: the device's %u MRs exist\n",
				    SROCE_MAX_MR);
	err = xa_alloc_cyclic(&sdev->mr_table, &index, mr,
			      XA_LIMIT(1, SROCE_KEY_TABLE), &sdev->mr_next,
			      GFP_KERNEL);
	if (err < 0) {
		atomic_dec(&sdev->nmr);
		return err;
	}
	mr->key = index << 8 | (get_random_u32() & 0xff);
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	return 0;
}

struct sroce_mr *sroce_mr_tryget(void *entry)
{
	struct sroce_mr *mr = entry;

	if (!mr || xa_pointer_tag(mr) || !refcount_inc_not_zero(&mr->refs))
		return NULL;
	return mr;
}

/* The MR (not a window) at @key's index, referenced; NULL if none */
static struct sroce_mr *sroce_mr_ref(struct sroce_dev *sdev, u32 key)
{
	struct sroce_mr *mr;

	rcu_read_lock();
	mr = sroce_mr_tryget(xa_load(&sdev->mr_table, key >> 8));
	rcu_read_unlock();
	return mr;
}

struct sroce_mr *sroce_mr_check(struct sroce_mr *mr, struct ib_pd *pd,
				u32 key, u32 access, u64 iova, u64 len)
{
	u8 state;

	/*
	 * The reference first, then the state. Pairs with
	 * sroce_mr_invalidate(), which frees the MR, then waits for the
	 * references taken before: one taken after it sees the MR free.
	 */
	smp_mb__after_atomic();
	/* acquire: pairs with the release that publishes a registration */
	state = smp_load_acquire(&mr->state);
	if (state != SROCE_MR_VALID || READ_ONCE(mr->key) != key ||
	    mr->ibmr.pd != pd || (READ_ONCE(mr->access) & access) != access) {
		sroce_mr_put(mr);
		return NULL;
	}
	if (mr->type != SROCE_MR_DMA &&
	    (iova < mr->iova || len > mr->length ||
	     iova - mr->iova > mr->length - len)) {
		sroce_mr_put(mr);
		return NULL;
	}
	return mr;
}

/*
 * Find the MR a key names, check that it belongs to @pd, allows @access
 * and holds [@iova, @iova + @len), and take a reference. NULL otherwise.
 */
struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, struct ib_pd *pd,
			      u32 key, u32 access, u64 iova, u64 len)
{
	struct sroce_mr *mr = sroce_mr_ref(sdev, key);

	return mr ? sroce_mr_check(mr, pd, key, access, iova, len) : NULL;
}

void sroce_mr_put(struct sroce_mr *mr)
{
	if (refcount_dec_and_test(&mr->refs))
		complete(&mr->released);
}

/*
 * A fast-registration MR: pages of 2^fr_shift bytes at kernel virtual
 * addresses (virtual DMA: a ULP's page_address()es, contiguous within a
 * page however large). Invalidation waits for every copy in flight, so
 * the registration cannot change under one; the page index is bounded
 * by the registered count all the same (a ULP calling map_mr_sg on a
 * valid MR stops a copy short, never sends it past the array).
 */
static void sroce_mr_copy_fast(struct sroce_mr *mr, u64 iova, void *buf,
			       u32 len, enum sroce_copy_dir dir)
{
	u32 shift = READ_ONCE(mr->fr_shift);
	u64 mask = (1ULL << shift) - 1;
	u64 off = iova - mr->iova + (mr->iova & mask);

	while (len) {
		u64 idx = off >> shift;
		u64 in_page = off & mask;
		u32 n = min_t(u64, len, mask + 1 - in_page);
		void *va;

		if (idx >= READ_ONCE(mr->fr_live)) {
			pr_warn_ratelimited("fast-registration MR %#x changed under a copy\n",
					    mr->key);
			/* what goes on the wire is never stale memory */
			if (dir == SROCE_FROM_MR)
				memset(buf, 0, len);
			return;
		}
		va = (void *)(uintptr_t)(READ_ONCE(mr->fr_pages[idx]) + in_page);
		if (dir == SROCE_TO_MR)
			memcpy(va, buf, n);
		else
			memcpy(buf, va, n);
		buf += n;
		off += n;
		len -= n;
	}
}

/* Copy @len bytes at @iova (checked by sroce_mr_get()) to or from @buf. */
void sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		   enum sroce_copy_dir dir)
{
	u64 off;

	if (mr->type == SROCE_MR_DMA) {
		/* Virtual DMA: kernel ULPs hand us kernel addresses. */
		void *va = (void *)(uintptr_t)iova;

		if (dir == SROCE_TO_MR)
			memcpy(va, buf, len);
		else
			memcpy(buf, va, len);
		return;
	}

	if (mr->type == SROCE_MR_FAST) {
		sroce_mr_copy_fast(mr, iova, buf, len, dir);
		return;
	}
	off = iova - mr->iova + mr->page_offset;
	while (len) {
		struct page *page = mr->pages[off >> PAGE_SHIFT];
		u32 in_page = off & ~PAGE_MASK;
		u32 n = min_t(u32, len, PAGE_SIZE - in_page);
		void *va = kmap_local_page(page);

		if (dir == SROCE_TO_MR)
			memcpy(va + in_page, buf, n);
		else
			memcpy(buf, va + in_page, n);
		kunmap_local(va);
		buf += n;
		off += n;
		len -= n;
	}
}

/*
 * Append the bytes at @iova (checked by sroce_mr_get()), @len of them, to
 * @skb as fragments of @mr's pinned pages, one page reference each, which
 * the skb drops when the stack frees it: deregistration may unpin the
 * pages meanwhile, they stay allocated. A fragment continuing the last
 * one in its page widens it. Each fragment adds a whole page to the
 * skb's truesize, what it pins, whatever bytes of it the packet carries:
 * queues that bound themselves by truesize (a neighbour waiting for its
 * address) then bound the pinned memory too. Leaves @max_frags slots at
 * most in use.
 * -EOPNOTSUPP if @mr is not a user MR, -EMSGSIZE if the slots run out
 * (then some fragments may have been added: the caller drops the skb).
 */
int sroce_mr_frags(struct sroce_mr *mr, u64 iova, u32 len,
		   struct sk_buff *skb, unsigned int max_frags)
{
	u64 off = iova - mr->iova + mr->page_offset;

	if (mr->type != SROCE_MR_USER)
		return -EOPNOTSUPP;
	while (len) {
		struct page *page = mr->pages[off >> PAGE_SHIFT];
		u32 in_page = off & ~PAGE_MASK;
		u32 n = min_t(u32, len, PAGE_SIZE - in_page);
		int i = skb_shinfo(skb)->nr_frags;

		if (i && skb_can_coalesce(skb, i, page, in_page)) {
			skb_frag_size_add(&skb_shinfo(skb)->frags[i - 1], n);
		} else {
			if (i >= max_frags)
				return -EMSGSIZE;
			get_page(page);
			skb_fill_page_desc(skb, i, page, in_page, n);
			skb->truesize += PAGE_SIZE;
		}
		skb->len += n;
		skb->data_len += n;
		off += n;
		len -= n;
	}
	return 0;
}

/*
 * ATOMIC WRITE: store @val (8 bytes, as in memory) at @iova, 8-byte
 * aligned, as one single-copy-atomic store where the kernel mapping is
 * aligned too (a user MR's pages at an aligned offset, a kernel
 * address). An MR whose mapping is not aligned where its iova is gets
 * the bytes copied, under the caller's lock, as the other atomics.
 */
void sroce_mr_store64(struct sroce_mr *mr, u64 iova, u64 val)
{
	u64 off = iova - mr->iova + mr->page_offset;
	void *va;

	if (mr->type == SROCE_MR_DMA && !(iova & 7)) {
		/* release: what was placed before is seen before it */
		smp_store_release((u64 *)(uintptr_t)iova, val);
	} else if (mr->type == SROCE_MR_USER && !(off & 7)) {
		va = kmap_local_page(mr->pages[off >> PAGE_SHIFT]);
		/* release: what was placed before is seen before it */
		smp_store_release((u64 *)(va + (off & ~PAGE_MASK)), val);
		kunmap_local(va);
	} else {
		sroce_mr_copy(mr, iova, &val, sizeof(val), SROCE_TO_MR);
	}
}

struct ib_mr *sroce_get_dma_mr(struct ib_pd *pd, int access)
{
	struct sroce_dev *sdev = to_sdev(pd->device);
	struct sroce_mr *mr;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->type = SROCE_MR_DMA;
	mr->length = U64_MAX;
	err = sroce_mr_add(sdev, mr, pd, access);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

struct ib_mr *sroce_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(pd->device);
	struct sg_page_iter piter;
	struct sroce_mr *mr;
	struct ib_umem *umem;
	u32 i = 0;
	int err;

	if (access & ~(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		       IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |
		       IB_ACCESS_MW_BIND | IB_ACCESS_RELAXED_ORDERING))
		return ERR_PTR(sroce_refuse(pd->device, -EOPNOTSUPP,
					    "reg_user_mr: access flags %#x\n",
					    access));
	if (!length || length > SROCE_PORT_MAX_MSG_SZ * 64ULL)
		return ERR_PTR(sroce_refuse(pd->device, -EINVAL,
					    "reg_user_mr: length %llu (1 to %llu)\n",
					    length,
					    SROCE_PORT_MAX_MSG_SZ * 64ULL));

	umem = ib_umem_get(pd->device, start, length, access);
	if (IS_ERR(umem))
		return ERR_CAST(umem);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		err = -ENOMEM;
		goto err_umem;
	}
	mr->type = SROCE_MR_USER;
	mr->umem = umem;
	mr->iova = iova;
	mr->length = length;
	mr->page_offset = ib_umem_offset(umem);
	mr->npages = ib_umem_num_pages(umem);
	mr->pages = kvcalloc(mr->npages, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages) {
		err = -ENOMEM;
		goto err_mr;
	}
	for_each_sgtable_page(&umem->sgt_append.sgt, &piter, 0) {
		if (i == mr->npages)
			break;
		mr->pages[i++] = sg_page_iter_page(&piter);
	}
	if (i != mr->npages) {
		err = -EFAULT;
		goto err_pages;
	}

	err = sroce_mr_add(sdev, mr, pd, access);
	if (err)
		goto err_pages;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	return &mr->ibmr;

err_pages:
	kvfree(mr->pages);
err_mr:
	kfree(mr);
err_umem:
	ib_umem_release(umem);
	return ERR_PTR(err);
}

/* Memory registration by work request: IB_MR_TYPE_MEM_REG only. */
struct ib_mr *sroce_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			     u32 max_num_sg)
{
	struct sroce_dev *sdev = to_sdev(pd->device);
	struct sroce_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(sroce_refuse(pd->device, -EOPNOTSUPP,
					    "alloc_mr: type %d\n", type));
	if (!max_num_sg || max_num_sg > SROCE_MAX_FAST_REG_PAGES)
		return ERR_PTR(sroce_refuse(pd->device, -EINVAL,
					    "alloc_mr: %u pages (1 to %u)\n",
					    max_num_sg,
					    SROCE_MAX_FAST_REG_PAGES));
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->fr_pages = kcalloc(max_num_sg, sizeof(*mr->fr_pages), GFP_KERNEL);
	if (!mr->fr_pages) {
		kfree(mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->type = SROCE_MR_FAST;
	mr->state = SROCE_MR_FREE;
	mr->fr_max = max_num_sg;
	mr->fr_shift = PAGE_SHIFT;
	err = sroce_mr_add(sdev, mr, pd, 0);
	if (err) {
		kfree(mr->fr_pages);
		kfree(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

static int sroce_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct sroce_mr *mr = container_of(ibmr, struct sroce_mr, ibmr);

	if (mr->fr_npages == mr->fr_max)
		return -ENOMEM;
	mr->fr_pages[mr->fr_npages++] = addr;
	return 0;
}

/* Stage the pages of a coming IB_WR_REG_MR (the MR should be free). */
int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	struct sroce_mr *mr = container_of(ibmr, struct sroce_mr, ibmr);

	mr->fr_npages = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, sroce_set_page);
}

#define SROCE_FR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
			 IB_ACCESS_RELAXED_ORDERING)

/*
 * IB_WR_REG_MR from a kernel QP of @pd: @ibmr, free, of that PD, takes
 * its staged pages, @access and key @key (its index unchanged). -EINVAL
 * if any of that does not hold; the MR is left as it was.
 */
int sroce_mr_fast_reg(struct sroce_dev *sdev, struct ib_pd *pd,
		      struct ib_mr *ibmr, u32 key, u32 access)
{
	struct sroce_mr *mr;
	unsigned long flags;
	u64 page_size, span, first;
	int err = -EINVAL;

	/*
	 * The WQE's pointer is trusted only once our table holds it, under
	 * the key's index: an MR deregistered while its REG_MR waited in
	 * the queue, or another device's, is never dereferenced.
	 */
	mr = sroce_mr_ref(sdev, key);
	if (!mr)
		return -EINVAL;
	if (&mr->ibmr != ibmr)
		goto out;
	page_size = ibmr->page_size;
	if (mr->type != SROCE_MR_FAST || ibmr->pd != pd ||
	    (access & ~SROCE_FR_ACCESS) ||
	    (sroce_access_remote_writes(access) &&
	     !(access & IB_ACCESS_LOCAL_WRITE)) ||
	    !is_power_of_2(page_size) || page_size < SZ_4K ||
	    page_size > SZ_1G || !mr->fr_npages ||
	    mr->fr_npages > mr->fr_max)
		goto out;
	/* the pages must hold [iova, iova + length) */
	span = (u64)mr->fr_npages << ilog2(page_size);
	first = ibmr->iova & (page_size - 1);
	if (!ibmr->length || first >= span || ibmr->length > span - first ||
	    ibmr->iova + ibmr->length < ibmr->iova)
		goto out;

	spin_lock_irqsave(&mr->lock, flags);
	if (mr->state == SROCE_MR_FREE && (key >> 8) == (mr->key >> 8)) {
		mr->iova = ibmr->iova;
		mr->length = ibmr->length;
		WRITE_ONCE(mr->fr_shift, ilog2(page_size));
		WRITE_ONCE(mr->fr_live, mr->fr_npages);
		WRITE_ONCE(mr->access, access);
		WRITE_ONCE(mr->key, key);
		/* everything above is in place before the key works */
		smp_store_release(&mr->state, SROCE_MR_VALID);
		err = 0;
	}
	spin_unlock_irqrestore(&mr->lock, flags);
out:
	sroce_mr_put(mr);
	return err;
}

int sroce_mr_invalidate(struct sroce_mr *mr, struct ib_pd *pd, u32 key)
{
	unsigned long flags;
	int err = -EINVAL;

	spin_lock_irqsave(&mr->lock, flags);
	if (mr->type == SROCE_MR_FAST && mr->ibmr.pd == pd && mr->key == key) {
		WRITE_ONCE(mr->state, SROCE_MR_FREE);
		err = 0;
	}
	spin_unlock_irqrestore(&mr->lock, flags);
	if (err) {
		sroce_mr_put(mr);
		return err;
	}
	/*
	 * No new copy can start (sroce_mr_get() sees it free); wait for
	 * those in flight, so that the ULP, told the key is invalid, may
	 * free or re-map the pages. A copy holds its reference for one
	 * packet's memcpy, never sleeping. Our own reference goes first,
	 * under RCU (which keeps the MR's memory): two invalidations at
	 * once, on two QPs, must not wait for each other.
	 */
	smp_mb();
	rcu_read_lock();
	sroce_mr_put(mr);
	while (refcount_read(&mr->refs) > 1)
		cpu_relax();
	rcu_read_unlock();
	return 0;
}

int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sroce_mr *mr = container_of(ibmr, struct sroce_mr, ibmr);
	struct sroce_dev *sdev = to_sdev(ibmr->device);
	unsigned long flags;

	/* Not while windows are bound to it; none may bind from now on */
	spin_lock_irqsave(&mr->lock, flags);
	if (mr->num_mw) {
		spin_unlock_irqrestore(&mr->lock, flags);
		return sroce_refuse(ibmr->device, -EBUSY,
				    "dereg_mr: %u windows are bound to it\n",
				    mr->num_mw);
	}
	mr->dying = true;
	spin_unlock_irqrestore(&mr->lock, flags);

	xa_erase(&sdev->mr_table, mr->key >> 8);
	atomic_dec(&sdev->nmr);
	/*
	 * Copies in flight and WQEs hold references: wait for them. A
	 * zero-copy packet (sroce_mr_frags()) holds its pages instead,
	 * which outlive the unpinning as long as the stack keeps it.
	 */
	sroce_mr_put(mr);
	wait_for_completion(&mr->released);
	if (mr->umem)
		ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kfree(mr->fr_pages);
	kfree_rcu(mr, rcu);
	return 0;
}
