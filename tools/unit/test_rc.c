// SPDX-License-Identifier: GPL-2.0-only
/*
 * RC transport decision tests: one test per rule of rc.h, each checked
 * against hand-written IBTA tables (syndromes, RNR timer, opcodes)
 * and across the 24-bit PSN wrap.
 */
#include <string.h>

#include "sroce/rc.h"
#include "tap.h"
#include "tests.h"

#define RC(op)		SROCE_OPCODE(SROCE_TRANSPORT_RC, SROCE_OP_##op)

static void test_psn_class(void)
{
	tap_begin("rc: responder PSN class, expected/duplicate/ahead");
	CHECK_EQ(sroce_resp_psn_class(100, 100), SROCE_PSN_EXPECTED);
	CHECK_EQ(sroce_resp_psn_class(100, 99), SROCE_PSN_DUPLICATE);
	CHECK_EQ(sroce_resp_psn_class(100, 101), SROCE_PSN_OUT_OF_SEQ);
	/* the half-space boundaries: -2^23 is behind, +2^23 - 1 ahead */
	CHECK_EQ(sroce_resp_psn_class(0x800000, 0), SROCE_PSN_DUPLICATE);
	CHECK_EQ(sroce_resp_psn_class(0, 0x800000), SROCE_PSN_DUPLICATE);
	CHECK_EQ(sroce_resp_psn_class(0, 0x7fffff), SROCE_PSN_OUT_OF_SEQ);
	tap_end();

	tap_begin("rc: responder PSN class across the 24-bit wrap");
	CHECK_EQ(sroce_resp_psn_class(0, 0xffffff), SROCE_PSN_DUPLICATE);
	CHECK_EQ(sroce_resp_psn_class(2, 0xfffff0), SROCE_PSN_DUPLICATE);
	CHECK_EQ(sroce_resp_psn_class(0xffffff, 0), SROCE_PSN_OUT_OF_SEQ);
	CHECK_EQ(sroce_resp_psn_class(0xfffffe, 1), SROCE_PSN_OUT_OF_SEQ);
	CHECK_EQ(sroce_resp_psn_class(0xffffff, 0xffffff), SROCE_PSN_EXPECTED);
	CHECK_EQ(sroce_resp_psn_class(0x01000005, 5), SROCE_PSN_EXPECTED);
	CHECK_EQ(sroce_resp_psn_class(5, 0xff000004), SROCE_PSN_DUPLICATE);
	tap_end();
}

/*
 * Request sequencing table: for each RC request opcode the state after it,
 * per state before it; X = NAK Invalid Request.  Opcodes not listed (other
 * transports, responses, unknown) are invalid in every state.
 */
#define X	-1
#define N	SROCE_SEQ_NONE
#define S	SROCE_SEQ_SEND
#define W	SROCE_SEQ_WRITE

static const struct {
	u8 op;
	int next[3];		/* from NONE, SEND, WRITE */
} seq_table[] = {
	{ RC(SEND_FIRST),	{ S, X, X } },
	{ RC(SEND_MIDDLE),	{ X, S, X } },
	{ RC(SEND_LAST),	{ X, N, X } },
	{ RC(SEND_LAST_IMM),	{ X, N, X } },
	{ RC(SEND_LAST_INV),	{ X, N, X } },
	{ RC(SEND_ONLY),	{ N, X, X } },
	{ RC(SEND_ONLY_IMM),	{ N, X, X } },
	{ RC(SEND_ONLY_INV),	{ N, X, X } },
	{ RC(WRITE_FIRST),	{ W, X, X } },
	{ RC(WRITE_MIDDLE),	{ X, X, W } },
	{ RC(WRITE_LAST),	{ X, X, N } },
	{ RC(WRITE_LAST_IMM),	{ X, X, N } },
	{ RC(WRITE_ONLY),	{ N, X, X } },
	{ RC(WRITE_ONLY_IMM),	{ N, X, X } },
	{ RC(READ_REQ),		{ N, X, X } },
	{ RC(CMP_SWAP),		{ N, X, X } },
	{ RC(FETCH_ADD),	{ N, X, X } },
	{ RC(ATOMIC_WRITE),	{ N, X, X } },
};

#undef X
#undef N
#undef S
#undef W

static void test_check_seq(void)
{
	static const enum sroce_rx_seq states[] = {
		SROCE_SEQ_NONE, SROCE_SEQ_SEND, SROCE_SEQ_WRITE,
	};
	enum sroce_rx_seq st;
	unsigned int op, i, s;
	int ret;

	tap_begin("rc: request sequencing, every opcode in every state");
	for (op = 0; op < 256; op++) {
		int exp[3] = { -1, -1, -1 };

		for (i = 0; i < ARRAY_SIZE(seq_table); i++)
			if (seq_table[i].op == op)
				memcpy(exp, seq_table[i].next, sizeof(exp));
		for (s = 0; s < ARRAY_SIZE(states); s++) {
			st = states[s];
			ret = sroce_resp_check_seq(&st, (u8)op);
			if (exp[s] < 0) {
				CHECK_EQ(ret, -SROCE_NAK_INVALID_REQ);
				CHECK_EQ(st, states[s]);	/* unchanged */
			} else {
				CHECK_EQ(ret, 0);
				CHECK_EQ(st, exp[s]);
			}
			if (tap.cur_failed) {
				printf("# opcode 0x%02x state %u\n", op, s);
				goto out;
			}
		}
	}
out:
	tap_end();

	tap_begin("rc: request sequencing, whole messages back to back");
	st = SROCE_SEQ_NONE;
	CHECK_EQ(sroce_resp_check_seq(&st, RC(SEND_FIRST)), 0);
	CHECK_EQ(sroce_resp_check_seq(&st, RC(SEND_MIDDLE)), 0);
	CHECK_EQ(sroce_resp_check_seq(&st, RC(SEND_MIDDLE)), 0);
	CHECK_EQ(sroce_resp_check_seq(&st, RC(SEND_LAST_INV)), 0);
	CHECK_EQ(sroce_resp_check_seq(&st, RC(READ_REQ)), 0);
	CHECK_EQ(sroce_resp_check_seq(&st, RC(WRITE_FIRST)), 0);
	CHECK_EQ(sroce_resp_check_seq(&st, RC(WRITE_LAST_IMM)), 0);
	CHECK_EQ(sroce_resp_check_seq(&st, RC(FETCH_ADD)), 0);
	CHECK_EQ(st, SROCE_SEQ_NONE);
	tap_end();

	tap_begin("rc: request sequencing, invalid sequences are NAKed");
	st = SROCE_SEQ_NONE;	/* SEND_MIDDLE with no SEND in progress */
	CHECK(sroce_resp_check_seq(&st, RC(SEND_MIDDLE)) < 0);
	st = SROCE_SEQ_SEND;	/* new First while a SEND is in progress */
	CHECK(sroce_resp_check_seq(&st, RC(SEND_FIRST)) < 0);
	CHECK(sroce_resp_check_seq(&st, RC(WRITE_ONLY)) < 0);
	CHECK(sroce_resp_check_seq(&st, RC(READ_REQ)) < 0);
	CHECK(sroce_resp_check_seq(&st, RC(WRITE_MIDDLE)) < 0);
	st = SROCE_SEQ_WRITE;
	CHECK(sroce_resp_check_seq(&st, RC(SEND_LAST)) < 0);
	CHECK(sroce_resp_check_seq(&st, RC(CMP_SWAP)) < 0);
	st = SROCE_SEQ_NONE;	/* other transports, responses, unknown */
	CHECK(sroce_resp_check_seq(&st, 0x24) < 0);	/* UC SEND_ONLY */
	CHECK(sroce_resp_check_seq(&st, SROCE_UD_SEND_ONLY) < 0);
	CHECK(sroce_resp_check_seq(&st, SROCE_CNP_OPCODE) < 0);
	CHECK(sroce_resp_check_seq(&st, SROCE_RC_ACK) < 0);
	CHECK(sroce_resp_check_seq(&st, RC(READ_RESP_ONLY)) < 0);
	CHECK(sroce_resp_check_seq(&st, RC(ATOMIC_ACK)) < 0);
	CHECK(sroce_resp_check_seq(&st, 0x15) < 0);
	CHECK(sroce_resp_check_seq(&st, 0xa4) < 0);	/* XRC SEND_ONLY */
	CHECK_EQ(st, SROCE_SEQ_NONE);
	tap_end();
}

static void test_ack_now(void)
{
	tap_begin("rc: ACK coalescing, AckReq or coalesce_max unacked");
	CHECK(sroce_resp_ack_now(true, 1, 64));
	CHECK(sroce_resp_ack_now(true, 0, 0));
	CHECK(!sroce_resp_ack_now(false, 1, 64));
	CHECK(!sroce_resp_ack_now(false, 63, 64));
	CHECK(sroce_resp_ack_now(false, 64, 64));
	CHECK(sroce_resp_ack_now(false, 65, 64));
	CHECK(sroce_resp_ack_now(false, 1, 1));
	CHECK(sroce_resp_ack_now(false, 1, 0));
	tap_end();
}

static void test_syndromes(void)
{
	unsigned int i;

	tap_begin("rc: syndrome bytes of ACK, RNR NAK and each NAK code");
	CHECK_EQ(sroce_syndrome_ack(0), 0x00);
	CHECK_EQ(sroce_syndrome_ack(SROCE_AETH_CREDIT_INVALID), 0x1f);
	CHECK_EQ(sroce_syndrome_rnr(0), 0x20);
	CHECK_EQ(sroce_syndrome_rnr(14), 0x2e);
	CHECK_EQ(sroce_syndrome_rnr(31), 0x3f);
	CHECK_EQ(sroce_syndrome_nak(SROCE_NAK_PSN_SEQ_ERR), 0x60);
	CHECK_EQ(sroce_syndrome_nak(SROCE_NAK_INVALID_REQ), 0x61);
	CHECK_EQ(sroce_syndrome_nak(SROCE_NAK_REM_ACCESS), 0x62);
	CHECK_EQ(sroce_syndrome_nak(SROCE_NAK_REM_OP), 0x63);
	CHECK_EQ(sroce_syndrome_nak(SROCE_NAK_INVALID_RD_REQ), 0x64);
	/* a code wider than 5 bits cannot spill into the type */
	CHECK_EQ(sroce_syndrome_ack(0x3f), 0x1f);
	CHECK_EQ(sroce_syndrome_rnr(0xe1), 0x21);
	tap_end();

	tap_begin("rc: syndrome round trip, every value of every type");
	for (i = 0; i < 32; i++) {
		u8 a = sroce_syndrome_ack((u8)i);
		u8 r = sroce_syndrome_rnr((u8)i);

		CHECK_EQ(sroce_syndrome_kind(a), SROCE_AETH_KIND_ACK);
		CHECK_EQ(sroce_syndrome_value(a), i);
		CHECK_EQ(sroce_syndrome_kind(r), SROCE_AETH_KIND_RNR);
		CHECK_EQ(sroce_syndrome_value(r), i);
	}
	for (i = SROCE_NAK_PSN_SEQ_ERR; i <= SROCE_NAK_INVALID_RD_REQ; i++) {
		u8 n = sroce_syndrome_nak((enum sroce_nak_code)i);

		CHECK_EQ(sroce_syndrome_kind(n), SROCE_AETH_KIND_NAK);
		CHECK_EQ(sroce_syndrome_value(n), i);
	}
	tap_end();

	tap_begin("rc: syndrome kind of all 256 bytes, bit 7 reserved");
	for (i = 0; i < 256; i++) {
		enum sroce_aeth_kind exp;

		if (i < 0x20)
			exp = SROCE_AETH_KIND_ACK;
		else if (i < 0x40)
			exp = SROCE_AETH_KIND_RNR;
		else if (i >= 0x60 && i < 0x80)
			exp = SROCE_AETH_KIND_NAK;
		else
			exp = SROCE_AETH_KIND_RESERVED;
		CHECK_EQ(sroce_syndrome_kind((u8)i), exp);
		CHECK_EQ(sroce_syndrome_value((u8)i), i & 0x1f);
	}
	tap_end();
}

/* enum ib_rnr_timeout, in units of 10 us (the table's ms * 100) */
static const u32 rnr_10us[32] = {
	65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256,
	384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384,
	24576, 32768, 49152,
};

static void test_timers(void)
{
	unsigned int c;

	tap_begin("rc: RNR NAK timer, every code");
	for (c = 0; c < 32; c++)
		CHECK_EQ(sroce_rnr_timer_us((u8)c), rnr_10us[c] * 10);
	CHECK_EQ(sroce_rnr_timer_us(0), 655360);
	CHECK_EQ(sroce_rnr_timer_us(25), 61440);
	CHECK_EQ(sroce_rnr_timer_us(31), 491520);
	CHECK_EQ(sroce_rnr_timer_us(0x20 | 1), 10);
	tap_end();

	tap_begin("rc: local ACK timeout 4.096 us * 2^t, 0 infinite");
	CHECK_EQ(sroce_ack_timeout_ns(0), SROCE_ACK_TIMEOUT_INFINITE);
	CHECK_EQ(sroce_ack_timeout_ns(0), 0);
	CHECK_EQ(sroce_ack_timeout_ns(1), 8192);
	CHECK_EQ(sroce_ack_timeout_ns(14), 67108864);		/* 67.1 ms */
	CHECK_EQ(sroce_ack_timeout_ns(18), 1073741824);		/* 1.07 s */
	CHECK_EQ(sroce_ack_timeout_ns(31), 8796093022208ULL);	/* 8796 s */
	for (c = 1; c < 32; c++)
		CHECK_EQ(sroce_ack_timeout_ns((u8)c), 4096ULL << c);
	tap_end();
}

static void test_retry(void)
{
	unsigned int i;
	u8 cnt;

	tap_begin("rc: retry_cnt gives exactly its value in retries, 7 too");
	for (i = 0; i <= 7; i++) {
		unsigned int n = 0;

		cnt = (u8)i;
		while (sroce_retry_consume(&cnt) && n < 100)
			n++;
		CHECK_EQ(n, i);
		CHECK_EQ(cnt, 0);
	}
	cnt = 0;
	CHECK(!sroce_retry_consume(&cnt));
	CHECK_EQ(cnt, 0);
	tap_end();

	tap_begin("rc: rnr_retry 0..6 counts down, 7 is infinite");
	for (i = 0; i <= 6; i++) {
		unsigned int n = 0;

		cnt = (u8)i;
		while (sroce_rnr_retry_consume(&cnt) && n < 100)
			n++;
		CHECK_EQ(n, i);
		CHECK_EQ(cnt, 0);
	}
	cnt = SROCE_RNR_RETRY_INFINITE;
	for (i = 0; i < 1000; i++)
		CHECK(sroce_rnr_retry_consume(&cnt));
	CHECK_EQ(cnt, 7);
	tap_end();
}

/* Expected opcode per kind, for (first,last) = FM, FL(only), ML(last), MM */
static const struct {
	enum sroce_wr_kind kind;
	const char *name;
	u8 first, only, last, middle;
} req_ops[] = {
	{ SROCE_WR_SEND, "SEND",
	  RC(SEND_FIRST), RC(SEND_ONLY), RC(SEND_LAST), RC(SEND_MIDDLE) },
	{ SROCE_WR_SEND_IMM, "SEND_IMM",
	  RC(SEND_FIRST), RC(SEND_ONLY_IMM), RC(SEND_LAST_IMM),
	  RC(SEND_MIDDLE) },
	{ SROCE_WR_SEND_INV, "SEND_INV",
	  RC(SEND_FIRST), RC(SEND_ONLY_INV), RC(SEND_LAST_INV),
	  RC(SEND_MIDDLE) },
	{ SROCE_WR_WRITE, "WRITE",
	  RC(WRITE_FIRST), RC(WRITE_ONLY), RC(WRITE_LAST), RC(WRITE_MIDDLE) },
	{ SROCE_WR_WRITE_IMM, "WRITE_IMM",
	  RC(WRITE_FIRST), RC(WRITE_ONLY_IMM), RC(WRITE_LAST_IMM),
	  RC(WRITE_MIDDLE) },
	{ SROCE_WR_READ, "READ",
	  RC(READ_REQ), RC(READ_REQ), RC(READ_REQ), RC(READ_REQ) },
	{ SROCE_WR_CMP_SWAP, "CMP_SWAP",
	  RC(CMP_SWAP), RC(CMP_SWAP), RC(CMP_SWAP), RC(CMP_SWAP) },
	{ SROCE_WR_FETCH_ADD, "FETCH_ADD",
	  RC(FETCH_ADD), RC(FETCH_ADD), RC(FETCH_ADD), RC(FETCH_ADD) },
};

static void test_req_opcode(void)
{
	unsigned int i;

	tap_begin("rc: requester opcode, every kind x first/last");
	for (i = 0; i < ARRAY_SIZE(req_ops); i++) {
		enum sroce_wr_kind k = req_ops[i].kind;
		u8 ops[4] = {
			sroce_rc_req_opcode(k, true, false),
			sroce_rc_req_opcode(k, true, true),
			sroce_rc_req_opcode(k, false, true),
			sroce_rc_req_opcode(k, false, false),
		};
		unsigned int j;

		CHECK_EQ(ops[0], req_ops[i].first);
		CHECK_EQ(ops[1], req_ops[i].only);
		CHECK_EQ(ops[2], req_ops[i].last);
		CHECK_EQ(ops[3], req_ops[i].middle);
		/* and each one is an RC request the responder accepts */
		for (j = 0; j < 4; j++) {
			const struct sroce_opcode_info *info =
				sroce_opcode_get(ops[j]);

			CHECK(info && (info->mask & SROCE_MASK_REQ));
			CHECK_EQ(sroce_opcode_transport(ops[j]),
				 SROCE_TRANSPORT_RC);
		}
		if (tap.cur_failed) {
			printf("# kind %s\n", req_ops[i].name);
			break;
		}
	}
	CHECK_EQ(sroce_rc_req_opcode((enum sroce_wr_kind)99, true, true),
		 SROCE_OPCODE_NONE);
	CHECK(!sroce_opcode_get(SROCE_OPCODE_NONE));
	tap_end();

	tap_begin("rc: segmented messages pass the responder's sequencing");
	for (i = 0; i < ARRAY_SIZE(req_ops); i++) {
		enum sroce_wr_kind k = req_ops[i].kind;
		enum sroce_rx_seq st = SROCE_SEQ_NONE;
		bool one = k >= SROCE_WR_READ;	/* single request packet */
		u8 first = sroce_rc_req_opcode(k, true, one);
		u8 middle = sroce_rc_req_opcode(k, false, false);
		u8 last = sroce_rc_req_opcode(k, false, true);

		CHECK_EQ(sroce_resp_check_seq(&st, first), 0);
		if (!one) {
			CHECK_EQ(sroce_resp_check_seq(&st, middle), 0);
			CHECK_EQ(sroce_resp_check_seq(&st, last), 0);
		}
		CHECK_EQ(st, SROCE_SEQ_NONE);
	}
	tap_end();
}

static void test_npkts(void)
{
	u32 mtu;

	tap_begin("rc: packets per message, max(1, ceil(len / mtu))");
	for (mtu = 256; mtu <= 4096; mtu <<= 1) {
		CHECK_EQ(sroce_msg_npkts(0, mtu), 1);
		CHECK_EQ(sroce_msg_npkts(1, mtu), 1);
		CHECK_EQ(sroce_msg_npkts(mtu - 1, mtu), 1);
		CHECK_EQ(sroce_msg_npkts(mtu, mtu), 1);
		CHECK_EQ(sroce_msg_npkts(mtu + 1, mtu), 2);
		CHECK_EQ(sroce_msg_npkts(3 * mtu, mtu), 3);
		CHECK_EQ(sroce_msg_npkts(0x80000000ULL, mtu),
			 0x80000000ULL / mtu);
	}
	CHECK_EQ(sroce_msg_npkts(13, 1024), 1);
	CHECK_EQ(sroce_msg_npkts(5000, 1024), 5);
	CHECK_EQ(sroce_msg_npkts(~0ULL, 256), 0xffffffff);	/* saturates */
	CHECK_EQ(sroce_msg_npkts(100, 0), 0);
	CHECK_EQ(sroce_msg_npkts(100, 1000), 0);
	CHECK_EQ(sroce_msg_npkts(100, 0x3000), 0);
	tap_end();

	tap_begin("rc: READ response opcode by position");
	CHECK_EQ(sroce_read_resp_opcode(true, true), RC(READ_RESP_ONLY));
	CHECK_EQ(sroce_read_resp_opcode(true, false), RC(READ_RESP_FIRST));
	CHECK_EQ(sroce_read_resp_opcode(false, false), RC(READ_RESP_MIDDLE));
	CHECK_EQ(sroce_read_resp_opcode(false, true), RC(READ_RESP_LAST));
	tap_end();
}

static void test_covers(void)
{
	tap_begin("rc: ACK PSN covers WQEs ending at or before it");
	CHECK(sroce_psn_covers(10, 10));
	CHECK(sroce_psn_covers(10, 9));
	CHECK(!sroce_psn_covers(10, 11));
	CHECK(sroce_psn_covers(0, 0xffffff));		/* across the wrap */
	CHECK(sroce_psn_covers(3, 0xfffff0));
	CHECK(!sroce_psn_covers(0xffffff, 0));
	CHECK(!sroce_psn_covers(0xfffff0, 3));
	CHECK(sroce_psn_covers(0x01000010, 0x10));	/* bits 31..24 */
	tap_end();
}

static void test_ack_action(void)
{
	static const struct {
		enum sroce_ack_action action;
		u8 status;
	} wc[] = {
		{ SROCE_ACK_COMPLETE_UP_TO_PSN, 0 },
		{ SROCE_ACK_RETRY_FROM_PSN, 0 },
		{ SROCE_ACK_RNR_WAIT, 0 },
		{ SROCE_ACK_FATAL_INVALID_REQ, 9 },	/* IB_WC_REM_INV_REQ_ERR */
		{ SROCE_ACK_FATAL_REMOTE_ACCESS, 10 },	/* IB_WC_REM_ACCESS_ERR */
		{ SROCE_ACK_FATAL_REMOTE_OP, 11 },	/* IB_WC_REM_OP_ERR */
		{ SROCE_ACK_FATAL_BAD_RESP, 7 },	/* IB_WC_BAD_RESP_ERR */
	};
	unsigned int i;

	tap_begin("rc: completer action of all 256 syndromes");
	for (i = 0; i < 256; i++) {
		enum sroce_ack_action exp;

		if (i < 0x20)
			exp = SROCE_ACK_COMPLETE_UP_TO_PSN;
		else if (i < 0x40)
			exp = SROCE_ACK_RNR_WAIT;
		else if (i == 0x60)
			exp = SROCE_ACK_RETRY_FROM_PSN;
		else if (i == 0x61)
			exp = SROCE_ACK_FATAL_INVALID_REQ;
		else if (i == 0x62)
			exp = SROCE_ACK_FATAL_REMOTE_ACCESS;
		else if (i > 0x62 && i < 0x80)
			exp = SROCE_ACK_FATAL_REMOTE_OP;
		else
			exp = SROCE_ACK_FATAL_BAD_RESP;
		CHECK_EQ(sroce_comp_ack_action((u8)i), exp);
	}
	tap_end();

	tap_begin("rc: work completion status of each action (ib_wc_status)");
	for (i = 0; i < ARRAY_SIZE(wc); i++)
		CHECK_EQ(sroce_ack_action_wc_status(wc[i].action),
			 wc[i].status);
	CHECK_EQ(SROCE_WC_SUCCESS, 0);
	CHECK_EQ(SROCE_WC_BAD_RESP_ERR, 7);
	CHECK_EQ(SROCE_WC_REM_INV_REQ_ERR, 9);
	CHECK_EQ(SROCE_WC_REM_ACCESS_ERR, 10);
	CHECK_EQ(SROCE_WC_REM_OP_ERR, 11);
	CHECK_EQ(SROCE_WC_RETRY_EXC_ERR, 12);
	CHECK_EQ(SROCE_WC_RNR_RETRY_EXC_ERR, 13);
	tap_end();
}

void test_rc(void)
{
	test_psn_class();
	test_check_seq();
	test_ack_now();
	test_syndromes();
	test_timers();
	test_retry();
	test_req_opcode();
	test_npkts();
	test_covers();
	test_ack_action();
}
