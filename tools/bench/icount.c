// SPDX-License-Identifier: GPL-2.0-only
/*
 * A QEMU TCG plugin that counts the instructions a one-vCPU guest
 * executes, in kernel space and in user space, and reports the totals at
 * marks the guest sets (icount.h, icount-mark.c). A count does not
 * depend on how fast the host runs the guest, which a time does.
 *
 *   -plugin build/bench/icount.so,out=FILE[,prof=on]
 *
 * out: where the marks go, one "mark ID KERNEL USER" line each.
 * prof: also count kernel instructions per translation block start
 * address, and write them (cumulative "ADDR COUNT" lines, hex address) to
 * FILE.ID at each mark, for tools/bench/profile.py to attribute to
 * symbols with the guest's /proc/kallsyms.
 *
 * Counts are per translation block executed, added inline (no call), as
 * QEMU's own example plugins do; a block cut short by an exception counts
 * whole, which is rare. One vCPU: the counters need no atomics.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin-v1.h"
#include "icount.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static uint64_t kernel_insns;
static uint64_t user_insns;
static FILE *out;
static char *out_path;

/* prof=on: open addressing on the block's start address */
struct site {
	uint64_t vaddr;
	uint64_t count;
};

#define SITES_ORDER 20
#define SITES (1u << SITES_ORDER)
static struct site *sites;
static unsigned int nsites;

static struct site *site_of(uint64_t vaddr)
{
	uint64_t h = vaddr * 0x9e3779b97f4a7c15ULL;
	unsigned int i = (unsigned int)(h >> (64 - SITES_ORDER));

	for (;;) {
		struct site *s = &sites[i];

		if (s->vaddr == vaddr)
			return s;
		if (!s->vaddr) {
			if (nsites >= SITES / 2)
				return NULL;	/* full: stop profiling */
			nsites++;
			s->vaddr = vaddr;
			return s;
		}
		i = (i + 1) & (SITES - 1);
	}
}

static void dump_profile(unsigned int id)
{
	char path[4096];
	FILE *f;
	unsigned int i;

	snprintf(path, sizeof(path), "%s.%u", out_path, id);
	f = fopen(path, "w");
	if (!f)
		return;
	for (i = 0; i < SITES; i++)
		if (sites[i].count)
			fprintf(f, "%" PRIx64 " %" PRIu64 "\n", sites[i].vaddr,
				sites[i].count);
	fclose(f);
}

static void on_mark(unsigned int vcpu, void *udata)
{
	unsigned int id = (unsigned int)(uintptr_t)udata;

	(void)vcpu;
	fprintf(out, "mark %u %" PRIu64 " %" PRIu64 "\n", id, kernel_insns,
		user_insns);
	fflush(out);
	if (sites)
		dump_profile(id);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	uint64_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	if (vaddr >= ICOUNT_KERNEL_BASE) {
		struct site *s = sites ? site_of(vaddr) : NULL;

		qemu_plugin_register_vcpu_tb_exec_inline(tb,
			QEMU_PLUGIN_INLINE_ADD_U64, &kernel_insns, n);
		if (s)
			qemu_plugin_register_vcpu_tb_exec_inline(tb,
				QEMU_PLUGIN_INLINE_ADD_U64, &s->count, n);
		return;
	}
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &user_insns, n);
	if (vaddr >= ICOUNT_MARK_BASE && !(vaddr & 4095) &&
	    vaddr < ICOUNT_MARK_BASE + (uint64_t)ICOUNT_MARK_MAX * 4096)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_mark,
			QEMU_PLUGIN_CB_NO_REGS,
			(void *)(uintptr_t)((vaddr - ICOUNT_MARK_BASE) >> 12));
}

static void on_qemu_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	fprintf(out, "exit %" PRIu64 " %" PRIu64 "\n", kernel_insns,
		user_insns);
	fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out_path = argv[i] + 4;
		} else if (!strcmp(argv[i], "prof=on")) {
			sites = calloc(SITES, sizeof(*sites));
			if (!sites)
				return -ENOMEM;
		} else {
			fprintf(stderr, "icount: unknown argument %s\n",
				argv[i]);
			return -EINVAL;
		}
	}
	if (!out_path) {
		fprintf(stderr, "icount: out=FILE is required\n");
		return -EINVAL;
	}
	out = fopen(out_path, "w");
	if (!out) {
		fprintf(stderr, "icount: %s: %s\n", out_path, strerror(errno));
		return -errno;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
