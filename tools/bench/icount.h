/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the instruction-counting QEMU plugin (icount.c) and the guest's
 * mark program (icount-mark.c) agree on: a mark is the execution of a
 * translation block that starts at ICOUNT_MARK_BASE + id * 4096 in user
 * space. The plugin then writes "id kernel-instructions user-instructions"
 * (totals since boot) to its output, in the vCPU's own thread: the mark is
 * exact, whatever the host's load.
 */
#ifndef SROCE_ICOUNT_H
#define SROCE_ICOUNT_H

#define ICOUNT_MARK_BASE 0x5e0000000000ULL
#define ICOUNT_MARK_MAX 65536
/* x86-64: kernel space is the upper half */
#define ICOUNT_KERNEL_BASE 0xffff800000000000ULL

#endif
