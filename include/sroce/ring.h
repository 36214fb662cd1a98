/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce ring entries: the rxe provider's send and receive work queue
 * entries (rdma-core's providers/rxe, the kernel's rdma_user_rxe.h),
 * decoded from bytes and checked, the way the packet parser decodes a
 * packet. A process writes these entries in memory it shares with the
 * kernel and may change them at any time: the glue copies an entry's
 * header out of the ring once, has it decoded and checked here, copies
 * the data area the header describes (no more than the checks allow),
 * and has that checked here too. Kernel callers' work requests are
 * written in the same format and go through the same checks.
 *
 * Fields are host-endian (the ring is shared on one host) but imm_data,
 * which is kept as the bytes read. The offsets below are the ABI's; the
 * module checks them against the kernel's struct definitions.
 */
#ifndef _SROCE_RING_H
#define _SROCE_RING_H

#include "sroce/compat.h"

/* struct rxe_send_wqe */
#define SROCE_SWQE_WR_ID	0
#define SROCE_SWQE_OPCODE	12
#define SROCE_SWQE_FLAGS	16
#define SROCE_SWQE_EX		20	/* imm_data or invalidate_rkey */
#define SROCE_SWQE_WR		24	/* the union below */
#define SROCE_SWQE_DMA_LENGTH	184	/* inline bytes */
#define SROCE_SWQE_DMA_NUM_SGE	196
#define SROCE_SWQE_HDR_LEN	208	/* then the SGE list or inline data */
/* within SROCE_SWQE_WR */
#define SROCE_SWR_RDMA_VA	0
#define SROCE_SWR_RDMA_RKEY	8
#define SROCE_SWR_ATOMIC_VA	0
#define SROCE_SWR_ATOMIC_COMPARE_ADD 8
#define SROCE_SWR_ATOMIC_SWAP	16
#define SROCE_SWR_ATOMIC_RKEY	24
#define SROCE_SWR_UD_QPN	0
#define SROCE_SWR_UD_QKEY	4
#define SROCE_SWR_UD_PKEY_INDEX	8
#define SROCE_SWR_UD_AH_NUM	12
#define SROCE_SWR_UD_AV		32	/* kernel rings: the address vector */
#define SROCE_SWR_MW_ADDR	0
#define SROCE_SWR_MW_LENGTH	8
#define SROCE_SWR_MW_MR_LKEY	16
#define SROCE_SWR_MW_MW_RKEY	20
#define SROCE_SWR_MW_RKEY	24
#define SROCE_SWR_MW_ACCESS	28
#define SROCE_SWR_REG_MR	0	/* kernel rings only: a struct ib_mr * */
#define SROCE_SWR_REG_KEY	8
#define SROCE_SWR_REG_ACCESS	12

/* struct rxe_recv_wqe */
#define SROCE_RWQE_WR_ID	0
#define SROCE_RWQE_NUM_SGE	28
#define SROCE_RWQE_HDR_LEN	40	/* then the SGE list */

/* struct rxe_sge */
#define SROCE_SGE_ADDR		0
#define SROCE_SGE_LENGTH	8
#define SROCE_SGE_LKEY		12
#define SROCE_SGE_LEN		16

/* Work request opcodes: the values of enum ib_wr_opcode */
#define SROCE_WR_OP_RDMA_WRITE		0
#define SROCE_WR_OP_RDMA_WRITE_IMM	1
#define SROCE_WR_OP_SEND		2
#define SROCE_WR_OP_SEND_IMM		3
#define SROCE_WR_OP_RDMA_READ		4
#define SROCE_WR_OP_CMP_SWAP		5
#define SROCE_WR_OP_FETCH_ADD		6
#define SROCE_WR_OP_LOCAL_INV		7
#define SROCE_WR_OP_BIND_MW		8
#define SROCE_WR_OP_SEND_INV		9
#define SROCE_WR_OP_ATOMIC_WRITE	15	/* IBA 1.5, the uverbs number */
#define SROCE_WR_OP_REG_MR		0x20

/* Send flags: the values of enum ib_send_flags */
#define SROCE_SEND_FENCE	BIT(0)
#define SROCE_SEND_SIGNALED	BIT(1)
#define SROCE_SEND_SOLICITED	BIT(2)
#define SROCE_SEND_INLINE	BIT(3)
#define SROCE_SEND_IP_CSUM	BIT(4)

/* A message is at most 2 GiB (the port's max_msg_sz) */
#define SROCE_MAX_MSG_LEN	0x80000000ULL

enum sroce_qp_type {
	SROCE_QPT_RC,
	SROCE_QPT_UC,
	SROCE_QPT_UD,		/* GSI too */
};

/* What a QP's send queue takes */
struct sroce_sq_caps {
	u8	type;		/* enum sroce_qp_type */
	bool	user;		/* a user ring: no REG_MR (it names a kernel object) */
	u32	max_sge;
	u32	max_inline;
	u32	mtu;		/* RC, UC: path MTU in bytes; UD: unused */
};

/* A send entry, decoded and checked */
struct sroce_send_entry {
	u64	wr_id;
	u32	opcode;		/* SROCE_WR_OP_* */
	u32	flags;		/* SROCE_SEND_* */
	u32	ex;		/* imm_data (bytes as read) or invalidate_rkey */
	/* RC and UC: what the engine's struct sroce_wqe takes */
	u8	kind;		/* enum sroce_wr_kind */
	u8	wqe_flags;	/* SROCE_WQE_* */
	u64	remote_addr;
	u32	rkey;
	u64	swap_add;	/* ATOMIC WRITE: its 8 bytes, as in memory */
	u64	compare;
	/* UD */
	u32	remote_qpn;
	u32	remote_qkey;
	u16	pkey_index;
	u32	ah_num;
	/* REG_MR, kernel rings */
	u64	reg_mr;
	u32	reg_key;
	u32	reg_access;
	/* BIND_MW */
	u64	mw_addr;
	u64	mw_length;
	u32	mw_lkey;
	u32	mw_rkey;
	u32	mw_new_rkey;
	u32	mw_access;
	/*
	 * The data area: data_len bytes after the header to copy, which
	 * hold num_sge SGEs, or the inline bytes (inlined), or an ATOMIC
	 * WRITE's 8 bytes. length is the message's, once checked.
	 */
	bool	inlined;
	u32	num_sge;
	u32	data_len;
	u64	length;
};

/*
 * Decode and check the header of a send entry (@hdr: SROCE_SWQE_HDR_LEN
 * bytes, a private copy) for a send queue of @caps. Returns SROCE_WC_SUCCESS
 * and fills @e, data_len included (at most max_sge SGEs, or max_inline
 * bytes, or 8), or the status the entry completes with:
 * SROCE_WC_LOC_QP_OP_ERR (an opcode or flag the QP does not take),
 * SROCE_WC_LOC_LEN_ERR (more data than the QP takes).
 */
u8 sroce_ring_send_hdr(const u8 *hdr, const struct sroce_sq_caps *caps,
		       struct sroce_send_entry *e);

/*
 * Check the data area the header described (@data: e->data_len bytes, a
 * private copy) and set e->length. Same statuses. A UD entry's P_Key
 * index is checked here, after its length, as it always was.
 */
u8 sroce_ring_send_data(const u8 *data, const struct sroce_sq_caps *caps,
			struct sroce_send_entry *e);

/*
 * A receive entry's header (@hdr: SROCE_RWQE_HDR_LEN bytes, a private
 * copy): its wr_id and number of SGEs. False if it has more than @max_sge:
 * it then holds nothing (*@num_sge is 0), and a message for it completes
 * in error.
 */
bool sroce_ring_recv_hdr(const u8 *hdr, u32 max_sge, u64 *wr_id,
			 u32 *num_sge);

/* The bytes @n SGEs (@sge, a private copy) hold, at most 2 GiB */
u32 sroce_ring_recv_len(const u8 *sge, u32 n);

/* An SGE of a copied list */
static inline u32 sroce_ring_sge_length(const u8 *sge, u32 i)
{
	u32 v;

	memcpy(&v, sge + (size_t)i * SROCE_SGE_LEN + SROCE_SGE_LENGTH, 4);
	return v;
}

#endif /* _SROCE_RING_H */
