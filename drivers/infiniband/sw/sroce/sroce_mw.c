// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory windows: allocation, binding by send WQE, invalidation, and the
 * lookup of rkeys from the wire, which may name an MR or a window.
 *
 * Every field of a window changes under its lock, and a lookup reads
 * them under the same lock, so no packet sees half a binding (a new
 * range with the old MR). The window itself is found under RCU and freed
 * after a grace period: the core frees struct ib_mw at once, so the
 * state lookups read lives in a separate allocation.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/random.h>
#include <linux/slab.h>

#include "sroce.h"
#include "sroce_mr.h"
#include "sroce_mw.h"
#include "sroce_param.h"
#include "sroce_qp.h"

/* What lookups and binds read: RCU-freed, apart from the core's ib_mw */
struct sroce_mw_state {
	spinlock_t		lock;	/* every field below, binds, lookups */
	enum ib_mw_type		type;
	struct ib_pd		*pd;
	u8			state;	/* enum sroce_mr_state */
	u32			key;
	u64			qp_uid;	/* type 2: the QP it is bound to */
	u32			access;	/* IB_ACCESS_REMOTE_* */
	u64			iova;
	u64			length;
	struct sroce_mr		*mr;	/* bound to: a reference, num_mw */
	struct rcu_head		rcu;
};

#define SROCE_MW_ACCESS	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_ATOMIC)

int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct sroce_ibmw *w = container_of(ibmw, struct sroce_ibmw, ibmw);
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_mw_state *mw;
	u32 index;
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return sroce_refuse(ibmw->device, -EINVAL,
				    "alloc_mw: type %d\n", ibmw->type);
	if (!atomic_add_unless(&sdev->nmw, 1, SROCE_MAX_MW))
		return sroce_refuse(ibmw->device, -ENOMEM,
				    "alloc_mw: the device's %u windows exist\n",
				    SROCE_MAX_MW);
	mw = kzalloc(sizeof(*mw), GFP_KERNEL);
	if (!mw) {
		atomic_dec(&sdev->nmw);
		return -ENOMEM;
	}
	spin_lock_init(&mw->lock);
	mw->type = ibmw->type;
	mw->pd = ibmw->pd;
	/* a type 1 window is valid, bound to nothing; type 2 starts free */
	mw->state = ibmw->type == IB_MW_TYPE_1 ? SROCE_MR_VALID :
						  SROCE_MR_FREE;
	/* the key before the entry: a lookup never sees the window keyless */
	mw->key = get_random_u32() & 0xff;
	err = xa_alloc_cyclic(&sdev->mr_table, &index, NULL,
			      XA_LIMIT(1, SROCE_KEY_TABLE), &sdev->mr_next,
			      GFP_KERNEL);
	if (err < 0) {
		kfree(mw);
		atomic_dec(&sdev->nmw);
		return err;
	}
	mw->key |= index << 8;
	/* into the slot reserved above: no allocation, cannot fail */
	xa_store(&sdev->mr_table, index, xa_tag_pointer(mw, SROCE_KEY_MW),
		 GFP_KERNEL);
	ibmw->rkey = mw->key;
	w->mw = mw;
	return 0;
}

/* Drop the MR @mw is bound to. mw->lock held. */
static void sroce_mw_unbind(struct sroce_mw_state *mw)
{
	struct sroce_mr *mr = mw->mr;
	unsigned long flags;

	if (!mr)
		return;
	spin_lock_irqsave(&mr->lock, flags);
	mr->num_mw--;
	spin_unlock_irqrestore(&mr->lock, flags);
	sroce_mr_put(mr);
	mw->mr = NULL;
	mw->length = 0;
}

int sroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct sroce_mw_state *mw = container_of(ibmw, struct sroce_ibmw,
						 ibmw)->mw;
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	unsigned long flags;

	xa_erase(&sdev->mr_table, mw->key >> 8);
	/*
	 * Key 0 names nothing (index 0 is never given): a bind or a lookup
	 * that found the window before the erase refuses it once it holds
	 * the lock, and nothing binds a window about to be freed.
	 */
	spin_lock_irqsave(&mw->lock, flags);
	mw->state = SROCE_MR_FREE;
	mw->key = 0;
	sroce_mw_unbind(mw);
	spin_unlock_irqrestore(&mw->lock, flags);
	kfree_rcu(mw, rcu);
	atomic_dec(&sdev->nmw);
	return 0;
}

/* The window a key-table entry holds, or NULL. Under rcu_read_lock(). */
static struct sroce_mw_state *sroce_mw_entry(void *entry)
{
	if (!entry || xa_pointer_tag(entry) != SROCE_KEY_MW)
		return NULL;
	return xa_untag_pointer(entry);
}

/*
 * Bind checks on the copied WQE: the window of the QP's PD under its
 * current key, the new key on the same index, remote rights only (no
 * zero-based windows), type 2 free and given an MR; the MR of the same
 * PD, valid, with MW_BIND, holding the window, and LOCAL_WRITE for a
 * window that can be written. Length 0 unbinds a type 1 window. A window
 * grants remote rights only: LOCAL_WRITE in the request (rdma-core's
 * examples and UCX pass the MR's flags) is accepted and ignored, as
 * rdma_rxe and hardware do.
 */
static int sroce_mw_bind_locked(struct sroce_qp *qp, struct sroce_mw_state *mw,
				const struct sroce_swqe *w)
{
	struct ib_pd *pd = qp->ibqp.pd;
	struct sroce_mr *mr = NULL;
	unsigned long flags;

	if (!mw->key || mw->key != w->mw_rkey || mw->pd != pd ||
	    (w->bind_rkey >> 8) != (mw->key >> 8) ||
	    (w->bind_access & ~(SROCE_MW_ACCESS | IB_ACCESS_LOCAL_WRITE)) ||
	    (mw->type == IB_MW_TYPE_2 &&
	     (mw->state != SROCE_MR_FREE || !w->bind_length)))
		return -EINVAL;
	if (w->bind_length) {
		mr = sroce_mr_get(qp->sdev, pd, w->mr_lkey, IB_ACCESS_MW_BIND,
				  w->bind_addr, w->bind_length);
		if (!mr)
			return -EINVAL;
		spin_lock_irqsave(&mr->lock, flags);
		if (mr->type == SROCE_MR_DMA || mr->dying ||
		    (sroce_access_remote_writes(w->bind_access) &&
		     !(mr->access & IB_ACCESS_LOCAL_WRITE))) {
			spin_unlock_irqrestore(&mr->lock, flags);
			sroce_mr_put(mr);
			return -EINVAL;
		}
		mr->num_mw++;
		spin_unlock_irqrestore(&mr->lock, flags);
	}
	sroce_mw_unbind(mw);
	/* the reference sroce_mr_get() took is the window's now */
	mw->mr = mr;
	mw->iova = w->bind_addr;
	mw->length = w->bind_length;
	mw->access = w->bind_access & SROCE_MW_ACCESS;
	mw->key = w->bind_rkey;
	mw->qp_uid = qp->uid;
	mw->state = SROCE_MR_VALID;
	return 0;
}

u8 sroce_mw_bind(struct sroce_qp *qp, const struct sroce_swqe *w)
{
	struct sroce_mw_state *mw;
	unsigned long flags;
	int err = -EINVAL;

	rcu_read_lock();
	mw = sroce_mw_entry(xa_load(&qp->sdev->mr_table, w->mw_rkey >> 8));
	if (mw) {
		spin_lock_irqsave(&mw->lock, flags);
		err = sroce_mw_bind_locked(qp, mw, w);
		spin_unlock_irqrestore(&mw->lock, flags);
	}
	rcu_read_unlock();
	if (err) {
		sroce_qp_count(qp, SROCE_CNT_LOCAL_OP_ERRORS);
		pr_warn_ratelimited("%s: QP %u: bind of window %#x refused\n",
				    dev_name(&qp->sdev->ibdev.dev),
				    qp->ibqp.qp_num, w->mw_rkey);
		return IB_WC_MW_BIND_ERR;
	}
	sroce_qp_count(qp, SROCE_CNT_MW_BINDS);
	return IB_WC_SUCCESS;
}

struct sroce_mr *sroce_rkey_get(struct sroce_qp *qp, u32 rkey, u32 access,
				u64 va, u64 len)
{
	struct sroce_mw_state *mw;
	struct sroce_mr *mr = NULL;
	unsigned long flags;
	void *entry;

	/* one lookup per packet: an MR, or a window */
	rcu_read_lock();
	entry = xa_load(&qp->sdev->mr_table, rkey >> 8);
	mw = sroce_mw_entry(entry);
	if (!mw) {
		mr = sroce_mr_tryget(entry);
		rcu_read_unlock();
		return mr ? sroce_mr_check(mr, qp->ibqp.pd, rkey, access, va,
					   len) : NULL;
	}
	spin_lock_irqsave(&mw->lock, flags);
	if (mw->state == SROCE_MR_VALID && mw->key == rkey &&
	    mw->pd == qp->ibqp.pd && mw->mr &&
	    (mw->type == IB_MW_TYPE_1 || mw->qp_uid == qp->uid) &&
	    (mw->access & access) == access &&
	    va >= mw->iova && len <= mw->length &&
	    va - mw->iova <= mw->length - len &&
	    refcount_inc_not_zero(&mw->mr->refs))
		mr = mw->mr;
	spin_unlock_irqrestore(&mw->lock, flags);
	rcu_read_unlock();
	if (!mr)
		return NULL;
	/* the MR itself must still hold the range (never otherwise) */
	if (smp_load_acquire(&mr->state) != SROCE_MR_VALID ||
	    va < mr->iova || len > mr->length ||
	    va - mr->iova > mr->length - len) {
		sroce_mr_put(mr);
		return NULL;
	}
	return mr;
}

int sroce_key_invalidate(struct sroce_qp *qp, u32 key)
{
	struct sroce_mw_state *mw;
	struct sroce_mr *mr;
	unsigned long flags;
	int err = -EINVAL;
	void *entry;

	rcu_read_lock();
	entry = xa_load(&qp->sdev->mr_table, key >> 8);
	mw = sroce_mw_entry(entry);
	if (!mw) {
		mr = sroce_mr_tryget(entry);
		rcu_read_unlock();
		return mr ? sroce_mr_invalidate(mr, qp->ibqp.pd, key) : -EINVAL;
	}
	/* type 2 only, by the QP it is bound to */
	spin_lock_irqsave(&mw->lock, flags);
	if (mw->type == IB_MW_TYPE_2 && mw->key == key &&
	    mw->pd == qp->ibqp.pd && mw->state == SROCE_MR_VALID &&
	    mw->qp_uid == qp->uid) {
		mw->state = SROCE_MR_FREE;
		sroce_mw_unbind(mw);
		err = 0;
	}
	spin_unlock_irqrestore(&mw->lock, flags);
	rcu_read_unlock();
	return err;
}
