#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Environment faults under xfwd's feet: an interface deleted, renamed or
# moved to another namespace while attached, the namespace itself deleted,
# bpffs unmounted (only in a private mount namespace with a bpffs of its
# own), the MTU changed under traffic. After each, show, stats and detach
# all exit cleanly and say what happened, and attaching again works. Every
# xfwd runs under timeout (xt): a hang fails the test.
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/reliability

suite_setup() {
	xdp_ready
}

suite_teardown() {
	# What the bind-mount test holds the namespace with, if it stopped early.
	[[ -z ${HOLDER:-} ]] || kill "$HOLDER" 2>/dev/null || true
	if [[ -n ${KEEP:-} ]]; then
		umount "$KEEP/net" 2>/dev/null || true
		rm -rf "$KEEP"
	fi
	# The move test's second namespace, if it stopped early.
	ip netns del "$XF_NS_PREFIX-mv" 2>/dev/null || true
}

# fast_forwards DEV...: 3 pings h1 -> h2 go through the fast path: the
# forwarded counter of each DEV grows by exactly 3 (the kernel would
# deliver the pings with a broken fast path too). The echo requests enter
# at veth1, the replies at veth2.
fast_forwards() {
	local dev before=()
	# Neighbours first (the namespace may be fresh): a ping that waits on
	# ARP goes through the kernel.
	wait_until 3 ping4 1 "$XF_H2_IP4" -q >/dev/null
	for dev in "$@"; do
		before+=("$(ctr "$dev" forwarded)")
	done
	run -0 ping4 3 "$XF_H2_IP4" -q
	for dev in "$@"; do
		assert_equal "$dev $(ctr "$dev" forwarded)" "$dev $((before[0] + 3))"
		before=("${before[@]:1}")
	done
}

# recovers: show, stats and detach all exit 0, and nothing is attached
# afterwards; then attach again and forward h1 -> h2 on the fast path.
recovers() {
	run -0 --separate-stderr xt -j route show
	run -0 --separate-stderr xt -j stats
	run -0 --separate-stderr xt -j chain show
	run -0 --separate-stderr xt -j redirect show
	run -0 xt route detach all
	run -0 xt -j route show
	assert_output '{"interfaces":[]}'
	# Both: the fast path forwards only into an interface of its set.
	xt route attach dev veth1 dev veth2 hook tc
	fast_forwards veth1 veth2
}

@test "an interface deleted while attached: show says it has gone, detach all and gc clear its pins" {
	xt route attach dev veth1 dev veth2 hook xdp
	xt chain add dev veth2 obj "$PROGS/count.bpf.o" name c
	xt redirect add dev veth2 egress match 198.18.9.0/24 to veth1
	local ifx
	ifx=$(ip -n "$XF_NS_R1" -j link show dev veth2 | jq -r '.[0].ifindex')
	ip -n "$XF_NS_R1" link del veth2
	run -0 xt route show
	assert_output --partial "the interface has gone"
	run -0 xt -j stats
	run -0 xt chain show
	run -0 xt route detach all
	# route leaves; the redirect rules of the gone interface are gc's.
	run -0 xt -j redirect show
	refute_output '{"rules":[]}'
	run -0 xt -j gc
	run -0 jq -r '.removed[] | select(.object == "redirect") | .ifindex' <<<"$output"
	assert_output "$ifx"
	[[ ! -e $PIN_DIR/$ifx ]] || fail "pins of the deleted interface left: $(find "$PIN_DIR/$ifx")"
	run -0 xt -j route show
	assert_output '{"interfaces":[]}'
	run -0 xt -j redirect show
	assert_output '{"rules":[]}'
	[[ ! -e $PIN_DIR/redirect ]] || fail "redirect instance of gone rules left"
	# Put h2 back and forward again.
	ip -n "$XF_NS_R1" link add veth2 type veth peer name veth0 netns "$XF_NS_H2"
	ip -n "$XF_NS_R1" addr add "$XF_R1_IP4B/24" dev veth2
	ip -n "$XF_NS_H2" addr add "$XF_H2_IP4/24" dev veth0
	ip -n "$XF_NS_R1" link set veth2 up
	ip -n "$XF_NS_H2" link set veth0 up
	ip -n "$XF_NS_H2" route add default via "$XF_R1_IP4B"
	xt route attach dev veth1 dev veth2 hook tc
	wait_until 3 ping4 1 "$XF_H2_IP4" -q
	fast_forwards veth1 veth2
}

@test "an interface renamed while attached: show and detach follow the new name" {
	xt route attach dev veth1 dev veth2 hook tc
	ip -n "$XF_NS_R1" link set veth2 down
	ip -n "$XF_NS_R1" link set veth2 name xfren0
	ip -n "$XF_NS_R1" link set xfren0 up
	run -0 xt -j route show
	assert_output --partial '"dev":"xfren0"'
	wait_until 3 ping4 1 "$XF_H2_IP4" -q
	run -0 xt route detach dev xfren0
	run -0 xt -j stats
	ip -n "$XF_NS_R1" link set xfren0 down
	ip -n "$XF_NS_R1" link set xfren0 name veth2
	ip -n "$XF_NS_R1" link set veth2 up
	recovers
}

@test "an interface moved to another namespace while attached: show says it has gone here, detach all clears it" {
	xt route attach dev veth1 dev veth2 hook tc
	local ns=$XF_NS_PREFIX-mv
	ip netns add "$ns"
	ip -n "$XF_NS_R1" link set veth2 netns "$ns"
	run -0 xt route show
	assert_output --partial "the interface has gone"
	run -0 xt -j stats
	# The tcx link went with the device (the kernel keeps tcx programs on
	# the device); detach all in r1 releases it there too.
	run -0 xt route detach all
	run -0 ip netns exec "$ns" bpftool net show
	refute_output --partial xf_
	ip -n "$ns" link set veth2 netns "$XF_NS_R1"
	ip netns del "$ns"
	ip -n "$XF_NS_R1" addr add "$XF_R1_IP4B/24" dev veth2 2>/dev/null || true
	ip -n "$XF_NS_R1" link set veth2 up
	recovers
}

# collected_from NS: gc in NS exits 0 and the pins of r1 are gone.
collected_from() {
	timeout 20 xfwd -n "$1" gc && [[ ! -e $PIN_DIR && ! -e $RUN_DIR ]]
}

@test "a namespace deleted: its pins are collected by the next gc, in any namespace" {
	xt route attach dev veth1 dev veth2 hook tc
	xt chain add dev veth1 obj "$PROGS/count.bpf.o" name c
	xt redirect add dev veth2 egress match 198.18.9.0/24 to veth1
	[[ -d $PIN_DIR && -d $RUN_DIR ]]
	ip netns del "$XF_NS_R1"
	[[ -d $PIN_DIR ]]
	# A process may still be leaving the namespace: poll.
	wait_until 5 collected_from "$XF_NS_H1" ||
		fail "pins of the deleted namespace left: $(find "$PIN_DIR" "$RUN_DIR" 2>/dev/null)"
	# A fresh r1 works as ever.
	fault_teardown
	fault_setup
	recovers
}

@test "a namespace out of /run/netns but kept by a bind mount or an open descriptor keeps its pins" {
	xt route attach dev veth1 hook tc
	[[ -d $PIN_DIR ]]
	# A bind mount elsewhere, as container runtimes keep theirs.
	KEEP=$(mktemp -d)
	touch "$KEEP/net"
	mount --bind "/run/netns/$XF_NS_R1" "$KEEP/net"
	# And a process holding the namespace open (not living in it). The
	# file is opened here, before ip netns del: a redirection of the
	# background job itself would race with it. The holder gets it as
	# fd 3, which bats would otherwise wait on.
	local nsfd
	exec {nsfd}<"/run/netns/$XF_NS_R1"
	sleep 60 3<&"$nsfd" &
	HOLDER=$!
	exec {nsfd}<&-
	ip netns del "$XF_NS_R1"
	run -0 timeout 20 xfwd -n "$XF_NS_H1" gc
	[[ -d $PIN_DIR ]] || fail "gc collected the pins of a namespace still kept"
	umount "$KEEP/net"
	run -0 timeout 20 xfwd -n "$XF_NS_H1" gc
	[[ -d $PIN_DIR ]] || fail "gc collected pins the descriptor still kept"
	kill "$HOLDER"
	wait "$HOLDER" 2>/dev/null || true
	HOLDER=
	rm -rf "$KEEP"
	KEEP=
	wait_until 5 collected_from "$XF_NS_H1" ||
		fail "pins of the deleted namespace left: $(find "$PIN_DIR" 2>/dev/null)"
}

@test "bpffs unmounted (in a private mount namespace): show, stats and detach all say nothing is attached; attach mounts it again" {
	run -0 timeout 60 unshare -m --propagation private bash -c '
		set -e
		# A tmpfs hides the host bpffs in this mount namespace only,
		# and a bpffs of its own goes on top; unmounting that leaves
		# no bpffs at /sys/fs/bpf here, and the host never sees it.
		mount -t tmpfs xfwd-test /sys/fs/bpf
		mount -t bpf bpffs /sys/fs/bpf
		xt() { timeout 20 xfwd -n "$XF_NS_R1" "$@"; }
		xt route attach dev veth1 dev veth2 hook tc
		xt chain add dev veth1 obj "$1/count.bpf.o" name c
		umount /sys/fs/bpf
		[ "$(stat -f -c %T /sys/fs/bpf)" = tmpfs ]
		xt -j route show
		xt -j chain show
		xt -j stats >/dev/null
		xt route detach all
		echo "no bpffs: ok"
		xt route attach dev veth1 hook tc
		[ "$(stat -f -c %T /sys/fs/bpf)" = bpf_fs ]
		xt -j route show
		xt route detach all
		xt chain del dev veth1 all 2>&1 || true
	' _ "$PROGS"
	assert_line --index 0 '{"interfaces":[]}'
	assert_line --index 1 '{"interfaces":[]}'
	assert_line "no bpffs: ok"
	assert_output --partial '"dev":"veth1"'
	# The host's bpffs never saw any of it, and r1 runs nothing now.
	[[ ! -e $PIN_DIR ]]
	run -0 ip netns exec "$XF_NS_R1" bpftool net show
	refute_output --partial xf_
	recovers
}

@test "the MTU changed under traffic: bigger packets go to the kernel, which answers frag needed" {
	xt route attach dev veth1 dev veth2 hook tc
	ping4 2 "$XF_H2_IP4" -q >/dev/null
	# Traffic while the MTU changes: bounded in count and time.
	in_h1 ping -c 200 -i 0.005 -W 1 -q -s 1200 "$XF_H2_IP4" >/dev/null 3>&- &
	local bg=$!
	ip -n "$XF_NS_R1" link set veth2 mtu 1000
	wait "$bg" || true
	run -0 xt -j route show
	# Small packets still take the fast path; big ones get the kernel's
	# answer, never silence.
	run ping4 1 "$XF_H2_IP4" -s 1200 -M do
	# The kernel's ICMP "frag needed" (or, once h1 has learnt the path
	# MTU from it, h1's own refusal).
	assert_output --regexp 'mtu ?= ?1000'
	run -0 ping4 3 "$XF_H2_IP4" -s 500
	run -0 xt -j route show dev veth1
	run -0 jq -e '[.interfaces[0].pass_reasons[] | select(.reason | test("frag|mtu"))] |
		map(.packets) | add > 0' <<<"$output"
	run -0 xt -j stats
	ip -n "$XF_NS_R1" link set veth2 mtu 1500
	recovers
}
