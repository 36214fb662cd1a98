/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Rings shared with userspace in the rxe provider's format (struct
 * rxe_queue_buf): SQ, RQ and CQ of user objects live in vmalloc_user()
 * memory mapped by the process; kernel objects use the same layout in
 * kernel memory, so one code path serves both.
 *
 * The kernel keeps private copies of the geometry and of the index it
 * owns, and never reads them back from the shared header: userspace may
 * scribble anything there. The peer's index is loaded with acquire
 * semantics and masked before use.
 */
#ifndef SROCE_QUEUE_H
#define SROCE_QUEUE_H

#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

/* Bytes of the provider's send and receive WQEs before their SGE lists. */
#define SROCE_SWQE_HDR		offsetof(struct rxe_send_wqe, dma.sge)
#define SROCE_RWQE_HDR		offsetof(struct rxe_recv_wqe, dma.sge)

struct sroce_mmap {
	struct rdma_user_mmap_entry	rdma;
	void				*buf;	/* freed in mmap_free */
};

struct sroce_queue {
	struct rxe_queue_buf	*buf;
	size_t			buf_size;
	u32			log2_elem_size;
	u32			index_mask;	/* slots - 1 */
	/* The index this side owns: consumer of SQ/RQ, producer of CQ. */
	u32			own;
	struct sroce_mmap	*mmap;		/* user queues only */
};

int sroce_queue_init(struct sroce_queue *q, struct ib_udata *udata,
		     u32 min_slots, u32 elem_size);
void sroce_queue_destroy(struct sroce_queue *q);
int sroce_queue_mminfo(struct sroce_queue *q, struct mminfo *mi);

static inline u32 sroce_queue_slots(const struct sroce_queue *q)
{
	return q->index_mask + 1;
}

static inline void *sroce_queue_slot(const struct sroce_queue *q, u32 i)
{
	return q->buf->data + ((size_t)(i & q->index_mask) << q->log2_elem_size);
}

/* The producer's index, masked; slot contents it covers are visible. */
static inline u32 sroce_queue_producer(const struct sroce_queue *q)
{
	/* Pairs with the producer's release after writing its slots. */
	return smp_load_acquire(&q->buf->producer_index) & q->index_mask;
}

/* The consumer's index, masked; slots before it are free to reuse. */
static inline u32 sroce_queue_consumer(const struct sroce_queue *q)
{
	/* Pairs with the consumer's release once it is done with slots. */
	return smp_load_acquire(&q->buf->consumer_index) & q->index_mask;
}

/* Publish a new consumer index after the slots before it are done. */
static inline void sroce_queue_set_consumer(struct sroce_queue *q, u32 cons)
{
	/* Our reads of the released slots happen before the producer reuses them. */
	smp_store_release(&q->buf->consumer_index, cons & q->index_mask);
}

/* Consumer side (SQ, RQ): entries the producer has published. */
static inline u32 sroce_queue_count(const struct sroce_queue *q)
{
	return (sroce_queue_producer(q) - q->own) & q->index_mask;
}

static inline void *sroce_queue_head(const struct sroce_queue *q)
{
	return sroce_queue_count(q) ? sroce_queue_slot(q, q->own) : NULL;
}

static inline void sroce_queue_pop(struct sroce_queue *q)
{
	q->own = (q->own + 1) & q->index_mask;
	sroce_queue_set_consumer(q, q->own);
}

/* Producer side (CQ, and kernel SQ/RQ): a free slot or NULL when full. */
static inline void *sroce_queue_tail(const struct sroce_queue *q, u32 prod)
{
	if (((prod + 1) & q->index_mask) == sroce_queue_consumer(q))
		return NULL;
	return sroce_queue_slot(q, prod);
}

static inline void sroce_queue_publish(struct sroce_queue *q, u32 *prod)
{
	*prod = (*prod + 1) & q->index_mask;
	/* The slot is written before the consumer can see it. */
	smp_store_release(&q->buf->producer_index, *prod);
}

int sroce_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void sroce_disassociate_ucontext(struct ib_ucontext *ibuc);
void sroce_mmap_free(struct rdma_user_mmap_entry *entry);

#endif /* SROCE_QUEUE_H */
