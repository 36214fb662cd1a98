// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CRC32 under every ICRC (include/sroce/compat.h: sroce_crc32()),
 * picked at load: the crypto API's "crc32" when its best driver is
 * faster than the library's table (crc32-pclmul on x86: carry-less
 * multiply, 64 bytes a step) and agrees with it on a known answer;
 * else crc32_le(), the table version 6.1 and 6.12 build. Short runs
 * (headers, small payloads) always take the table: there the shash's
 * indirect calls and FPU save cost more than they save.
 *
 * The module parameter icrc=table forces the table (for comparison);
 * /sys/module/rdma_sroce/parameters/icrc_impl tells what was chosen.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/hash.h>
#include <linux/crc32.h>
#include <linux/module.h>
#include <linux/string.h>

#include "sroce/compat.h"
#include "sroce_crc.h"

/* Below this many bytes the table is cheaper than a shash round trip */
#define SROCE_CRC_SHASH_MIN	256

static struct crypto_shash *sroce_crc_tfm __read_mostly;

static char *icrc = "auto";
module_param(icrc, charp, 0444);
MODULE_PARM_DESC(icrc,
		 "CRC32 for the ICRC: auto (fastest that passes a self-check) or table");

static int sroce_icrc_impl_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", sroce_crc_tfm ?
			  crypto_shash_driver_name(sroce_crc_tfm) : "crc32_le");
}

static const struct kernel_param_ops sroce_icrc_impl_ops = {
	.get = sroce_icrc_impl_get,
};
module_param_cb(icrc_impl, &sroce_icrc_impl_ops, NULL, 0444);
MODULE_PARM_DESC(icrc_impl, "The CRC32 implementation in use (read only)");

static u32 sroce_crc32_shash(struct crypto_shash *tfm, u32 crc,
			     const u8 *p, size_t len)
{
	SHASH_DESC_ON_STACK(desc, tfm);
	u32 out;

	/* "crc32" state is the raw register, seedable by import */
	desc->tfm = tfm;
	if (crypto_shash_import(desc, &crc) ||
	    crypto_shash_update(desc, p, len) ||
	    crypto_shash_export(desc, &out))
		return crc32_le(crc, p, len);
	return out;
}

u32 sroce_crc32(u32 crc, const u8 *p, size_t len)
{
	struct crypto_shash *tfm = READ_ONCE(sroce_crc_tfm);

	if (!tfm || len < SROCE_CRC_SHASH_MIN)
		return crc32_le(crc, p, len);
	return sroce_crc32_shash(tfm, crc, p, len);
}

/* The shash must give crc32_le()'s answer, seeded, at any alignment */
static bool sroce_crc_selftest(struct crypto_shash *tfm)
{
	static const u32 seeds[] = { 0, 0xdebb20e3, 0x12345678 };
	u8 *buf = kmalloc(1500, GFP_KERNEL);
	bool ok = true;
	unsigned int i, s;

	if (!buf)
		return false;
	for (i = 0; i < 1500; i++)
		buf[i] = (u8)(i * 131 + (i >> 3));
	for (s = 0; s < ARRAY_SIZE(seeds) && ok; s++)
		for (i = 0; i < 16 && ok; i++)
			ok = sroce_crc32_shash(tfm, seeds[s], buf + i,
					       1400 - i * 37) ==
			     crc32_le(seeds[s], buf + i, 1400 - i * 37);
	kfree(buf);
	return ok;
}

int sroce_crc_init(void)
{
	struct crypto_shash *tfm;
	const char *name;

	if (!strcmp(icrc, "table"))
		goto table;
	if (strcmp(icrc, "auto")) {
		pr_err("icrc=%s: not auto or table\n", icrc);
		return -EINVAL;
	}
	tfm = crypto_alloc_shash("crc32", 0, 0);
	if (IS_ERR(tfm))
		goto table;
	name = crypto_shash_driver_name(tfm);
	/* crc32-generic is the table behind an indirect call: no gain */
	if (!strcmp(name, "crc32-generic") ||
	    crypto_shash_descsize(tfm) != sizeof(u32) ||
	    crypto_shash_statesize(tfm) != sizeof(u32) ||
	    !sroce_crc_selftest(tfm)) {
		crypto_free_shash(tfm);
		goto table;
	}
	sroce_crc_tfm = tfm;
	pr_info("ICRC: %s\n", name);
	return 0;
table:
	pr_info("ICRC: crc32_le\n");
	return 0;
}

void sroce_crc_exit(void)
{
	if (sroce_crc_tfm)
		crypto_free_shash(sroce_crc_tfm);
	sroce_crc_tfm = NULL;
}
