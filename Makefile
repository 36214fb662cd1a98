# SPDX-License-Identifier: GPL-2.0-only
#
# sroce top-level Makefile.
#
#   make            build drivers/infiniband/sw/sroce/rdma_sroce.ko
#   make install    install it for KVER, the kernel of KDIR (modprobe rdma_sroce)
#   make check      install what is missing, build, run every test
#   make demo       two QEMU guests with an sroce device each
#   make unit       host unit tests of the pure protocol core, simulator
#   make check-ulp  NVMe-oF and NFS/RDMA tests in guests (make check runs
#                   them only when it has the time)
#   make check-debug  guest selftests on a KASAN/lockdep/kmemleak kernel
#   make check-kernels  every guest test on each of Debian's four kernels
#                   (6.1, 6.1-cloud, 6.12, 6.12-cloud; tools/testbed/)
#   make deb        build/deb/sroce-dkms_VERSION_all.deb (tools/packaging/)
#   make lint       W=1 build, sparse and checkpatch --strict
#   make quick      lint, unit tests, simulator, 30 s of each fuzzer: a few
#                   minutes, no guest; for every change (make check before
#                   landing)
#
# KDIR defaults to the running kernel's build tree when its headers are
# installed, else to the newest one installed (a machine whose running
# kernel is not Debian's, a container); "make" says which it took.
# "make KDIR=/lib/modules/VERSION/build" builds for any other.

KDIR ?= $(shell tools/kdir.sh)
# The kernel release KDIR was built for, as uname -r gives it (Debian's
# include/config/kernel.release holds the upstream version instead).
KVER ?= $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null)
MODULE := drivers/infiniband/sw/sroce/rdma_sroce.ko

.PHONY: all modules install modclean clean deps check check-ulp check-debug check-kernels deb demo bench unit sim fuzz analyze lint sparse checkpatch quick

all: modules

modules:
	@test -n "$(KDIR)" || { echo "no kernel build tree: run 'make deps' (linux-headers-amd64)"; exit 1; }
	@echo "sroce: building for $(KVER) ($(KDIR))"
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# INSTALL_MOD_PATH=DIR stages the installation under DIR instead of /.
install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=updates modules_install
	depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(KVER)

# Only the module's own directory: kbuild's clean of M=$(CURDIR) would
# delete every object under the tree, the debug kernel's in build/ too.
modclean:
	@test -z "$(KDIR)" || \
		$(MAKE) -C $(KDIR) M=$(CURDIR)/drivers/infiniband/sw/sroce clean
	rm -rf drivers/infiniband/sw/sroce/compat/generated
	rm -f Module.symvers modules.order .Module.symvers.cmd .modules.order.cmd

clean: modclean
	rm -rf build

deps:
	tools/testbed/deps.sh

check:
	tools/check.sh

check-ulp: modules
	tools/testbed/deps.sh
	$(MAKE) -s -C selftests
	tools/testbed/run-selftests.sh --ulp

check-debug:
	tools/debug/check-debug.sh

check-kernels:
	tools/testbed/deps.sh
	$(MAKE) -s -C selftests
	tools/testbed/check-kernels.sh

deb:
	tools/packaging/mkdeb.sh

demo:
	tools/testbed/demo.sh

lint:
	tools/lint.sh all

sparse:
	tools/lint.sh sparse

checkpatch:
	tools/lint.sh checkpatch

unit:
	$(MAKE) -f tools/host.mk unit

quick:
	tools/lint.sh all
	$(MAKE) -f tools/host.mk unit
	$(MAKE) -f tools/host.mk fuzz FUZZ_SECONDS=30

sim:
	$(MAKE) -f tools/host.mk sim

fuzz:
	$(MAKE) -f tools/host.mk fuzz

analyze:
	$(MAKE) -f tools/host.mk analyze

bench:
	tools/bench/bench.sh
