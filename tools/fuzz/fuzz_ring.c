// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the ring-entry checks (core/sroce_ring.c), the
 * other input an attacker controls besides packets: a process writes its
 * send and receive entries in memory it shares with the kernel. The
 * first five bytes choose the send queue's caps (QP type, user or kernel
 * ring, max SGEs, max inline bytes, path MTU); the rest is one slot,
 * zero-padded, read as a send entry and as a receive entry. Checked on
 * every input:
 *  - every status is one an entry may complete with;
 *  - an accepted header never asks to copy more than the caps allow, and
 *    only opcodes and flags the QP type takes pass;
 *  - an accepted entry's length is the one its bytes give (an oracle
 *    written here), within 2 GiB and 2^23 packets (UD: 4096 bytes);
 *  - a receive entry's SGE count is within the limit, its length the
 *    capped sum.
 * Any violated invariant aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sroce/psn.h"
#include "sroce/rc.h"
#include "sroce/rc_engine.h"
#include "sroce/ring.h"
#include "sroce/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(c) do { if (!(c)) fuzz_fail(#c, __LINE__); } while (0)

static void fuzz_fail(const char *what, int line)
{
	fprintf(stderr, "fuzz_ring.c:%d: invariant failed: %s\n", line, what);
	abort();
}

#define SLOT_LEN	(SROCE_SWQE_HDR_LEN + 32 * SROCE_SGE_LEN)

static u32 rd32(const u8 *p, u32 off)
{
	u32 v;

	memcpy(&v, p + off, 4);
	return v;
}

static bool st_ok(u8 st)
{
	return st == SROCE_WC_SUCCESS || st == SROCE_WC_LOC_LEN_ERR ||
	       st == SROCE_WC_LOC_QP_OP_ERR;
}

static void fuzz_send(const u8 *slot, const struct sroce_sq_caps *caps)
{
	struct sroce_send_entry e;
	u32 op, allowed;
	u64 total = 0;
	u8 st;

	st = sroce_ring_send_hdr(slot, caps, &e);
	FUZZ_ASSERT(st_ok(st));
	FUZZ_ASSERT(e.opcode == rd32(slot, SROCE_SWQE_OPCODE));
	FUZZ_ASSERT(e.flags == rd32(slot, SROCE_SWQE_FLAGS));
	if (st)
		return;
	op = e.opcode;
	allowed = SROCE_SEND_SIGNALED | SROCE_SEND_SOLICITED |
		  SROCE_SEND_INLINE | SROCE_SEND_FENCE |
		  (caps->type == SROCE_QPT_UD ? SROCE_SEND_IP_CSUM : 0);
	FUZZ_ASSERT(!(e.flags & ~allowed));
	FUZZ_ASSERT(e.num_sge <= caps->max_sge);
	FUZZ_ASSERT(e.data_len <= SLOT_LEN - SROCE_SWQE_HDR_LEN);
	if (e.inlined)
		FUZZ_ASSERT(e.data_len <= caps->max_inline && !e.num_sge);
	else if (op == SROCE_WR_OP_ATOMIC_WRITE)
		FUZZ_ASSERT(e.data_len == 8);
	else
		FUZZ_ASSERT(e.data_len == e.num_sge * SROCE_SGE_LEN);
	if (caps->type == SROCE_QPT_UD)
		FUZZ_ASSERT(op == SROCE_WR_OP_SEND ||
			    op == SROCE_WR_OP_SEND_IMM);
	if (caps->type == SROCE_QPT_UC)
		FUZZ_ASSERT(op != SROCE_WR_OP_RDMA_READ &&
			    op != SROCE_WR_OP_CMP_SWAP &&
			    op != SROCE_WR_OP_FETCH_ADD &&
			    op != SROCE_WR_OP_SEND_INV &&
			    op != SROCE_WR_OP_ATOMIC_WRITE);
	if (caps->user)
		FUZZ_ASSERT(op != SROCE_WR_OP_REG_MR);

	st = sroce_ring_send_data(slot + SROCE_SWQE_HDR_LEN, caps, &e);
	FUZZ_ASSERT(st_ok(st));
	if (st)
		return;
	if (e.kind == SROCE_WR_LOCAL && caps->type != SROCE_QPT_UD) {
		FUZZ_ASSERT(e.length == 0);
		return;
	}
	if (op == SROCE_WR_OP_ATOMIC_WRITE && caps->type != SROCE_QPT_UD) {
		FUZZ_ASSERT(e.length == 8 &&
			    !memcmp(&e.swap_add, slot + SROCE_SWQE_HDR_LEN, 8));
		return;
	}
	if (e.inlined)
		total = rd32(slot, SROCE_SWQE_DMA_LENGTH);
	else
		for (u32 i = 0; i < e.num_sge; i++)
			total += rd32(slot, SROCE_SWQE_HDR_LEN +
				      i * SROCE_SGE_LEN + SROCE_SGE_LENGTH);
	if (caps->type == SROCE_QPT_UD) {
		FUZZ_ASSERT(total <= SROCE_MAX_PAYLOAD && e.length == total);
		FUZZ_ASSERT(e.pkey_index == 0);
		return;
	}
	FUZZ_ASSERT(total <= SROCE_MAX_MSG_LEN);
	FUZZ_ASSERT(sroce_msg_npkts(total, caps->mtu) < SROCE_PSN_HALF);
	if (op == SROCE_WR_OP_CMP_SWAP || op == SROCE_WR_OP_FETCH_ADD)
		FUZZ_ASSERT(total >= 8 && e.length == 8 && !e.inlined);
	else
		FUZZ_ASSERT(e.length == total);
}

static void fuzz_recv(const u8 *slot, u32 max_sge)
{
	u64 wr_id, total = 0;
	u32 n, i, len;
	bool ok;

	ok = sroce_ring_recv_hdr(slot, max_sge, &wr_id, &n);
	FUZZ_ASSERT(ok == (rd32(slot, SROCE_RWQE_NUM_SGE) <= max_sge));
	FUZZ_ASSERT(n <= max_sge && (ok || !n));
	len = sroce_ring_recv_len(slot + SROCE_RWQE_HDR_LEN, n);
	for (i = 0; i < n; i++)
		total += rd32(slot, SROCE_RWQE_HDR_LEN + i * SROCE_SGE_LEN +
			      SROCE_SGE_LENGTH);
	FUZZ_ASSERT(len == (total < SROCE_MAX_MSG_LEN ? total :
			    SROCE_MAX_MSG_LEN));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static u8 slot[SLOT_LEN];
	struct sroce_sq_caps caps;

	if (size < 5)
		return 0;
	caps.type = data[0] % 3;
	caps.user = data[1] & 1;
	caps.max_sge = data[2] % 33;	/* the slot holds 32 */
	caps.max_inline = data[3] * 2;	/* up to 510: the slot holds 512 */
	caps.mtu = 256U << (data[4] % 5);
	data += 5;
	size -= 5;
	memset(slot, 0, sizeof(slot));
	memcpy(slot, data, size < sizeof(slot) ? size : sizeof(slot));
	fuzz_send(slot, &caps);
	fuzz_recv(slot, caps.max_sge);
	return 0;
}
