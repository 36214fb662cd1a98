/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce compat layer: the only file that differs between a kernel build and
 * a host (unit test / fuzz) build.  Everything else in the protocol core
 * includes "sroce/..." headers only and uses the types and helpers below.
 *
 * Provides: u8..u64, s8..s32, __be16/__be32/__be64, bool, size_t, memcpy,
 * memset, memcmp, BIT() and the raw CRC32 hook sroce_crc32_le().
 */
#ifndef _SROCE_COMPAT_H
#define _SROCE_COMPAT_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/bits.h>
#include <linux/string.h>
#include <asm/byteorder.h>
#include <linux/bug.h>

/* An engine invariant broke: warn once; the caller fails the QP. */
#define SROCE_ENGINE_WARN(cond)	WARN_ON_ONCE(cond)

/*
 * Raw reflected CRC32 (poly 0xEDB88320) update: no pre/post inversion, the
 * caller seeds and finalises.  Same contract as the host implementation.
 * The module picks the fastest the kernel has at load (sroce_crc.c).
 */
u32 sroce_crc32(u32 crc, const u8 *p, size_t len);

static inline u32 sroce_crc32_le(u32 crc, const u8 *p, size_t len)
{
	return sroce_crc32(crc, p, len);
}

#else /* host build: unit tests and fuzzing */

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <stdbool.h>
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>

/* An engine invariant broke: on the host that is a test failure. */
#define SROCE_ENGINE_WARN(cond) \
	((cond) ? (fprintf(stderr, "%s:%d: engine invariant broken: %s\n", \
			   __FILE__, __LINE__, #cond), abort(), 1) : 0)

/* Same widths as the kernel's types on every Linux ABI (ILP32 and LP64) */
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef short s16;
typedef int s32;
typedef long long s64;
typedef u16 __be16;
typedef u32 __be32;
typedef u64 __be64;
typedef u16 __le16;
typedef u32 __le32;

#ifndef BIT
#define BIT(nr) (1UL << (nr))
#endif

/*
 * Host stand-in for the kernel's crc32_le(): table-driven reflected CRC32
 * (poly 0xEDB88320), no pre/post inversion.  tools/host/sroce_crc32.c, host only.
 */
u32 sroce_crc32_le(u32 crc, const u8 *p, size_t len);

#endif /* __KERNEL__ */

#endif /* _SROCE_COMPAT_H */
