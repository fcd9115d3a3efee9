# SPDX-License-Identifier: GPL-2.0
# Other kernels under qemu (make check-kernels): see test/vm/README.
#
#   make check-kernels                   sid's 7.2 and bookworm's 6.1
#   make check-kernels KERNELS=bookworm  one of them
#   make check-kernels KERNEL=path/to/bzImage MODULES=dir   your own
#
# Under software emulation the tests stretch their time limits
# (XF_VM_SLOW, read by vm_slow in test/helpers/common.bash).

VM_SUITES ?= test/feature.bats test/redirect.bats test/route.bats test/chain.bats
KERNELS ?= sid bookworm
# make check runs a subset after the main suite (CHECK_EXTRA), as much as
# CI's time allows: on 7.2 the probes, netkit and the peer-egress refusal;
# on 6.1 the probes, redirect's cls_bpf fallback and route's refusal of
# hook tc.
VM_CI_SUITES ?= test/feature.bats test/redirect.bats test/route.bats
VM_CI_SID ?= kernel probe|every probe answers|egress flag|netkit|peer-egress refused.*\(tcx\)
VM_CI_BOOKWORM ?= kernel probe|every probe answers|lacks them|netkit|cables.*\(tcx\)|peer delivers.*\(tcx\)|hook (tc|xdp): IPv4 ping|hook auto on a veth|cannot take XDP frames

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
	$(Q)test/vm/check --filter '$(VM_CI_SID)' sid -- $(VM_CI_SUITES)
	$(Q)test/vm/check --filter '$(VM_CI_BOOKWORM)' bookworm -- $(VM_CI_SUITES)

CHECK_EXTRA += check-kernels-ci

# The netkit tests create their pairs with it, on every kernel.
check: build/tools/netkit-pair
