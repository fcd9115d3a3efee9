#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Crash safety: xfwd is killed with SIGKILL in the middle of attach, detach
# and chain rebuilds, 100 times in all, at kernel calls spread over each
# command (XFWD_FAULT=kill:N, deterministic), plus a few at random times.
# After each kill: show agrees with the kernel, h1 still reaches h2 (the
# old or the new configuration forwards), the same command run again works
# (or says the work is done), and its undo leaves nothing behind.
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/reliability

suite_setup() {
	xdp_ready
	ping6 1 "$XF_H2_IP6" -q >/dev/null
}

@test "route attach, hook tc and hook xdp, killed at 40 points" {
	kill_loop 20 "route detach all" "already in the forwarding set" -- \
		route attach dev veth1 dev veth2 hook tc
	kill_loop 20 "route detach all" "already in the forwarding set" -- \
		route attach dev veth1 dev veth2 hook xdp
	run -0 xt route show
	assert_output ""
	[[ ! -e $PIN_DIR ]] || fail "pins left: $(find "$PIN_DIR")"
}

@test "route detach, hook tc and hook xdp, killed at 30 points" {
	xt route attach dev veth1 dev veth2 hook tc
	kill_loop 15 "route attach dev veth1 dev veth2 hook tc" "" -- route detach all
	xt route detach all
	xt route attach dev veth1 dev veth2 hook xdp
	kill_loop 15 "route attach dev veth1 dev veth2 hook xdp" "" -- route detach all
}

@test "chain rebuilds (add, del, order) killed at 30 points; leftover copies are reused or cleaned" {
	xt chain add dev veth1 obj "$PROGS/count.bpf.o" name a
	kill_loop 10 "chain del dev veth1 name b" "already has a member" -- \
		chain add dev veth1 obj "$PROGS/pass.bpf.o" name b
	xt chain add dev veth1 obj "$PROGS/pass.bpf.o" name b
	kill_loop 10 "chain order dev veth1 a b" "" -- chain order dev veth1 b a
	kill_loop 10 "chain add dev veth1 obj $PROGS/pass.bpf.o name b" "no member" -- \
		chain del dev veth1 name b
	xt chain del dev veth1 all
	[[ ! -e $RUN_DIR ]] || fail "copies left: $(find "$RUN_DIR")"
}

@test "chain profile killed at 10 points: the next command puts the very program back" {
	xt chain add dev veth1 obj "$PROGS/count.bpf.o" name a
	xt chain add dev veth1 obj "$PROGS/pass.bpf.o" name b
	normal=$(xt -j chain show dev veth1 | jq -er '.interfaces[0].prog_id')
	# Undo: gc, a command that takes the lock and changes no chain.
	kill_loop 10 "gc" "" -- chain profile dev veth1 duration 0.2
	xt gc >/dev/null
	assert_equal "$(xt -j chain show dev veth1 | jq -er '.interfaces[0].prog_id')" "$normal"
	[[ -z $(find "$PIN_DIR" "$RUN_DIR" -name chain_normal -o -name profiling) ]] ||
		fail "profile state left: $(find "$PIN_DIR" "$RUN_DIR")"
}

# The chain's first attach pins its link last, and detach all takes route
# out of a chain it joined without pinning its own link: a kill between
# any two calls (the window is a call or two wide, which the samples above
# rarely hit) leaves what show reports and detach all removes.
@test "route attach hook xdp of a second device, killed at every call: show agrees, detach all clears" {
	local k n rc out killed=0
	xt route attach dev veth1 hook xdp
	k=$(calls route attach dev veth2 hook xdp) || fail "clean run failed"
	xt route detach all
	for ((n = 1; n <= k; n++)); do
		xt route attach dev veth1 hook xdp
		rc=0
		out=$(XFWD_FAULT=kill:$n xt route attach dev veth2 hook xdp 2>&1) || rc=$?
		# Fewer calls this time (the peer's namespace was found sooner):
		# it ran to the end before call n, and every call before was
		# tried. Anything else that was not killed fails below.
		if ((rc == 0)) && [[ $out =~ fault:\ ([0-9]+)\ kernel\ calls ]] &&
			((BASH_REMATCH[1] < n)); then
			xt route detach all >/dev/null
			break
		fi
		((rc == 137)) || fail "kill:$n: exit $rc, not killed: $out"
		killed=$((killed + 1))
		consistent || fail "killed at call $n: show and the kernel disagree"
		xt route detach all >/dev/null || fail "detach all after kill:$n failed"
		no_hooks veth1 veth2 || fail "kill:$n: a program is left after detach all"
		[[ ! -e $PIN_DIR ]] || fail "kill:$n: pins left: $(find "$PIN_DIR")"
	done
	((killed > 0)) || fail "killed at none of the $k calls of a clean run"
	echo "# route attach dev veth2 hook xdp: killed at $killed of its $k calls" >&3
}
