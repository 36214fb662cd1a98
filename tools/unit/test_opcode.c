// SPDX-License-Identifier: GPL-2.0-only
/*
 * Opcode table tests: every RC/UC/UD opcode (and CNP) checked against a
 * hand-written copy of the IBTA opcode/header tables, plus table invariants.
 */
#include <string.h>

#include "sroce/opcode.h"
#include "tap.h"
#include "tests.h"

/* Expected layout; offsets are from the BTH start, 0 = header absent */
struct exp_op {
	u8 op;
	const char *name;
	u8 len;
	u8 aeth, atmack, deth, reth, atmeth, immdt, ieth, cnp;
	bool payload, pad_ok;
	char pos;		/* F first, M middle, L last, O only */
	char dir;		/* Q request, S response, - neither */
	u32 cls;
};

#define S SROCE_MASK_SEND
#define W SROCE_MASK_WRITE
#define R SROCE_MASK_READ
#define A SROCE_MASK_ATOMIC
#define K SROCE_MASK_ACK
#define C SROCE_MASK_CNP

/* columns: op, name, len, aeth atmack deth reth atmeth immdt ieth cnp, pay pad pos dir cls */
#define SEND_UC_RC(base, t)									\
	{ base | 0x00, t " SEND_FIRST",	      12, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 'F', 'Q', S },	\
	{ base | 0x01, t " SEND_MIDDLE",      12, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 'M', 'Q', S },	\
	{ base | 0x02, t " SEND_LAST",	      12, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 'L', 'Q', S },	\
	{ base | 0x03, t " SEND_LAST_IMM",    16, 0, 0, 0, 0, 0, 12, 0, 0, 1, 1, 'L', 'Q', S },	\
	{ base | 0x04, t " SEND_ONLY",	      12, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 'O', 'Q', S },	\
	{ base | 0x05, t " SEND_ONLY_IMM",    16, 0, 0, 0, 0, 0, 12, 0, 0, 1, 1, 'O', 'Q', S },	\
	{ base | 0x06, t " WRITE_FIRST",      28, 0, 0, 0, 12, 0, 0, 0, 0, 1, 0, 'F', 'Q', W },	\
	{ base | 0x07, t " WRITE_MIDDLE",     12, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 'M', 'Q', W },	\
	{ base | 0x08, t " WRITE_LAST",	      12, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 'L', 'Q', W },	\
	{ base | 0x09, t " WRITE_LAST_IMM",   16, 0, 0, 0, 0, 0, 12, 0, 0, 1, 1, 'L', 'Q', W },	\
	{ base | 0x0a, t " WRITE_ONLY",	      28, 0, 0, 0, 12, 0, 0, 0, 0, 1, 1, 'O', 'Q', W },	\
	{ base | 0x0b, t " WRITE_ONLY_IMM",   32, 0, 0, 0, 12, 0, 28, 0, 0, 1, 1, 'O', 'Q', W }

static const struct exp_op exp_ops[] = {
	SEND_UC_RC(0x00, "RC"),
	{ 0x0c, "RC READ_REQ",	      28, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 'O', 'Q', R },
	{ 0x0d, "RC READ_RESP_FIRST",  16, 12, 0, 0, 0, 0, 0, 0, 0, 1, 0, 'F', 'S', R },
	{ 0x0e, "RC READ_RESP_MIDDLE", 12, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 'M', 'S', R },
	{ 0x0f, "RC READ_RESP_LAST",   16, 12, 0, 0, 0, 0, 0, 0, 0, 1, 1, 'L', 'S', R },
	{ 0x10, "RC READ_RESP_ONLY",   16, 12, 0, 0, 0, 0, 0, 0, 0, 1, 1, 'O', 'S', R },
	{ 0x11, "RC ACK",	      16, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'O', 'S', K },
	{ 0x12, "RC ATOMIC_ACK",       24, 12, 16, 0, 0, 0, 0, 0, 0, 0, 0, 'O', 'S', A },
	{ 0x13, "RC CMP_SWAP",	      40, 0, 0, 0, 0, 12, 0, 0, 0, 0, 0, 'O', 'Q', A },
	{ 0x14, "RC FETCH_ADD",	      40, 0, 0, 0, 0, 12, 0, 0, 0, 0, 0, 'O', 'Q', A },
	{ 0x16, "RC SEND_LAST_INV",    16, 0, 0, 0, 0, 0, 0, 12, 0, 1, 1, 'L', 'Q', S },
	{ 0x17, "RC SEND_ONLY_INV",    16, 0, 0, 0, 0, 0, 0, 12, 0, 1, 1, 'O', 'Q', S },
	{ 0x1d, "RC ATOMIC_WRITE",     28, 0, 0, 0, 12, 0, 0, 0, 0, 1, 0, 'O', 'Q', A },
	SEND_UC_RC(0x20, "UC"),
	{ 0x64, "UD SEND_ONLY",	      20, 0, 0, 12, 0, 0, 0, 0, 0, 1, 1, 'O', 'Q', S },
	{ 0x65, "UD SEND_ONLY_IMM",    24, 0, 0, 12, 0, 0, 20, 0, 0, 1, 1, 'O', 'Q', S },
	{ 0x81, "CNP",		      28, 0, 0, 0, 0, 0, 0, 0, 12, 0, 0, 'O', '-', C },
};

static void check_hdr(const struct sroce_opcode_info *info,
		      enum sroce_hdr_type t, u8 exp_off)
{
	if (exp_off) {
		CHECK(info->mask & sroce_hdr_mask(t));
		CHECK_EQ(info->offset[t], exp_off);
	} else {
		CHECK(!(info->mask & sroce_hdr_mask(t)));
	}
}

static void check_one(const struct exp_op *e)
{
	const struct sroce_opcode_info *info = sroce_opcode_get(e->op);
	u32 m;

	tap_begin("opcode 0x%02x %s: flags, length, offsets", e->op, e->name);
	if (!CHECK(info)) {
		tap_end();
		return;
	}
	m = info->mask;
	CHECK(m & SROCE_MASK_VALID);
	CHECK(strcmp(info->name, e->name) == 0);
	CHECK(strcmp(sroce_opcode_name(e->op), e->name) == 0);
	CHECK_EQ(info->length, e->len);
	check_hdr(info, SROCE_HDR_AETH, e->aeth);
	check_hdr(info, SROCE_HDR_ATMACK, e->atmack);
	check_hdr(info, SROCE_HDR_DETH, e->deth);
	check_hdr(info, SROCE_HDR_RETH, e->reth);
	check_hdr(info, SROCE_HDR_ATMETH, e->atmeth);
	check_hdr(info, SROCE_HDR_IMMDT, e->immdt);
	check_hdr(info, SROCE_HDR_IETH, e->ieth);
	check_hdr(info, SROCE_HDR_CNP_RSVD, e->cnp);
	CHECK_EQ(!!(m & SROCE_MASK_PAYLOAD), e->payload);
	CHECK_EQ(!!(m & SROCE_MASK_PAD_OK), e->pad_ok);
	CHECK_EQ(!!(m & SROCE_MASK_FIRST), e->pos == 'F' || e->pos == 'O');
	CHECK_EQ(!!(m & SROCE_MASK_MIDDLE), e->pos == 'M');
	CHECK_EQ(!!(m & SROCE_MASK_LAST), e->pos == 'L' || e->pos == 'O');
	CHECK_EQ(!!(m & SROCE_MASK_REQ), e->dir == 'Q');
	CHECK_EQ(!!(m & SROCE_MASK_RESP), e->dir == 'S');
	CHECK_EQ(m & SROCE_MASK_CLASS, e->cls);
	CHECK_EQ(sroce_opcode_transport(e->op), e->op & 0xe0);
	tap_end();
}

static bool is_expected(unsigned int op)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(exp_ops); i++)
		if (exp_ops[i].op == op)
			return true;
	return false;
}

static unsigned int popcount32(u32 v)
{
	unsigned int n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

void test_opcode(void)
{
	unsigned int op, t;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(exp_ops); i++)
		check_one(&exp_ops[i]);

	tap_begin("opcode: exactly the %zu listed opcodes are valid",
		  ARRAY_SIZE(exp_ops));
	for (op = 0; op < 256; op++) {
		bool valid = sroce_opcode_get((u8)op);

		if (!CHECK_EQ(valid, is_expected(op)))
			printf("# opcode 0x%02x\n", op);
		if (!valid)
			CHECK(strcmp(sroce_opcode_name((u8)op), "UNKNOWN") == 0);
	}
	/* reserved or unsupported: RC 0x15, FLUSH, UC ATOMIC WRITE, RD, XRC */
	CHECK(!sroce_opcode_get(0x15));
	CHECK(!sroce_opcode_get(0x1c));
	CHECK(!sroce_opcode_get(0x3d));
	CHECK(!sroce_opcode_get(0x2c));
	CHECK(!sroce_opcode_get(0x44));
	CHECK(!sroce_opcode_get(0x60));
	CHECK(!sroce_opcode_get(0x80));
	CHECK(!sroce_opcode_get(0xa4));
	tap_end();

	tap_begin("opcode: table invariants (class, direction, layout)");
	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode_get((u8)op);
		unsigned int end = SROCE_BTH_LEN;

		if (!info)
			continue;
		CHECK_EQ(popcount32(info->mask & SROCE_MASK_CLASS), 1);
		CHECK(!((info->mask & SROCE_MASK_REQ) &&
			(info->mask & SROCE_MASK_RESP)));
		CHECK(!(info->mask & SROCE_MASK_PAD_OK) ||
		      (info->mask & SROCE_MASK_PAYLOAD));
		CHECK(!(info->mask & SROCE_MASK_PAD_OK) ||
		      (info->mask & SROCE_MASK_LAST));
		CHECK(info->length <= SROCE_MAX_HDR_LEN);
		CHECK_EQ(info->length % 4, 0);
		/* headers are contiguous, in enum order, ending at length */
		for (t = 0; t < SROCE_HDR_NR; t++) {
			if (!(info->mask & sroce_hdr_mask(t)))
				continue;
			CHECK_EQ(info->offset[t], end);
			end += sroce_hdr_size(t);
		}
		CHECK_EQ(info->length, end);
	}
	tap_end();

	tap_begin("opcode: extension header sizes");
	CHECK_EQ(sroce_hdr_size(SROCE_HDR_AETH), 4);
	CHECK_EQ(sroce_hdr_size(SROCE_HDR_ATMACK), 8);
	CHECK_EQ(sroce_hdr_size(SROCE_HDR_DETH), 8);
	CHECK_EQ(sroce_hdr_size(SROCE_HDR_RETH), 16);
	CHECK_EQ(sroce_hdr_size(SROCE_HDR_ATMETH), 28);
	CHECK_EQ(sroce_hdr_size(SROCE_HDR_IMMDT), 4);
	CHECK_EQ(sroce_hdr_size(SROCE_HDR_IETH), 4);
	CHECK_EQ(sroce_hdr_size(SROCE_HDR_CNP_RSVD), 16);
	CHECK_EQ(sroce_hdr_size(SROCE_HDR_NR), 0);
	tap_end();
}
