// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared queue memory: allocation, the mmap protocol of the rxe provider
 * and the lifetime of buffers that outlive their objects.
 *
 * A user queue's buffer is vmalloc_user() memory registered as an
 * rdma_user_mmap_entry; its offset and size go back to the provider in a
 * struct mminfo. The provider keeps its mapping until after the destroy
 * command returns, so destroy only removes the entry: the buffer is freed
 * in sroce_mmap_free() when the core drops the entry's last reference,
 * and pages still mapped keep their own references. A device that goes
 * while a process holds it takes the rings out of its address space
 * (sroce_disassociate_ucontext()).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "sroce_queue.h"

#define SROCE_QUEUE_HDR	offsetof(struct rxe_queue_buf, data)

int sroce_queue_init(struct sroce_queue *q, struct ib_udata *udata,
		     u32 min_slots, u32 elem_size)
{
	struct sroce_ucontext *uctx;
	u32 slots, log2_elem;
	int err;

	elem_size = max_t(u32, elem_size, L1_CACHE_BYTES);
	log2_elem = order_base_2(elem_size);
	/* One slot always stays empty: full and empty must differ. */
	slots = roundup_pow_of_two(max_t(u32, min_slots + 1, 2));
	if (slots > (1U << 20) || log2_elem > 16)
		return -EINVAL;

	memset(q, 0, sizeof(*q));
	q->log2_elem_size = log2_elem;
	q->index_mask = slots - 1;
	q->buf_size = PAGE_ALIGN(SROCE_QUEUE_HDR + ((size_t)slots << log2_elem));

	if (!udata) {
		q->buf = vzalloc(q->buf_size);
		if (!q->buf)
			return -ENOMEM;
		goto out;
	}

	uctx = rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);
	q->mmap = kzalloc(sizeof(*q->mmap), GFP_KERNEL);
	if (!q->mmap)
		return -ENOMEM;
	q->buf = vmalloc_user(q->buf_size);
	if (!q->buf) {
		kfree(q->mmap);
		q->mmap = NULL;
		return -ENOMEM;
	}
	q->mmap->buf = q->buf;
	err = rdma_user_mmap_entry_insert(&uctx->ibuc, &q->mmap->rdma,
					  q->buf_size);
	if (err) {
		vfree(q->buf);
		kfree(q->mmap);
		q->mmap = NULL;
		q->buf = NULL;
		return err;
	}
out:
	q->buf->log2_elem_size = log2_elem;
	q->buf->index_mask = q->index_mask;
	return 0;
}

/* The kernel stops using the queue; user memory lives on until unmapped. */
void sroce_queue_destroy(struct sroce_queue *q)
{
	if (q->mmap)
		rdma_user_mmap_entry_remove(&q->mmap->rdma);
	else
		vfree(q->buf);
	q->buf = NULL;
	q->mmap = NULL;
}

int sroce_queue_mminfo(struct sroce_queue *q, struct mminfo *mi)
{
	memset(mi, 0, sizeof(*mi));
	if (!q->mmap)
		return 0;
	mi->offset = rdma_user_mmap_get_offset(&q->mmap->rdma);
	mi->size = q->buf_size;
	return 0;
}

int sroce_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct sroce_ucontext *uctx =
		container_of(ibuc, struct sroce_ucontext, ibuc);
	struct rdma_user_mmap_entry *entry;
	struct sroce_mmap *m;
	int err;

	entry = rdma_user_mmap_entry_get(ibuc, vma);
	if (!entry)
		return sroce_refuse(ibuc->device, -EINVAL,
				    "mmap: offset %#lx is no ring of this context\n",
				    vma->vm_pgoff << PAGE_SHIFT);
	m = container_of(entry, struct sroce_mmap, rdma);
	if (vma->vm_end - vma->vm_start > entry->npages << PAGE_SHIFT)
		err = sroce_refuse(ibuc->device, -EINVAL,
				   "mmap: %lu bytes of a %zu-byte ring\n",
				   vma->vm_end - vma->vm_start,
				   entry->npages << PAGE_SHIFT);
	else
		err = remap_vmalloc_range(vma, m->buf, 0);
	rdma_user_mmap_entry_put(entry);
	/* a context's mappings are all of its one uverbs file */
	if (!err)
		WRITE_ONCE(uctx->mapping, vma->vm_file->f_mapping);
	return err;
}

/*
 * The device ends, or moves to another namespace, while a process still
 * holds context @ibuc: the core destroyed its objects already (the
 * kernel touches none of its rings any more) and tells the process
 * IBV_EVENT_DEVICE_FATAL. Take the rings out of its address space, so
 * that a touch afterwards gets SIGBUS (the core's fault handler, for a
 * mapping the core does not track) rather than quietly reading and
 * writing rings nobody serves; the pages are freed once unmapped.
 * Offsets are per context, so the whole uverbs file is unmapped: every
 * context of the device is being disassociated with this one.
 */
void sroce_disassociate_ucontext(struct ib_ucontext *ibuc)
{
	struct sroce_ucontext *uctx =
		container_of(ibuc, struct sroce_ucontext, ibuc);
	struct address_space *mapping = READ_ONCE(uctx->mapping);

	/* the file is open while its context lives: its inode too */
	if (mapping)
		unmap_mapping_range(mapping, 0, 0, 1);
}

void sroce_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct sroce_mmap *m = container_of(entry, struct sroce_mmap, rdma);

	vfree(m->buf);
	kfree(m);
}
