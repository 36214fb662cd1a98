// SPDX-License-Identifier: GPL-2.0-only
/* Ring entries: the rxe provider's send and receive WQEs, checked */
#include <netinet/in.h>
#include <rdma/rdma_user_rxe.h>

#include "sroce/psn.h"
#include "sroce/rc.h"
#include "sroce/rc_engine.h"
#include "sroce/ring.h"
#include "sroce/wire.h"
#include "tap.h"
#include "tests.h"

/* The host's copy of the ABI (linux-libc-dev) against the core's offsets */
#define SWR(f)	(offsetof(struct rxe_send_wqe, wr.wr.f) - \
		 offsetof(struct rxe_send_wqe, wr.wr))
_Static_assert(SROCE_SWQE_OPCODE == offsetof(struct rxe_send_wqe, wr.opcode),
	       "opcode");
_Static_assert(SROCE_SWQE_FLAGS == offsetof(struct rxe_send_wqe,
					    wr.send_flags), "flags");
_Static_assert(SROCE_SWQE_EX == offsetof(struct rxe_send_wqe, wr.ex), "ex");
_Static_assert(SROCE_SWQE_WR == offsetof(struct rxe_send_wqe, wr.wr), "wr");
_Static_assert(SROCE_SWQE_DMA_LENGTH == offsetof(struct rxe_send_wqe,
						 dma.length), "length");
_Static_assert(SROCE_SWQE_DMA_NUM_SGE == offsetof(struct rxe_send_wqe,
						  dma.num_sge), "num_sge");
_Static_assert(SROCE_SWQE_HDR_LEN == offsetof(struct rxe_send_wqe, dma.sge),
	       "hdr");
_Static_assert(SROCE_SWR_ATOMIC_SWAP == SWR(atomic.swap), "swap");
_Static_assert(SROCE_SWR_ATOMIC_RKEY == SWR(atomic.rkey), "atomic rkey");
_Static_assert(SROCE_SWR_UD_AH_NUM == SWR(ud.ah_num), "ah_num");
_Static_assert(SROCE_SWR_UD_AV == SWR(ud.av), "av");
_Static_assert(SROCE_SWR_MW_ACCESS == SWR(mw.access), "mw access");
_Static_assert(SROCE_RWQE_NUM_SGE == offsetof(struct rxe_recv_wqe,
					      dma.num_sge), "rwqe num_sge");
_Static_assert(SROCE_RWQE_HDR_LEN == offsetof(struct rxe_recv_wqe, dma.sge),
	       "rwqe hdr");
_Static_assert(SROCE_SGE_LEN == sizeof(struct rxe_sge), "sge");

/* A slot: header, then room for 8 SGEs or 256 inline bytes */
struct slot {
	struct rxe_send_wqe w;
	u8 room[256];
};

static struct slot *send_slot(u32 opcode, u32 flags)
{
	static struct slot s;

	memset(&s, 0, sizeof(s));
	s.w.wr.wr_id = 0x1122334455667788ULL;
	s.w.wr.opcode = opcode;
	s.w.wr.send_flags = flags;
	return &s;
}

static void add_sge(struct slot *s, u32 length)
{
	struct rxe_sge *g = &s->w.dma.sge[s->w.dma.num_sge++];

	g->addr = 0x1000 * s->w.dma.num_sge;
	g->length = length;
	g->lkey = 0x77;
}

/* Header, then data (as the glue would copy it): the final status */
static u8 check(const struct slot *s, const struct sroce_sq_caps *caps,
		struct sroce_send_entry *e)
{
	u8 st = sroce_ring_send_hdr((const u8 *)&s->w, caps, e);

	if (st)
		return st;
	if (e->data_len > sizeof(s->room))
		return 0xff;	/* beyond what the caps allow: a test failure */
	return sroce_ring_send_data((const u8 *)s->w.dma.inline_data, caps, e);
}

static void test_ring_send_rc(void)
{
	struct sroce_sq_caps rc = { .type = SROCE_QPT_RC, .user = true,
				    .max_sge = 4, .max_inline = 64,
				    .mtu = 1024 };
	struct sroce_sq_caps uc = rc;
	struct sroce_send_entry e;
	struct slot *s;
	u32 op;

	uc.type = SROCE_QPT_UC;

	tap_begin("ring: an RC SEND of two SGEs");
	s = send_slot(SROCE_WR_OP_SEND, SROCE_SEND_SIGNALED |
		      SROCE_SEND_SOLICITED | SROCE_SEND_FENCE);
	add_sge(s, 100);
	add_sge(s, 28);
	CHECK_EQ(check(s, &rc, &e), SROCE_WC_SUCCESS);
	CHECK_EQ(e.wr_id, 0x1122334455667788ULL);
	CHECK_EQ(e.kind, SROCE_WR_SEND);
	CHECK_EQ(e.wqe_flags, SROCE_WQE_SIGNALED | SROCE_WQE_SOLICITED |
			      SROCE_WQE_FENCE);
	CHECK_EQ(e.num_sge, 2);
	CHECK_EQ(e.data_len, 2 * SROCE_SGE_LEN);
	CHECK_EQ(e.length, 128);
	CHECK(!e.inlined);
	tap_end();

	tap_begin("ring: UC sends no READ, atomic, SEND_WITH_INV, ATOMIC WRITE");
	for (op = 0; op <= SROCE_WR_OP_REG_MR; op++) {
		bool rc_only = op == SROCE_WR_OP_RDMA_READ ||
			       op == SROCE_WR_OP_CMP_SWAP ||
			       op == SROCE_WR_OP_FETCH_ADD ||
			       op == SROCE_WR_OP_SEND_INV ||
			       op == SROCE_WR_OP_ATOMIC_WRITE;
		bool known = rc_only || op == SROCE_WR_OP_SEND ||
			     op == SROCE_WR_OP_SEND_IMM ||
			     op == SROCE_WR_OP_RDMA_WRITE ||
			     op == SROCE_WR_OP_RDMA_WRITE_IMM ||
			     op == SROCE_WR_OP_LOCAL_INV ||
			     op == SROCE_WR_OP_BIND_MW ||
			     op == SROCE_WR_OP_REG_MR;
		struct sroce_sq_caps krc = rc, kuc = uc;

		krc.user = kuc.user = false;	/* REG_MR is theirs */
		s = send_slot(op, 0);
		add_sge(s, 8);
		CHECK_EQ(sroce_ring_send_hdr((u8 *)&s->w, &krc, &e),
			 known ? SROCE_WC_SUCCESS : SROCE_WC_LOC_QP_OP_ERR);
		CHECK_EQ(sroce_ring_send_hdr((u8 *)&s->w, &kuc, &e),
			 known && !rc_only ? SROCE_WC_SUCCESS :
					     SROCE_WC_LOC_QP_OP_ERR);
	}
	tap_end();

	tap_begin("ring: flags beyond fence, signaled, solicited, inline");
	s = send_slot(SROCE_WR_OP_SEND, SROCE_SEND_IP_CSUM);
	CHECK_EQ(check(s, &rc, &e), SROCE_WC_LOC_QP_OP_ERR);
	s = send_slot(SROCE_WR_OP_SEND, BIT(5));
	CHECK_EQ(check(s, &rc, &e), SROCE_WC_LOC_QP_OP_ERR);
	/* an opcode error and a length error: the opcode is checked first */
	s = send_slot(SROCE_WR_OP_RDMA_READ, SROCE_SEND_INLINE);
	CHECK_EQ(check(s, &uc, &e), SROCE_WC_LOC_QP_OP_ERR);
	tap_end();

	tap_begin("ring: REG_MR only from a kernel ring; LOCAL_INV is ordered");
	s = send_slot(SROCE_WR_OP_REG_MR, 0);
	s->w.wr.wr.mw.addr = 0xffff888012345678ULL;	/* reg.mr's place */
	s->w.wr.wr.mw.length = 0x0000000700000abcULL;	/* key, access */
	CHECK_EQ(check(s, &rc, &e), SROCE_WC_LOC_QP_OP_ERR);
	rc.user = false;
	CHECK_EQ(check(s, &rc, &e), SROCE_WC_SUCCESS);
	CHECK_EQ(e.reg_mr, 0xffff888012345678ULL);
	CHECK_EQ(e.reg_key, 0xabc);
	CHECK_EQ(e.reg_access, 7);
	CHECK_EQ(e.kind, SROCE_WR_LOCAL);
	CHECK_EQ(e.length, 0);
	rc.user = true;
	s = send_slot(SROCE_WR_OP_LOCAL_INV, SROCE_SEND_SIGNALED);
	s->w.wr.ex.invalidate_rkey = 0x4321;
	add_sge(s, 4096);	/* ignored: no data */
	CHECK_EQ(check(s, &rc, &e), SROCE_WC_SUCCESS);
	CHECK_EQ(e.ex, 0x4321);
	CHECK_EQ(e.wqe_flags, SROCE_WQE_SIGNALED | SROCE_WQE_ORDERED);
	CHECK_EQ(e.data_len, 0);
	s = send_slot(SROCE_WR_OP_BIND_MW, 0);
	s->w.wr.wr.mw.addr = 0x5000;
	s->w.wr.wr.mw.length = 0x300;
	s->w.wr.wr.mw.mr_lkey = 0x11;
	s->w.wr.wr.mw.mw_rkey = 0x22;
	s->w.wr.wr.mw.rkey = 0x23;
	s->w.wr.wr.mw.access = 0x8;
	CHECK_EQ(check(s, &rc, &e), SROCE_WC_SUCCESS);
	CHECK(e.mw_addr == 0x5000 && e.mw_length == 0x300 &&
	      e.mw_lkey == 0x11 && e.mw_rkey == 0x22 &&
	      e.mw_new_rkey == 0x23 && e.mw_access == 0x8);
	tap_end();

	tap_begin("ring: SGE count and inline length within the QP's");
	s = send_slot(SROCE_WR_OP_SEND, 0);
	s->w.dma.num_sge = 5;
	CHECK_EQ(check(s, &rc, &e), SROCE_WC_LOC_LEN_ERR);
	CHECK_EQ(e.data_len, 0);
	s->w.dma.num_sge = 0xffffffff;
	CHECK_EQ(check(s, &rc, &e), SROCE_WC_LOC_LEN_ERR);
	s = send_slot(SROCE_WR_OP_SEND, SROCE_SEND_INLINE);
	s->w.dma.length = 64;
	CHECK_EQ(check(s, &rc, &e), SROCE_WC_SUCCESS);
	CHECK(e.inlined && e.length == 64 && e.data_len == 64 &&
	      e.num_sge == 0);
	s->w.dma.length = 65;
	CHECK_EQ(check(s, &rc, &e), SROCE_WC_LOC_LEN_ERR);
	s = send_slot(SROCE_WR_OP_RDMA_READ, SROCE_SEND_INLINE);
	CHECK_EQ(check(s, &rc, &e), SROCE_WC_LOC_LEN_ERR);
	s = send_slot(SROCE_WR_OP_FETCH_ADD, SROCE_SEND_INLINE);
	CHECK_EQ(check(s, &rc, &e), SROCE_WC_LOC_LEN_ERR);
	tap_end();

	tap_begin("ring: a message is at most 2 GiB and 2^23 packets");
	s = send_slot(SROCE_WR_OP_RDMA_WRITE, 0);
	add_sge(s, 0x80000000U);
	rc.mtu = 4096;
	CHECK_EQ(check(s, &rc, &e), SROCE_WC_SUCCESS);
	CHECK_EQ(e.length, 0x80000000U);
	rc.mtu = 256;		/* 2^23 packets: refused */
	CHECK_EQ(check(s, &rc, &e), SROCE_WC_LOC_LEN_ERR);
	rc.mtu = 4096;
	add_sge(s, 1);
	CHECK_EQ(check(s, &rc, &e), SROCE_WC_LOC_LEN_ERR);
	s = send_slot(SROCE_WR_OP_RDMA_WRITE, 0);
	add_sge(s, 0xffffffff);
	add_sge(s, 0xffffffff);	/* the sum does not wrap */
	CHECK_EQ(check(s, &rc, &e), SROCE_WC_LOC_LEN_ERR);
	rc.mtu = 1024;
	tap_end();

	tap_begin("ring: atomics take 8 bytes of SGEs, ATOMIC WRITE its own 8");
	s = send_slot(SROCE_WR_OP_CMP_SWAP, 0);
	s->w.wr.wr.atomic.remote_addr = 0x8000;
	s->w.wr.wr.atomic.compare_add = 5;
	s->w.wr.wr.atomic.swap = 9;
	s->w.wr.wr.atomic.rkey = 0x99;
	add_sge(s, 4);
	CHECK_EQ(check(s, &rc, &e), SROCE_WC_LOC_LEN_ERR);
	s->w.dma.sge[0].length = 16;
	CHECK_EQ(check(s, &rc, &e), SROCE_WC_SUCCESS);
	CHECK(e.length == 8 && e.compare == 5 && e.swap_add == 9 &&
	      e.remote_addr == 0x8000 && e.rkey == 0x99 &&
	      e.kind == SROCE_WR_CMP_SWAP);
	s->w.wr.opcode = SROCE_WR_OP_FETCH_ADD;
	CHECK_EQ(check(s, &rc, &e), SROCE_WC_SUCCESS);
	CHECK(e.swap_add == 5 && e.compare == 0);
	s = send_slot(SROCE_WR_OP_ATOMIC_WRITE, 0);
	s->w.wr.wr.rdma.remote_addr = 0x9000;
	memcpy(s->w.dma.inline_data, "\1\2\3\4\5\6\7\10", 8);
	CHECK_EQ(check(s, &rc, &e), SROCE_WC_SUCCESS);
	CHECK(e.length == 8 && e.data_len == 8 && e.num_sge == 0 &&
	      !e.inlined && !memcmp(&e.swap_add, "\1\2\3\4\5\6\7\10", 8) &&
	      e.kind == SROCE_WR_ATOMIC_WRITE && e.remote_addr == 0x9000);
	tap_end();
}

static void test_ring_send_ud(void)
{
	struct sroce_sq_caps ud = { .type = SROCE_QPT_UD, .user = true,
				    .max_sge = 2, .max_inline = 64 };
	struct sroce_send_entry e;
	struct slot *s;

	tap_begin("ring: a UD send names its peer, AH and P_Key index");
	s = send_slot(SROCE_WR_OP_SEND_IMM, SROCE_SEND_IP_CSUM |
		      SROCE_SEND_FENCE);
	memcpy(&s->w.wr.ex.imm_data, "\xde\xad\xbe\xef", 4);
	s->w.wr.wr.ud.remote_qpn = 0x123;
	s->w.wr.wr.ud.remote_qkey = 0x80010000;
	s->w.wr.wr.ud.ah_num = 7;
	add_sge(s, 4096);
	CHECK_EQ(check(s, &ud, &e), SROCE_WC_SUCCESS);
	CHECK(e.remote_qpn == 0x123 && e.remote_qkey == 0x80010000 &&
	      e.ah_num == 7 && e.length == 4096 &&
	      !memcmp(&e.ex, "\xde\xad\xbe\xef", 4));
	tap_end();

	tap_begin("ring: UD takes SENDs of at most 4096 bytes, P_Key index 0");
	s = send_slot(SROCE_WR_OP_RDMA_WRITE, 0);
	CHECK_EQ(check(s, &ud, &e), SROCE_WC_LOC_QP_OP_ERR);
	s = send_slot(SROCE_WR_OP_SEND, BIT(5));
	CHECK_EQ(check(s, &ud, &e), SROCE_WC_LOC_QP_OP_ERR);
	s = send_slot(SROCE_WR_OP_SEND, 0);
	add_sge(s, 4096);
	add_sge(s, 1);
	CHECK_EQ(check(s, &ud, &e), SROCE_WC_LOC_LEN_ERR);
	/* both wrong: the length is checked before the P_Key index */
	s->w.wr.wr.ud.pkey_index = 1;
	CHECK_EQ(check(s, &ud, &e), SROCE_WC_LOC_LEN_ERR);
	s->w.dma.sge[1].length = 0;
	CHECK_EQ(check(s, &ud, &e), SROCE_WC_LOC_QP_OP_ERR);
	s->w.dma.num_sge = 3;
	CHECK_EQ(check(s, &ud, &e), SROCE_WC_LOC_LEN_ERR);
	tap_end();
}

static void test_ring_recv(void)
{
	struct {
		struct rxe_recv_wqe w;
		struct rxe_sge sge[4];
	} r;
	u32 n = 1;
	u64 id = 0;

	memset(&r, 0, sizeof(r));
	r.w.wr_id = 42;
	r.w.dma.num_sge = 3;
	r.sge[0].length = 0x7fffffff;
	r.sge[1].length = 0x7fffffff;
	r.sge[2].length = 0x10;

	tap_begin("ring: a receive entry's SGEs, and its length capped at 2 GiB");
	CHECK(sroce_ring_recv_hdr((u8 *)&r.w, 3, &id, &n));
	CHECK_EQ(id, 42);
	CHECK_EQ(n, 3);
	CHECK_EQ(sroce_ring_recv_len((u8 *)r.w.dma.sge, n), 0x80000000U);
	CHECK_EQ(sroce_ring_recv_len((u8 *)r.w.dma.sge, 1), 0x7fffffff);
	CHECK_EQ(sroce_ring_recv_len((u8 *)r.w.dma.sge, 0), 0);
	tap_end();

	tap_begin("ring: a receive entry with too many SGEs holds nothing");
	CHECK(!sroce_ring_recv_hdr((u8 *)&r.w, 2, &id, &n));
	CHECK_EQ(id, 42);
	CHECK_EQ(n, 0);
	r.w.dma.num_sge = 0xffffffff;
	CHECK(!sroce_ring_recv_hdr((u8 *)&r.w, 2, &id, &n));
	CHECK_EQ(n, 0);
	tap_end();
}

void test_ring(void)
{
	test_ring_send_rc();
	test_ring_send_ud();
	test_ring_recv();
}
