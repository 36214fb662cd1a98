// SPDX-License-Identifier: GPL-2.0-only
/* sroce host unit test binary: runs every test group, TAP output */
#include "tap.h"
#include "tests.h"

struct tap_state tap;

int main(void)
{
	test_opcode();
	test_hdr();
	test_parse();
	test_psn();
	test_icrc();
	test_rc();
	test_engine();
	test_ud();
	test_ring();
	test_dcqcn();
	test_budget();
	return tap_done();
}
