#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# xfwd monitor, h1 -- r1 -- h2: the state the fast path copies from the
# kernel changes under traffic and under the monitor, which must take the
# fast path back to its own way by itself, never forward what the kernel
# drops, survive its own death and a flood of events, and take the lock
# as every changing command does.
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/common
load helpers/route

setup_file() {
	_need_root
}

setup() {
	route_setup
	MON_OUT=$BATS_TEST_TMPDIR/monitor.out
	MON_PID=
}

teardown() {
	[[ -z ${TRACEE:-} ]] || kill "$TRACEE" 2>/dev/null || true
	mon_stop
	ip netns del "$XF_NS_R1-late" 2>/dev/null || true
	route_teardown
}

# mon_start [ENV=VALUE...]: xfwd monitor in r1, in the background, its
# output in MON_OUT; returns once its first refresh is done.
mon_start() {
	env "$@" xfwd -n "$XF_NS_R1" -j monitor >"$MON_OUT" 2>&1 3>&- &
	MON_PID=$!
	wait_until 10 mon_has start
}

# mon_stop: SIGTERM, and the monitor's own exit status (0: it stopped as
# asked).
mon_stop() {
	local rc=0
	[[ -n $MON_PID ]] || return 0
	kill "$MON_PID" 2>/dev/null || true
	wait "$MON_PID" || rc=$?
	MON_PID=
	return "$rc"
}

# mon_has CAUSE [N]: at least N (1) refreshes with CAUSE in the output.
mon_has() {
	local n
	n=$(jq -s --arg c "$1" '[.[] | select(.causes | index($c))] | length' "$MON_OUT" \
		2>/dev/null) && ((n >= ${2:-1}))
}

# mon_ns_has NETNS CAUSE: a refresh of NETNS with CAUSE (monitor -all).
mon_ns_has() {
	jq -se --arg n "$1" --arg c "$2" \
		'any(.[]; .netns == $n and (.causes | index($c)))' "$MON_OUT" >/dev/null 2>&1
}



@test "monitor: an address added under a flood from it is never forwarded, and the monitor's refresh takes the fast path back to its table" {
	local d=$BATS_TEST_TMPDIR/seq src=198.18.2.200 sender rx
	warm_up
	run -0 attach "$ANY_HOOK"
	mon_start
	mkdir -p "$d"
	# h1 sends from the address r1 is about to take: numbered datagrams,
	# 3000 at 1000 a second. The kernel forwards them until r1 has the
	# address, and drops every one after: what reaches h2 must be a
	# prefix of the numbers, with nothing after the first loss.
	in_h1 ip addr add "$src/32" dev veth0
	ip netns exec "$XF_NS_H2" /usr/bin/python3 "$BATS_TEST_DIRNAME/fixtures/udpseq.py" \
		recv "$XF_H2_IP4" 7001 6 "$d" 3>&- &
	rx=$!
	wait_until 5 test -e "$d/ready"
	in_h1 /usr/bin/python3 "$BATS_TEST_DIRNAME/fixtures/udpseq.py" \
		send "$XF_H2_IP4" 7001 3000 1000 "$src" >/dev/null 3>&- &
	sender=$!
	wait_until 5 test -e "$d/first"
	in_r1 ip addr add "$src/32" dev lo
	wait_until 5 mon_has address
	wait "$sender"
	wait "$rx"
	jq -e '.received > 0 and .received < 3000 and .missing == 3000 - .received and
		.dups == 0 and (.first_missing[0] == .received)' "$d/rx.json"
	(($(ctr veth1 martian) > 0))
	# Back on the table, with no route refresh by hand.
	assert_equal "$(source_check "$src")" "$(table_check)"
	mon_stop
}

@test "monitor: one JSON object a line per refresh, its causes the kinds of the batch's events" {
	local line
	run -0 attach "$ANY_HOOK"
	mon_start
	in_r1 ip route add 198.18.9.0/24 via "$XF_H2_IP4"
	wait_until 5 mon_has route
	in_r1 ip rule add from 198.18.9.1 table 100 pref 100
	wait_until 5 mon_has rule
	in_r1 sysctl -qw net.ipv4.conf.veth1.rp_filter=1
	wait_until 5 mon_has netconf
	in_r1 ip link set veth1 alias xf-monitor-test
	wait_until 5 mon_has link
	mon_stop
	while read -r line; do
		jq -e '.action == "refresh" and (.causes | length) > 0 and .ok == true and
			(.events | type) == "number" and (.us | type) == "number"' <<<"$line"
	done <"$MON_OUT"
	in_r1 ip rule del pref 100
}

@test "monitor: a burst of link changes overruns a small buffer; it reads the whole state again and follows what comes after" {
	local i src=198.18.2.201
	run -0 attach "$ANY_HOOK"
	mon_start XFWD_MONITOR_RCVBUF=4096
	for ((i = 0; i < 4096; i++)); do
		echo "link set veth1 alias xf-burst-$i"
	done >"$BATS_TEST_TMPDIR/burst"
	in_r1 ip -batch "$BATS_TEST_TMPDIR/burst"
	wait_until 10 mon_has resync
	kill -0 "$MON_PID"
	# The state after the burst is followed: an address added now is in
	# the table by the monitor's next refresh.
	in_r1 ip addr add "$src/32" dev lo
	wait_until 5 eval '[[ $(source_check '"$src"') == $(table_check) ]]'
	assert_equal "$(source_check "$src")" "$(table_check)"
	mon_stop
}

@test "monitor: killed outright, it leaves the fast path forwarding; the next one catches up with what changed in between" {
	local src=198.18.2.202
	warm_up
	run -0 attach "$ANY_HOOK"
	mon_start
	kill -KILL "$MON_PID"
	wait "$MON_PID" || true
	MON_PID=
	assert_equal "$(ping4 3 "$XF_H2_IP4" -q | grep -c ' 0% packet loss')" 1
	in_r1 ip addr add "$src/32" dev lo
	assert_equal "$(source_check "$src")" lookup
	mon_start
	assert_equal "$(source_check "$src")" "$(table_check)"
	mon_stop
}

# route_dumps 4 (helpers/route.bash) counts IPv4's dumps alone: IPv6's
# local table copy is not kept where the namespace's local table holds
# more than addresses (the multicast routes of every device here), and
# every refresh dumps it again.
@test "monitor: a refresh walks the routes at start and after a route went, the family of one added, and not for the rest" {
	local one=1 d
	if kernel_lacks kern_ctx; then one=0; fi
	run -0 attach "$ANY_HOOK"
	strace -f -qq -e trace=sendto,sendmsg -o "$BATS_TEST_TMPDIR/st" \
		xfwd -n "$XF_NS_R1" -j monitor >"$MON_OUT" 2>&1 3>&- &
	MON_PID=$!
	wait_until 10 mon_has start
	TRACEE=$(pgrep -P "$MON_PID" -x xfwd)
	d=$(route_dumps 4)
	assert_equal "$d" "$one"
	in_r1 ip link set veth1 alias xf-monitor-test
	wait_until 5 mon_has link
	in_r1 sysctl -qw net.ipv4.conf.veth1.rp_filter=1
	wait_until 5 mon_has netconf
	assert_equal "$(route_dumps 4)" "$d"
	in_r1 ip -6 route add 2001:2:0:9::/64 via "$XF_H2_IP6"
	wait_until 5 mon_has route
	assert_equal "$(route_dumps 4)" "$d"
	in_r1 ip route add 198.18.9.0/24 via "$XF_H2_IP4"
	wait_until 5 mon_has route 2
	assert_equal "$(route_dumps 4)" $((d + one))
	in_r1 ip route del 198.18.9.0/24
	wait_until 5 mon_has route 3
	assert_equal "$(route_dumps 4)" $((d + 2 * one))
	# The monitor, not strace, takes the signal; strace ends with it.
	kill "$TRACEE"
	TRACEE=
	mon_stop
}

@test "monitor: each refresh takes the lock of every changing command, and lets it go" {
	local log=$BATS_TEST_TMPDIR/lock.log
	run -0 attach "$ANY_HOOK"
	mon_start XFWD_LOCK_LOG="$log"
	in_r1 ip route add 198.18.9.0/24 via "$XF_H2_IP4"
	wait_until 5 mon_has route
	# Two refreshes, two takings by the monitor's pid; a command between
	# them gets the lock at once.
	(($(grep -c "^$MON_PID .*monitor" "$log") >= 2))
	run -0 xr route refresh
	mon_stop
}

@test "monitor: a word after it is refused with one Error line, status 2" {
	run -2 xr monitor bogus
	assert_output 'Error: unexpected "bogus"; try "xfwd monitor help".'
}

@test "monitor -all: every named namespace, those made after it started too, each line naming its own" {
	local late=$XF_NS_R1-late
	run -0 attach "$ANY_HOOK"
	env xfwd -j -all monitor >"$MON_OUT" 2>&1 3>&- &
	MON_PID=$!
	wait_until 10 mon_ns_has "$XF_NS_R1" start
	in_r1 ip addr add 198.18.2.204/32 dev lo
	wait_until 5 mon_ns_has "$XF_NS_R1" address
	# A namespace made now is followed from its first refresh on.
	ip netns add "$late"
	wait_until 5 mon_ns_has "$late" start
	ip -n "$late" link set lo up
	wait_until 5 mon_ns_has "$late" link
	ip netns del "$late"
	mon_stop
	# Every line names a namespace.
	assert_equal "$(jq -s '[.[] | select(.netns == null)] | length' "$MON_OUT")" 0
}

@test "monitor -all: refused with -netns, with -batch and for any other object, status 2" {
	run -2 xfwd -all -n "$XF_NS_R1" monitor
	assert_output 'Error: -all serves every named namespace: not with -netns.'
	run -2 xfwd -all route show
	assert_output 'Error: -all is for monitor only, not "route".'
	run -2 xfwd -all -batch /dev/null
	assert_output 'Error: -all serves every named namespace: not with -batch.'
}
