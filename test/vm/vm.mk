# SPDX-License-Identifier: GPL-2.0
# Other kernels under qemu (make check-kernels): see test/vm/README.
#
#   make check-kernels                   sid's 7.2 and bookworm's 6.1
#   make check-kernels KERNELS=bookworm  one of them
#   make check-kernels KERNEL=path/to/bzImage MODULES=dir   your own
#
# Under software emulation the tests stretch their time limits
# (XF_VM_SLOW, read by vm_slow in test/helpers/common.bash).

KERNELS ?= sid bookworm
# make check runs a subset beside the main suite (CHECK_BESIDE, at a lower
# priority, on the CPU the suite leaves idle), as much as CI's time allows
# (both kernels side by side, one vCPU each): the tests tagged "guest"
# ("# bats test_tags=guest" above the test), in whichever suite they are.
# It holds the probes, redirect's egress and peer modes (and seed 002's
# peer delivery) on tcx where there is tcx and on its cls_bpf fallback
# where not (the other modes, whose helpers are older than either kernel,
# only in check-kernels), netkit (or its refusal), the peer-egress
# refusal, route's pings on both hooks (or the refusal of hook tc), a
# chain with route, lookup flowtable's masquerade comparison (or its
# refusal), and VLAN devices: the vlan probe, a tagged ping on each hook,
# two VLANs of one trunk on each hook (on hook xdp also with two ids that
# share a slot of xf_rt_vlc), a device set down behind xfwd's back on each
# hook, rp_filter on a VLAN device, the qos maps, and the hostile corpus's
# tagged frames on each hook (on 6.1, hook tc's refusal or skip: no tcx).
# test/vm/check asserts that every tagged test ran, and test/vm/skips
# lists the ones each kernel skips.
VM_CI_TAGS ?= guest
VM_CI_SUITES ?= $(shell grep -l '^\# bats test_tags=.*\b$(VM_CI_TAGS)\b' test/*.bats)
# The full run: the suites whose behaviour depends on the kernel, whole,
# and every suite with a test of the subset, so that no test of the subset
# runs in CI and nowhere in full.
VM_SUITES ?= $(sort test/feature.bats test/redirect.bats test/route.bats test/chain.bats \
	test/flow.bats test/vlan.bats test/hostile.bats $(VM_CI_SUITES))

.PHONY: check-kernels check-kernels-ci vm-tools

build/vm build/tools:
	$(Q)mkdir -p $@

build/vm/init: test/vm/init.c | build/vm
	$(QUIET_CC)$(CC) -static -O2 $(WARNINGS) -o $@ $<

build/tools/netkit-pair: test/vm/netkit-pair.c $(LIB_OBJS) | build/tools
	$(QUIET_CC)$(CC) $(XF_CFLAGS) -o $@ $< $(LIB_OBJS) $(LIBS)

vm-tools: all build/vm/init build/tools/netkit-pair $(TEST_PROG_OBJS)

# One vCPU per guest: with two, 7.2's full suite once hit an int3 oops in
# live-patched receive code under TCG (a stale translation after a static
# key flipped); the CI subset below has passed with two.
# Both kernels side by side, as the CI subset runs them (make check-kernels
# KERNELS=... one at a time: XF_VM_PARALLEL=0).
check-kernels: vm-tools
	$(Q)XF_VM_PARALLEL=$${XF_VM_PARALLEL:-1} XF_VM_SMP=$${XF_VM_SMP:-1} test/vm/check $(if $(KERNEL),--kernel $(KERNEL) $(if $(MODULES),--modules $(MODULES)),$(KERNELS)) -- $(VM_SUITES)

check-kernels-ci: vm-tools
	$(Q)XF_VM_PARALLEL=1 test/vm/check --filter-tags $(VM_CI_TAGS) sid bookworm -- $(VM_CI_SUITES)

CHECK_BESIDE += check-kernels-ci

# The netkit tests create their pairs with it, on every kernel; the
# guests' tools are built with the rest.
CHECK_BUILD += build/tools/netkit-pair vm-tools
