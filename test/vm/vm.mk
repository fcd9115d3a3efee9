# SPDX-License-Identifier: GPL-2.0
# Other kernels under qemu (make check-kernels): see test/vm/README.
#
#   make check-kernels                   sid's 7.2 and bookworm's 6.1
#   make check-kernels KERNELS=bookworm  one of them
#   make check-kernels KERNEL=path/to/bzImage MODULES=dir   your own
#
# Under software emulation the tests stretch their time limits
# (XF_VM_SLOW, read by vm_slow in test/helpers/common.bash).

VM_SUITES ?= test/feature.bats test/redirect.bats test/route.bats test/chain.bats test/flow.bats \
	test/vlan.bats
KERNELS ?= sid bookworm
# make check runs a subset beside the main suite (CHECK_BESIDE, at a lower
# priority, on the CPU the suite leaves idle), as much as CI's time allows
# (both kernels side by side, one vCPU each): the
# probes, redirect's egress and peer modes (and seed 002's peer delivery)
# on tcx where there is tcx and on its cls_bpf fallback where not (the
# other modes, whose helpers are older than either kernel, only in
# check-kernels: the subset had grown to half an hour of make check),
# netkit (or its refusal), the peer-egress refusal, route's
# pings on both hooks (or the refusal of hook tc), a chain with route, and
# lookup flowtable's masquerade comparison (or its refusal; the probe's
# answer is in "every probe answers"), and VLAN devices: the vlan probe,
# a tagged ping on each hook, router on a stick on hook xdp (also with two
# ids that share a slot of xf_rt_vlc) and a device set down behind xfwd's
# back on each hook, rp_filter set on a VLAN device and refreshed on each
# hook (on 6.1, hook tc's refusal: no
# tcx; hook xdp there runs the build without kernel context).
VM_CI_SUITES ?= test/feature.bats test/redirect.bats test/route.bats test/chain.bats \
	test/flow.bats test/vlan.bats
VM_CI_FILTER ?= kernel probe|every probe answers|egress flag|netkit|lacks them|both veths|GRO on|(mode egress|mode peer delivers|seed 002).*\(tcx\)|hook (tc|xdp): IPv4 ping|hook auto on a veth|cannot take XDP frames|attach that fails in the kernel|route and a filter share|lookup flowtable: a masqueraded|has 802.1Q|router on a stick|set down behind|egress tag carries|ingress-qos-map.s priority reaches|rp_filter set on a VLAN

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
check-kernels: vm-tools
	$(Q)XF_VM_SMP=$${XF_VM_SMP:-1} test/vm/check $(if $(KERNEL),--kernel $(KERNEL) $(if $(MODULES),--modules $(MODULES)),$(KERNELS)) -- $(VM_SUITES)

check-kernels-ci: vm-tools
	$(Q)XF_VM_PARALLEL=1 test/vm/check --filter '$(VM_CI_FILTER)' sid bookworm -- $(VM_CI_SUITES)

CHECK_BESIDE += check-kernels-ci

# The netkit tests create their pairs with it, on every kernel; the
# guests' tools are built with the rest.
CHECK_BUILD += build/tools/netkit-pair vm-tools
