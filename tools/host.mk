# SPDX-License-Identifier: GPL-2.0-only
#
# Host build of the sroce protocol core (the pure-C files the module also
# compiles): unit tests, fuzzing, static analysis. The top-level Makefile
# calls it as "make unit", "make fuzz", "make analyze".
#
#   make -f tools/host.mk unit                  gcc + ASan/UBSan, run tests
#                                               and a simulator batch
#   make -f tools/host.mk sim                   build build/host/sim
#   make -f tools/host.mk fuzz FUZZ_SECONDS=30  clang libFuzzer, run
#   make -f tools/host.mk analyze               clang --analyze + cppcheck
#   make -f tools/host.mk bench-tools           make bench's QEMU plugin
#                                               and guest mark program
#
# SIM_RUNS / SIM_SEED set the simulator batch of "unit" (tools/sim/).

HERE := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
OUT := $(HERE)/build/host

HOST_CC ?= gcc
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 30

CORE_SRC := $(addprefix $(HERE)/drivers/infiniband/sw/sroce/core/, \
	sroce_opcode.c sroce_hdr.c sroce_icrc.c sroce_rc.c sroce_rc_sq.c \
	sroce_rc_req.c sroce_rc_comp.c sroce_rc_recover.c \
	sroce_rc_rq.c sroce_dcqcn.c sroce_budget.c sroce_ud.c sroce_ring.c)
HOST_SRC := $(HERE)/tools/host/sroce_crc32.c
# The glue the unit tests and the simulator share (tools/host/glue.h)
GLUE_SRC := $(HERE)/tools/host/glue.c
UNIT_SRC := $(sort $(wildcard $(HERE)/tools/unit/*.c))
FUZZ_SRC := $(HERE)/tools/fuzz/fuzz_parse.c
FUZZ_RING_SRC := $(HERE)/tools/fuzz/fuzz_ring.c
SIM_SRC := $(GLUE_SRC) $(addprefix $(HERE)/tools/sim/, sim.c sim_work.c \
	sim_check.c sim_adv.c sim_ev.c sim_trace.c)
HDRS := $(wildcard $(HERE)/include/sroce/*.h $(HERE)/tools/unit/*.h \
	$(HERE)/tools/sim/*.h $(HERE)/tools/host/*.h)
SIM_RUNS ?= 300
SIM_SEED ?= 1

WARN := -Wall -Wextra -Werror -Wmissing-prototypes -Wstrict-prototypes \
	-Wmissing-declarations -Wvla -Wdeclaration-after-statement -Wshadow \
	-Wpointer-arith -Wundef -Wformat=2
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
CFLAGS_COMMON := -std=gnu11 -g -I$(HERE)/include $(WARN)

.PHONY: all unit sim fuzz analyze bench-tools clean

all: unit

$(OUT):
	mkdir -p $@

$(OUT)/unit_tests: $(CORE_SRC) $(HOST_SRC) $(GLUE_SRC) $(UNIT_SRC) $(HDRS) \
		| $(OUT)
	$(HOST_CC) $(CFLAGS_COMMON) -O1 $(SAN) -o $@ $(CORE_SRC) $(HOST_SRC) \
		$(GLUE_SRC) $(UNIT_SRC)

$(OUT)/sim: $(CORE_SRC) $(HOST_SRC) $(SIM_SRC) $(HERE)/tools/sim/sim_main.c \
		$(HDRS) | $(OUT)
	$(HOST_CC) $(CFLAGS_COMMON) -O1 $(SAN) -o $@ $(CORE_SRC) $(HOST_SRC) \
		$(SIM_SRC) $(HERE)/tools/sim/sim_main.c

$(OUT)/fan: $(CORE_SRC) $(HOST_SRC) $(GLUE_SRC) $(HERE)/tools/sim/fan.c \
		$(HDRS) | $(OUT)
	$(HOST_CC) $(CFLAGS_COMMON) -O1 $(SAN) -o $@ $(CORE_SRC) $(HOST_SRC) \
		$(GLUE_SRC) $(HERE)/tools/sim/fan.c

sim: $(OUT)/sim $(OUT)/fan

# The simulator batch: lossless, lossy and adversary runs, one TAP line each
unit: $(OUT)/unit_tests $(OUT)/sim $(OUT)/fan
	$(OUT)/unit_tests
	$(OUT)/sim --seed $(SIM_SEED) --runs $(SIM_RUNS) --mix
	$(OUT)/fan --check

$(OUT)/fuzz_parse: $(CORE_SRC) $(HOST_SRC) $(FUZZ_SRC) $(HDRS) | $(OUT)
	$(FUZZ_CC) $(CFLAGS_COMMON) -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -o $@ $(CORE_SRC) $(HOST_SRC) \
		$(FUZZ_SRC)

$(OUT)/fuzz_ring: $(CORE_SRC) $(HOST_SRC) $(FUZZ_RING_SRC) $(HDRS) | $(OUT)
	$(FUZZ_CC) $(CFLAGS_COMMON) -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -o $@ $(CORE_SRC) $(HOST_SRC) \
		$(FUZZ_RING_SRC)

$(OUT)/gen_seeds: $(CORE_SRC) $(HOST_SRC) $(HERE)/tools/fuzz/gen_seeds.c $(HDRS) | $(OUT)
	$(HOST_CC) $(CFLAGS_COMMON) -O1 -o $@ $(CORE_SRC) $(HOST_SRC) \
		$(HERE)/tools/fuzz/gen_seeds.c

$(OUT)/fuzz_sim: $(CORE_SRC) $(HOST_SRC) $(SIM_SRC) $(HERE)/tools/sim/fuzz_sim.c \
		$(HDRS) | $(OUT)
	$(FUZZ_CC) $(CFLAGS_COMMON) -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -o $@ $(CORE_SRC) $(HOST_SRC) \
		$(SIM_SRC) $(HERE)/tools/sim/fuzz_sim.c

# The three fuzzers run at once (make check's machine has two cores),
# each for FUZZ_SECONDS; their logs are printed one after another.
fuzz: $(OUT)/fuzz_parse $(OUT)/gen_seeds $(OUT)/fuzz_sim $(OUT)/fuzz_ring
	mkdir -p $(OUT)/corpus $(OUT)/corpus-sim $(OUT)/corpus-ring
	$(OUT)/gen_seeds $(OUT)/corpus
	rc=0; \
	$(OUT)/fuzz_parse -max_total_time=$(FUZZ_SECONDS) -max_len=4400 \
		-print_final_stats=1 -artifact_prefix=$(OUT)/ $(OUT)/corpus \
		> $(OUT)/fuzz_parse.log 2>&1 & p1=$$!; \
	$(OUT)/fuzz_sim -max_total_time=$(FUZZ_SECONDS) -max_len=2048 \
		-print_final_stats=1 -artifact_prefix=$(OUT)/sim- \
		$(OUT)/corpus-sim > $(OUT)/fuzz_sim.log 2>&1 & p2=$$!; \
	$(OUT)/fuzz_ring -max_total_time=$(FUZZ_SECONDS) -max_len=1024 \
		-print_final_stats=1 -artifact_prefix=$(OUT)/ring- \
		$(OUT)/corpus-ring > $(OUT)/fuzz_ring.log 2>&1 & p3=$$!; \
	for p in $$p1 $$p2 $$p3; do wait $$p || rc=1; done; \
	cat $(OUT)/fuzz_parse.log $(OUT)/fuzz_sim.log $(OUT)/fuzz_ring.log; \
	exit $$rc

# tools/bench: a TCG plugin (loaded by QEMU on this host) and the static
# program the guests run to mark phases for it.
BENCH_HDRS := $(wildcard $(HERE)/tools/bench/*.h)

$(OUT)/icount.so: $(HERE)/tools/bench/icount.c $(BENCH_HDRS) | $(OUT)
	$(HOST_CC) -std=gnu11 -O2 $(WARN) -shared -fPIC -fvisibility=hidden \
		-o $@ $<

$(OUT)/icount-mark: $(HERE)/tools/bench/icount-mark.c $(BENCH_HDRS) | $(OUT)
	$(HOST_CC) -std=gnu11 -O2 $(WARN) -static -o $@ $<

bench-tools: $(OUT)/icount.so $(OUT)/icount-mark

analyze:
	set -e; for f in $(CORE_SRC) $(HOST_SRC) $(GLUE_SRC) $(UNIT_SRC) \
		$(FUZZ_SRC) $(FUZZ_RING_SRC) $(HERE)/tools/bench/icount.c \
		$(HERE)/tools/bench/icount-mark.c; do \
		clang --analyze -Xclang -analyzer-werror -std=gnu11 \
			-I$(HERE)/include -o /dev/null $$f; \
	done
	cppcheck --std=c11 --enable=warning,style,performance,portability \
		--error-exitcode=1 --inline-suppr --quiet \
		--suppress=missingIncludeSystem -I$(HERE)/include \
		$(CORE_SRC) $(HOST_SRC) $(GLUE_SRC) $(FUZZ_SRC) $(FUZZ_RING_SRC)

clean:
	rm -rf $(OUT)
