# SPDX-License-Identifier: GPL-2.0
# Other kernels under qemu (make check-kernels): see test/vm/README.
#
#   make check-kernels                   sid's 7.2 and bookworm's 6.1
#   make check-kernels KERNELS=bookworm  one of them
#   make check-kernels KERNEL=path/to/bzImage MODULES=dir   your own
#
# The suites and the volume of their traffic are scaled for software
# emulation (XF_VM_SCALE, read by the tests).

VM_SUITES ?= test/feature.bats test/redirect.bats test/route.bats test/chain.bats
KERNELS ?= sid bookworm
# make check runs these after the main suite (see CHECK_EXTRA): the netkit
# tests on 7.2 and the cls_bpf fallback on 6.1, as CI's time allows.
VM_CI_SUITES ?= test/feature.bats test/redirect.bats

.PHONY: check-kernels check-kernels-ci vm-tools

build/vm build/tools:
	$(Q)mkdir -p $@

build/vm/init: test/vm/init.c | build/vm
	$(QUIET_CC)$(CC) -static -O2 $(WARNINGS) -o $@ $<

build/tools/netkit-pair: test/vm/netkit-pair.c $(LIB_OBJS) | build/tools
	$(QUIET_CC)$(CC) $(XF_CFLAGS) -o $@ $< $(LIB_OBJS) $(LIBS)

vm-tools: all build/vm/init build/tools/netkit-pair $(TEST_PROG_OBJS)

check-kernels: vm-tools
	$(Q)test/vm/check $(if $(KERNEL),--kernel $(KERNEL) $(if $(MODULES),--modules $(MODULES)),$(KERNELS)) -- $(VM_SUITES)

check-kernels-ci: vm-tools
	$(Q)test/vm/check sid bookworm -- $(VM_CI_SUITES)

CHECK_EXTRA += check-kernels-ci

# The netkit tests create their pairs with it, on every kernel.
check: build/tools/netkit-pair
