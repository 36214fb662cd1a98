// SPDX-License-Identifier: GPL-2.0-only
/*
 * icount-mark ID: runs in a guest; makes the icount plugin (icount.c)
 * write its instruction totals, tagged ID, by executing one instruction
 * at the address that stands for ID (icount.h). Costs the same few
 * thousand guest instructions each time, which cancel when two marked
 * runs are subtracted.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "icount.h"

int main(int argc, char **argv)
{
	unsigned long id;
	char *end;
	void *at;
	unsigned char *p;

	if (argc != 2)
		goto usage;
	id = strtoul(argv[1], &end, 0);
	if (*end || !*argv[1] || id >= ICOUNT_MARK_MAX)
		goto usage;
	at = (void *)(uintptr_t)(ICOUNT_MARK_BASE + id * 4096);
	p = mmap(at, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED || (void *)p != at) {
		perror("icount-mark: mmap");
		return 1;
	}
	p[0] = 0xc3;	/* ret */
	((void (*)(void))p)();
	return 0;
usage:
	fprintf(stderr, "usage: icount-mark ID (0 to %d)\n",
		ICOUNT_MARK_MAX - 1);
	return 2;
}
