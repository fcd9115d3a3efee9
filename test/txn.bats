#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Transactions: every command that changes several things completes or
# leaves r1 exactly as before. XFWD_FAULT=fail:N fails xfwd's Nth kernel
# call (bpf(2) or netlink request); each command is run with N = 1, 2, ...
# until it succeeds without reaching N, and after each failure r1's state
# (xfwd's show, ip link, bpftool net, tc, the pin tree with its kernel ids
# and /run/xfwd) must be what it was before (helpers/fault.bash).
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/reliability

@test "XFWD_FAULT: a bad value is a usage error; fail:N names the call it failed" {
	run -2 --separate-stderr env XFWD_FAULT=fail:x xfwd route show
	assert_equal "$stderr" 'Error: invalid value "fail:x" for XFWD_FAULT.'
	run -2 env XFWD_FAULT=0 xfwd route show
	run -2 env XFWD_FAULT=kill:3:5 xfwd route show
	XFWD_FAULT=fail:1:16 run -1 --separate-stderr xt route attach dev veth1 hook tc
	[[ $stderr == "xfwd: fault: failing kernel call 1 ("*"): Device or resource busy"* ]]
	XFWD_FAULT=count run -0 --separate-stderr xt route show
	[[ $stderr =~ fault:\ [1-9][0-9]*\ kernel\ calls ]]
}

@test "the state helpers see programs that xfwd did not attach, and their removal" {
	local before
	before=$(snap)
	no_hooks veth1 veth2
	consistent
	run ! no_hooks veth1 nosuch0
	ip -n "$XF_NS_R1" link set dev veth2 xdpdrv obj "$PROGS/pass.bpf.o" sec xdp
	run ! no_hooks veth2
	no_hooks veth1
	run ! consistent
	assert_output --partial "the kernel runs"
	[[ $(snap) != "$before" ]]
	ip -n "$XF_NS_R1" link set dev veth2 xdpdrv off
	assert_equal "$(snap)" "$before"
	tc -n "$XF_NS_R1" qdisc add dev veth1 clsact
	tc -n "$XF_NS_R1" filter add dev veth1 ingress bpf da obj "$PROGS/tc_only.bpf.o" sec tc
	run ! no_hooks veth1
	no_hooks veth2
	run ! consistent
	[[ $(snap) != "$before" ]]
	tc -n "$XF_NS_R1" qdisc del dev veth1 clsact
	assert_equal "$(snap)" "$before"
}

@test "route attach of two devices, hook tc: every step rolls back" {
	fault_loop "route detach all" -- route attach dev veth1 dev veth2 hook tc
	((FAULTS > 20))
}

@test "route attach of two devices, hook xdp (through the chain layer): every step rolls back" {
	xdp_ready
	fault_loop "route detach all" -- route attach dev veth1 dev veth2 hook xdp
	((FAULTS > 20))
}

@test "route attach of a second device next to an attached one: every step rolls back" {
	xt route attach dev veth1 hook tc
	fault_loop "route detach dev veth2" -- route attach dev veth2 hook tc
}

# hook tc next to a set all on hook xdp: the command adds xf_route_tc to
# the instance (which hook xdp never loads), and takes it back with the
# rest. The undo starts the set again, so that each try loads it anew.
@test "route attach on hook tc next to members on hook xdp: every step rolls back, the tc program's load too" {
	xdp_ready
	xt route attach dev veth1 hook xdp
	printf '%s\n' "route detach all" "route attach dev veth1 hook xdp" >"$BATS_TEST_TMPDIR/undo"
	fault_loop "-batch $BATS_TEST_TMPDIR/undo" -- \
		route attach dev veth2 hook tc
	((FAULTS > 10))
	[[ -e $PIN_DIR/route/prog_tc ]]
}

@test "route detach of two devices: every step rolls back" {
	xt route attach dev veth1 dev veth2 hook tc
	fault_loop "route attach dev veth1 dev veth2 hook tc" -- route detach dev veth1 dev veth2
}

# These two put back what they took apart by building it again: the same
# state under new kernel ids (snap_rebuilt).
@test "route detach, hook xdp: every step rolls back, the chain built again" {
	xdp_ready
	xt route attach dev veth1 dev veth2 hook xdp
	FAULT_SNAP=snap_rebuilt fault_loop "route attach dev veth1 hook xdp" -- \
		route detach dev veth1
	((FAULTS > 3))
	xt route attach dev veth1 hook xdp
	FAULT_SNAP=snap_rebuilt fault_loop "route attach dev veth1 dev veth2 hook xdp" -- \
		route detach dev veth1 dev veth2
}

@test "redirect del of both directions at once: every step rolls back" {
	local undo=$BATS_TEST_TMPDIR/undo
	printf '%s\n' "redirect add dev veth1 to veth2" \
		"redirect add dev veth1 egress match 198.18.7.0/24 to veth2" >"$undo"
	xt -b "$undo"
	FAULT_SNAP=snap_rebuilt fault_loop "-b $undo" -- redirect del dev veth1 all
	((FAULTS > 3))
}

@test "chain add, the first member and a second one: every step rolls back" {
	fault_loop "chain del dev veth1 all" -- chain add dev veth1 obj "$PROGS/count.bpf.o" name a
	fault_loop "chain del dev veth1 name b" -- chain add dev veth1 obj "$PROGS/pass.bpf.o" name b
}

@test "chain profile: a failed step leaves the normal build running, nothing else changed" {
	xt chain add dev veth1 obj "$PROGS/count.bpf.o" name a
	xt chain add dev veth1 obj "$PROGS/pass.bpf.o" name b
	# Every other call: each run lasts 0.2 s.
	FAULT_STRIDE=2 fault_loop "chain show" -- chain profile dev veth1 duration 0.2
	((FAULTS > 5))
}

@test "chain del, order and set on a chain of three: every step rolls back" {
	xt chain add dev veth1 obj "$PROGS/count.bpf.o" name a
	xt chain add dev veth1 obj "$PROGS/pass.bpf.o" name b
	xt chain add dev veth1 obj "$PROGS/count.bpf.o" name c
	fault_loop "chain order dev veth1 a b c" -- chain order dev veth1 c a b
	# c a b now.
	fault_loop "chain add dev veth1 obj $PROGS/pass.bpf.o name b after a" -- \
		chain del dev veth1 name b
	# c a now: c skips a.
	fault_loop "chain set dev veth1 name c on pass next" -- \
		chain set dev veth1 name c on pass goto a
}

@test "redirect add and del, tcx: every step rolls back" {
	fault_loop "redirect del dev veth1 all" -- redirect add dev veth1 to veth2
	xt redirect add dev veth1 match 198.18.9.0/24 to veth2
	fault_loop "redirect del dev veth1 match 198.18.7.0/24" -- \
		redirect add dev veth1 match 198.18.7.0/24 to veth2
	fault_loop "redirect add dev veth1 match 198.18.9.0/24 to veth2" -- \
		redirect del dev veth1 match 198.18.9.0/24
}

@test "redirect add and del, cls_bpf on clsact: every netlink step rolls back" {
	export XFWD_TC_MODE=clsact
	fault_loop "redirect del dev veth1 all" -- redirect add dev veth1 egress to veth2
	fault_loop "redirect add dev veth1 egress to veth2" -- redirect del dev veth1 egress
}

@test "redirect add, hook xdp (through the chain layer): every step rolls back" {
	xdp_ready
	fault_loop "redirect del dev veth1 all" -- redirect add dev veth1 to veth2 hook xdp
}

# refresh_maps: the maps route refresh rewrites, dumped.
# (Hash maps dump in bucket order, which a rewrite may change: sorted.)
refresh_maps() {
	local m
	for m in xf_rt_ifcfg xf_rt_ifc xf_tx_ports xf_rt_local xf_rt_src4 xf_rt_loc6 xf_rt_vlan xf_rt_vlc; do
		echo "map dump pinned $PIN_DIR/route/$m"
	done | bpftool -j batch file - | jq -c '.[] | select(.command) | .output | sort_by(.key)'
}

@test "route refresh: a failed step puts every map it rewrites back as it was" {
	local n rc out before tried=0
	xt route attach dev veth1 dev veth2 hook tc
	for ((n = 1; n < 500; n++)); do
		# What refresh would read anew: an address, rp_filter.
		in_r1 ip addr add "198.18.2.$((100 + n % 100))/32" dev lo
		in_r1 sysctl -qw net.ipv4.conf.veth1.rp_filter=$((n % 2 ? 1 : 0))
		before=$(refresh_maps)
		rc=0
		out=$(XFWD_FAULT=fail:$n xt route refresh 2>&1) || rc=$?
		in_r1 ip addr del "198.18.2.$((100 + n % 100))/32" dev lo
		[[ $out == *"fault: failing kernel call $n "* ]] || break
		tried=$((tried + 1))
		# A failure refresh may ignore (a check at the lock): it read anew.
		((rc != 0)) || continue
		((rc == 1)) || fail "refresh at fault $n: exit $rc: $out"
		[[ $out == *Error:* ]] || fail "refresh failed at fault $n without an Error line: $out"
		diff -u <(echo "$before") <(refresh_maps) >&2 ||
			fail "refresh failed at fault $n and changed the maps: $out"
	done
	((rc == 0)) || fail "refresh failed with no fault at $n: $out"
	((tried > 10)) || fail "only $tried faults"
	echo "# route refresh: $tried faults injected" >&3
}
