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
	mr->access = access;
	mr->ibmr.pd = pd;
	err = xa_alloc_cyclic(&sdev->mr_table, &index, mr,
			      XA_LIMIT(1, SROCE_MAX_MR), &sdev->mr_next,
			      GFP_KERNEL);
	if (err < 0)
		return err;
	mr->key = index << 8 | (get_random_u32() & 0xff);
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	return 0;
}

/*
 * Find the MR a key names, check that it belongs to @pd, allows @access
 * and holds [@iova, @iova + @len), and take a reference. NULL otherwise.
 */
struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, struct ib_pd *pd,
			      u32 key, u32 access, u64 iova, u64 len)
{
	struct sroce_mr *mr;

	rcu_read_lock();
	mr = xa_load(&sdev->mr_table, key >> 8);
	/* the state first: a registration's fields are set before it */
	if (!mr || smp_load_acquire(&mr->state) != SROCE_MR_VALID ||
	    READ_ONCE(mr->key) != key || mr->ibmr.pd != pd ||
	    (READ_ONCE(mr->access) & access) != access ||
	    !refcount_inc_not_zero(&mr->refs)) {
		rcu_read_unlock();
		return NULL;
	}
	rcu_read_unlock();

	if (mr->type != SROCE_MR_DMA &&
	    (iova < mr->iova || len > mr->length ||
	     iova - mr->iova > mr->length - len)) {
		sroce_mr_put(mr);
		return NULL;
	}
	return mr;
}

void sroce_mr_put(struct sroce_mr *mr)
{
	if (refcount_dec_and_test(&mr->refs))
		complete(&mr->released);
}

/*
 * A fast-registration MR: pages of 2^fr_shift bytes at kernel virtual
 * addresses (virtual DMA: a ULP's page_address()es, contiguous within a
 * page however large). The index is checked against the array itself:
 * a ULP re-mapping an MR it invalidated under a transfer still in
 * flight gets its own pages written, never memory past the array.
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

		if (WARN_ON_ONCE(idx >= mr->fr_max))
			return;
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
		return ERR_PTR(-EOPNOTSUPP);
	if (!length || length > SROCE_PORT_MAX_MSG_SZ * 64ULL)
		return ERR_PTR(-EINVAL);

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
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > SROCE_MAX_FAST_REG_PAGES)
		return ERR_PTR(-EINVAL);
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
	spin_lock_init(&mr->fr_lock);
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
	struct sroce_mr *mr = container_of(ibmr, struct sroce_mr, ibmr);
	u64 page_size = ibmr->page_size;
	unsigned long flags;
	u64 room;
	int err = -EINVAL;

	if (ibmr->device != &sdev->ibdev || ibmr->type != IB_MR_TYPE_MEM_REG ||
	    mr->type != SROCE_MR_FAST || ibmr->pd != pd ||
	    (access & ~SROCE_FR_ACCESS) ||
	    !is_power_of_2(page_size) || page_size < SZ_4K ||
	    page_size > SZ_1G || mr->fr_npages > mr->fr_max)
		return -EINVAL;
	/* the pages must hold [iova, iova + length) */
	room = ((u64)mr->fr_npages << ilog2(page_size)) -
	       (ibmr->iova & (page_size - 1));
	if (!ibmr->length || ibmr->length > room ||
	    ibmr->iova + ibmr->length < ibmr->iova)
		return -EINVAL;

	spin_lock_irqsave(&mr->fr_lock, flags);
	if (mr->state == SROCE_MR_FREE && (key >> 8) == (mr->key >> 8)) {
		mr->iova = ibmr->iova;
		mr->length = ibmr->length;
		WRITE_ONCE(mr->fr_shift, ilog2(page_size));
		WRITE_ONCE(mr->access, access);
		WRITE_ONCE(mr->key, key);
		/* everything above is in place before the key works */
		smp_store_release(&mr->state, SROCE_MR_VALID);
		err = 0;
	}
	spin_unlock_irqrestore(&mr->fr_lock, flags);
	return err;
}

/*
 * LOCAL_INV, or a peer's Send with Invalidate on a QP of @pd: free the
 * fast-registration MR that @key names now. -EINVAL for any other key
 * (another PD's, a stale key byte, a user or DMA MR). Invalidating an
 * MR already free is not an error.
 */
int sroce_mr_invalidate(struct sroce_dev *sdev, struct ib_pd *pd, u32 key)
{
	unsigned long flags;
	struct sroce_mr *mr;
	int err = -EINVAL;

	rcu_read_lock();
	mr = xa_load(&sdev->mr_table, key >> 8);
	if (!mr || !refcount_inc_not_zero(&mr->refs)) {
		rcu_read_unlock();
		return -EINVAL;
	}
	rcu_read_unlock();
	spin_lock_irqsave(&mr->fr_lock, flags);
	if (mr->type == SROCE_MR_FAST && mr->ibmr.pd == pd && mr->key == key) {
		WRITE_ONCE(mr->state, SROCE_MR_FREE);
		err = 0;
	}
	spin_unlock_irqrestore(&mr->fr_lock, flags);
	sroce_mr_put(mr);
	return err;
}

int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sroce_mr *mr = container_of(ibmr, struct sroce_mr, ibmr);
	struct sroce_dev *sdev = to_sdev(ibmr->device);

	xa_erase(&sdev->mr_table, mr->key >> 8);
	/* In-flight packets and WQEs hold references: wait for them. */
	sroce_mr_put(mr);
	wait_for_completion(&mr->released);
	if (mr->umem)
		ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kfree(mr->fr_pages);
	kfree_rcu(mr, rcu);
	return 0;
}
