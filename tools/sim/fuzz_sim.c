// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the input bytes choose the seed, the wire's fault
 * rates and the adversary's script (a sequence of forged packets, see
 * sim_cfg_decode() in sim_adv.c); one short simulation runs.  A failed
 * check aborts with the reason and the last events.  Replay a crash with
 * "build/host/sim --fuzz-input crash-..." (or this binary and the file).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"

#define FUZZ_MAX_FORGED	512

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sim_forge script[FUZZ_MAX_FORGED];
	static struct sim_result res;
	struct sim_cfg cfg;

	sim_cfg_decode(data, size, &cfg, script, FUZZ_MAX_FORGED);
	if (sim_run(&cfg, &res) == SIM_FAILED) {
		fprintf(stderr, "fuzz_sim: seed %llu: %s\n# params: %s\n",
			(unsigned long long)cfg.seed, res.why, res.desc);
		abort();
	}
	return 0;
}
