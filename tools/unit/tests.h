/* SPDX-License-Identifier: GPL-2.0-only */
/* sroce host unit tests: one entry point per test file */
#ifndef _SROCE_UNIT_TESTS_H
#define _SROCE_UNIT_TESTS_H

void test_opcode(void);
void test_hdr(void);
void test_parse(void);
void test_psn(void);
void test_icrc(void);
void test_rc(void);
void test_engine(void);
void test_ud(void);
void test_ring(void);
void test_dcqcn(void);
void test_budget(void);

#endif /* _SROCE_UNIT_TESTS_H */
