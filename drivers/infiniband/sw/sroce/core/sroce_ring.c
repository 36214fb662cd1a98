// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce ring entries: the rxe provider's send and receive entries decoded
 * and checked. Pure functions over private copies; see ring.h.
 */
#include "sroce/psn.h"
#include "sroce/rc.h"
#include "sroce/rc_engine.h"
#include "sroce/ring.h"
#include "sroce/wire.h"

static u64 rd64(const u8 *p, u32 off)
{
	u64 v;

	memcpy(&v, p + off, 8);
	return v;
}

static u32 rd32(const u8 *p, u32 off)
{
	u32 v;

	memcpy(&v, p + off, 4);
	return v;
}

static u16 rd16(const u8 *p, u32 off)
{
	u16 v;

	memcpy(&v, p + off, 2);
	return v;
}

static bool op_atomic(u32 op)
{
	return op == SROCE_WR_OP_CMP_SWAP || op == SROCE_WR_OP_FETCH_ADD;
}

/* Carried out by the requester itself, no packets */
static bool op_local(u32 op)
{
	return op == SROCE_WR_OP_LOCAL_INV || op == SROCE_WR_OP_REG_MR ||
	       op == SROCE_WR_OP_BIND_MW;
}

/* What an RC QP sends; a UC QP sends no READ, atomic or SEND_WITH_INV */
static bool op_allowed(u32 op, u8 type)
{
	switch (op) {
	case SROCE_WR_OP_SEND:
	case SROCE_WR_OP_SEND_IMM:
	case SROCE_WR_OP_RDMA_WRITE:
	case SROCE_WR_OP_RDMA_WRITE_IMM:
	case SROCE_WR_OP_LOCAL_INV:
	case SROCE_WR_OP_REG_MR:
	case SROCE_WR_OP_BIND_MW:
		return true;
	case SROCE_WR_OP_RDMA_READ:
	case SROCE_WR_OP_CMP_SWAP:
	case SROCE_WR_OP_FETCH_ADD:
	case SROCE_WR_OP_SEND_INV:
	case SROCE_WR_OP_ATOMIC_WRITE:
		return type == SROCE_QPT_RC;
	default:
		return false;
	}
}

static u8 op_kind(u32 op)
{
	switch (op) {
	case SROCE_WR_OP_SEND_IMM:
		return SROCE_WR_SEND_IMM;
	case SROCE_WR_OP_RDMA_WRITE:
		return SROCE_WR_WRITE;
	case SROCE_WR_OP_RDMA_WRITE_IMM:
		return SROCE_WR_WRITE_IMM;
	case SROCE_WR_OP_RDMA_READ:
		return SROCE_WR_READ;
	case SROCE_WR_OP_CMP_SWAP:
		return SROCE_WR_CMP_SWAP;
	case SROCE_WR_OP_FETCH_ADD:
		return SROCE_WR_FETCH_ADD;
	case SROCE_WR_OP_ATOMIC_WRITE:
		return SROCE_WR_ATOMIC_WRITE;
	case SROCE_WR_OP_SEND_INV:
		return SROCE_WR_SEND_INV;
	case SROCE_WR_OP_LOCAL_INV:
	case SROCE_WR_OP_REG_MR:
	case SROCE_WR_OP_BIND_MW:
		return SROCE_WR_LOCAL;
	default:
		return SROCE_WR_SEND;
	}
}

/* The data area: inline bytes or an SGE list, within the QP's limits */
static u8 send_data_area(const u8 *hdr, const struct sroce_sq_caps *caps,
			 struct sroce_send_entry *e)
{
	if (e->flags & SROCE_SEND_INLINE) {
		u32 len = rd32(hdr, SROCE_SWQE_DMA_LENGTH);

		if (len > caps->max_inline)
			return SROCE_WC_LOC_LEN_ERR;
		e->inlined = true;
		e->data_len = len;
		return SROCE_WC_SUCCESS;
	}
	e->num_sge = rd32(hdr, SROCE_SWQE_DMA_NUM_SGE);
	if (e->num_sge > caps->max_sge) {
		e->num_sge = 0;
		return SROCE_WC_LOC_LEN_ERR;
	}
	e->data_len = e->num_sge * SROCE_SGE_LEN;
	return SROCE_WC_SUCCESS;
}

static u8 send_hdr_ud(const u8 *hdr, const struct sroce_sq_caps *caps,
		      struct sroce_send_entry *e)
{
	const u8 *wr = hdr + SROCE_SWQE_WR;

	if (e->opcode != SROCE_WR_OP_SEND && e->opcode != SROCE_WR_OP_SEND_IMM)
		return SROCE_WC_LOC_QP_OP_ERR;
	/* A fence orders nothing on UD, and there is no checksum offload */
	if (e->flags & ~(SROCE_SEND_SIGNALED | SROCE_SEND_SOLICITED |
			 SROCE_SEND_INLINE | SROCE_SEND_FENCE |
			 SROCE_SEND_IP_CSUM))
		return SROCE_WC_LOC_QP_OP_ERR;
	e->remote_qpn = rd32(wr, SROCE_SWR_UD_QPN);
	e->remote_qkey = rd32(wr, SROCE_SWR_UD_QKEY);
	e->pkey_index = rd16(wr, SROCE_SWR_UD_PKEY_INDEX);
	e->ah_num = rd32(wr, SROCE_SWR_UD_AH_NUM);
	return send_data_area(hdr, caps, e);
}

static u8 send_hdr_rc(const u8 *hdr, const struct sroce_sq_caps *caps,
		      struct sroce_send_entry *e)
{
	const u8 *wr = hdr + SROCE_SWQE_WR;
	u32 op = e->opcode;

	e->kind = op_kind(op);
	if (op_atomic(op)) {
		e->remote_addr = rd64(wr, SROCE_SWR_ATOMIC_VA);
		e->rkey = rd32(wr, SROCE_SWR_ATOMIC_RKEY);
		if (op == SROCE_WR_OP_CMP_SWAP) {
			e->swap_add = rd64(wr, SROCE_SWR_ATOMIC_SWAP);
			e->compare = rd64(wr, SROCE_SWR_ATOMIC_COMPARE_ADD);
		} else {
			e->swap_add = rd64(wr, SROCE_SWR_ATOMIC_COMPARE_ADD);
		}
	} else {
		e->remote_addr = rd64(wr, SROCE_SWR_RDMA_VA);
		e->rkey = rd32(wr, SROCE_SWR_RDMA_RKEY);
	}
	if (e->flags & SROCE_SEND_SIGNALED)
		e->wqe_flags |= SROCE_WQE_SIGNALED;
	if (e->flags & SROCE_SEND_SOLICITED)
		e->wqe_flags |= SROCE_WQE_SOLICITED;
	if (e->flags & SROCE_SEND_FENCE)
		e->wqe_flags |= SROCE_WQE_FENCE;

	if (!op_allowed(op, caps->type))
		return SROCE_WC_LOC_QP_OP_ERR;
	if (e->flags & ~(SROCE_SEND_FENCE | SROCE_SEND_SIGNALED |
			 SROCE_SEND_SOLICITED | SROCE_SEND_INLINE))
		return SROCE_WC_LOC_QP_OP_ERR;
	if (op_local(op)) {
		/*
		 * No data, no SGEs. REG_MR names an ib_mr by its kernel
		 * address: only a kernel QP's ring may hold one.
		 */
		if (op == SROCE_WR_OP_REG_MR) {
			if (caps->user)
				return SROCE_WC_LOC_QP_OP_ERR;
			e->reg_mr = rd64(wr, SROCE_SWR_REG_MR);
			e->reg_key = rd32(wr, SROCE_SWR_REG_KEY);
			e->reg_access = rd32(wr, SROCE_SWR_REG_ACCESS);
		} else if (op == SROCE_WR_OP_BIND_MW) {
			e->mw_rkey = rd32(wr, SROCE_SWR_MW_MW_RKEY);
			e->mw_new_rkey = rd32(wr, SROCE_SWR_MW_RKEY);
			e->mw_lkey = rd32(wr, SROCE_SWR_MW_MR_LKEY);
			e->mw_addr = rd64(wr, SROCE_SWR_MW_ADDR);
			e->mw_length = rd64(wr, SROCE_SWR_MW_LENGTH);
			e->mw_access = rd32(wr, SROCE_SWR_MW_ACCESS);
		} else {
			/* nothing before it may be sent again after it */
			e->wqe_flags |= SROCE_WQE_ORDERED;
		}
		return SROCE_WC_SUCCESS;
	}
	if (op == SROCE_WR_OP_ATOMIC_WRITE) {
		/*
		 * Its 8 bytes are the data area's first (no SGEs, no inline
		 * flag needed): every slot's data area holds at least one
		 * SGE. The address's alignment is the responder's to check,
		 * as for the other atomics.
		 */
		e->data_len = 8;
		return SROCE_WC_SUCCESS;
	}
	/* A READ or an atomic has nowhere to take inline data from */
	if ((e->flags & SROCE_SEND_INLINE) &&
	    (op == SROCE_WR_OP_RDMA_READ || op_atomic(op)))
		return SROCE_WC_LOC_LEN_ERR;
	/*
	 * The remote address of an atomic is not checked here: a misaligned
	 * one is the responder's to refuse (NAK invalid request), as on the
	 * wire from any other requester.
	 */
	return send_data_area(hdr, caps, e);
}

u8 sroce_ring_send_hdr(const u8 *hdr, const struct sroce_sq_caps *caps,
		       struct sroce_send_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->wr_id = rd64(hdr, SROCE_SWQE_WR_ID);
	e->opcode = rd32(hdr, SROCE_SWQE_OPCODE);
	e->flags = rd32(hdr, SROCE_SWQE_FLAGS);
	e->ex = rd32(hdr, SROCE_SWQE_EX);
	if (caps->type == SROCE_QPT_UD)
		return send_hdr_ud(hdr, caps, e);
	return send_hdr_rc(hdr, caps, e);
}

u8 sroce_ring_send_data(const u8 *data, const struct sroce_sq_caps *caps,
			struct sroce_send_entry *e)
{
	u64 total = 0;

	if (caps->type != SROCE_QPT_UD) {
		if (op_local(e->opcode))
			return SROCE_WC_SUCCESS;
		if (e->opcode == SROCE_WR_OP_ATOMIC_WRITE) {
			memcpy(&e->swap_add, data, 8);
			e->length = 8;
			return SROCE_WC_SUCCESS;
		}
	}
	if (e->inlined)
		total = e->data_len;
	else
		for (u32 i = 0; i < e->num_sge; i++)
			total += sroce_ring_sge_length(data, i);

	if (caps->type == SROCE_QPT_UD) {
		if (total > SROCE_MAX_PAYLOAD)
			return SROCE_WC_LOC_LEN_ERR;
		e->length = total;
		/* GSI sends name a P_Key index: the port has one P_Key */
		if (e->pkey_index)
			return SROCE_WC_LOC_QP_OP_ERR;
		return SROCE_WC_SUCCESS;
	}
	/*
	 * At most 2 GiB, and fewer than 2^23 packets: PSNs are compared over
	 * half their space (a 2 GiB message at path MTU 256 is refused).
	 */
	if (total > SROCE_MAX_MSG_LEN ||
	    sroce_msg_npkts(total, caps->mtu) >= SROCE_PSN_HALF)
		return SROCE_WC_LOC_LEN_ERR;
	e->length = total;
	if (op_atomic(e->opcode)) {
		/* the original value lands in the first 8 bytes */
		if (total < 8)
			return SROCE_WC_LOC_LEN_ERR;
		e->length = 8;
	}
	return SROCE_WC_SUCCESS;
}

bool sroce_ring_recv_hdr(const u8 *hdr, u32 max_sge, u64 *wr_id,
			 u32 *num_sge)
{
	u32 n = rd32(hdr, SROCE_RWQE_NUM_SGE);

	*wr_id = rd64(hdr, SROCE_RWQE_WR_ID);
	*num_sge = n <= max_sge ? n : 0;
	return n <= max_sge;
}

u32 sroce_ring_recv_len(const u8 *sge, u32 n)
{
	u64 total = 0;
	u32 i;

	for (i = 0; i < n; i++)
		total += sroce_ring_sge_length(sge, i);
	return total < SROCE_MAX_MSG_LEN ? (u32)total : (u32)SROCE_MAX_MSG_LEN;
}
