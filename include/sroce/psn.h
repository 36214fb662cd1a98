/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce PSN arithmetic: packet sequence numbers are 24-bit and wrap modulo
 * 2^24.  Comparison uses the signed 24-bit distance, so "a is after b" holds
 * when a is at most 2^23 - 1 ahead of b.  All inputs may carry garbage in
 * bits 31..24; it is ignored.
 */
#ifndef _SROCE_PSN_H
#define _SROCE_PSN_H

#include "sroce/compat.h"

#define SROCE_PSN_BITS		24
#define SROCE_PSN_MASK		0x00ffffffU
#define SROCE_PSN_HALF		0x00800000U	/* 2^23 */
#define SROCE_PSN_MODULUS	0x01000000U	/* 2^24 */

static inline u32 sroce_psn_mask(u32 psn)
{
	return psn & SROCE_PSN_MASK;
}

/* @psn + @n modulo 2^24 (@n may be a two's complement "negative" u32) */
static inline u32 sroce_psn_add(u32 psn, u32 n)
{
	return (psn + n) & SROCE_PSN_MASK;
}

/* @psn - 1 modulo 2^24 */
static inline u32 sroce_psn_prev(u32 psn)
{
	return (psn - 1) & SROCE_PSN_MASK;
}

/*
 * Signed 24-bit distance from @b to @a: in [-2^23, 2^23 - 1].  Positive when
 * @a is after @b.  A distance of exactly 2^23 is reported as -2^23.
 */
static inline s32 sroce_psn_diff(u32 a, u32 b)
{
	u32 d = (a - b) & SROCE_PSN_MASK;

	if (d & SROCE_PSN_HALF)
		return (s32)d - (s32)SROCE_PSN_MODULUS;
	return (s32)d;
}

/* <0, 0, >0 like memcmp: @a before, equal to, or after @b */
static inline s32 sroce_psn_compare(u32 a, u32 b)
{
	return sroce_psn_diff(a, b);
}

static inline bool sroce_psn_after(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) > 0;
}

static inline bool sroce_psn_before(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) < 0;
}

/*
 * True if @psn is one of the @count PSNs starting at @start, i.e. in
 * [start, start + count) modulo 2^24.  @count of 0 is an empty window;
 * @count >= 2^24 covers every PSN.
 */
static inline bool sroce_psn_in_window(u32 psn, u32 start, u32 count)
{
	if (count >= SROCE_PSN_MODULUS)
		return true;
	return ((psn - start) & SROCE_PSN_MASK) < count;
}

/* True if @psn lies in the inclusive range [@first, @last] modulo 2^24 */
static inline bool sroce_psn_in_range(u32 psn, u32 first, u32 last)
{
	return ((psn - first) & SROCE_PSN_MASK) <= ((last - first) & SROCE_PSN_MASK);
}

#endif /* _SROCE_PSN_H */
