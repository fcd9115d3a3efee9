#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The benchmark tools. bench/summarize.py's target table on a raw file of
# known figures: a target's ceiling (a configuration of the same suite
# that no exact program for it can beat but by noise) is given as the same
# ratio, and a bound above it is marked. The tools that build a topology
# refuse bad input in one line and leave nothing behind. tc-floor, the
# ceiling of hook tc, carries real traffic.
bats_require_minimum_version 1.8.2

setup() {
	load helpers/common
	_common_setup
	raw=$BATS_TEST_TMPDIR/raw.jsonl
	out=$BATS_TEST_TMPDIR/out
	mkdir -p "$out"
}

teardown() {
	[[ -z ${PIN:-} ]] || rm -rf "$PIN"
	[[ -z ${TOPO:-} ]] || route_teardown
}

# rounds SUITE CONFIG=VALUE...: three rounds of those values, with the
# generator's CPU share (for the per-CPU-second suites) at 0.5.
rounds() {
	local suite=$1 r kv
	shift
	for r in 1 2 3; do
		for kv in "$@"; do
			printf '{"noise":"sample","suite":"%s","config":"%s","round":%d,"gen_cpu":0.5}\n' \
				"$suite" "${kv%%=*}" "$r"
			printf '{"suite":"%s","config":"%s","round":%d,"value":%s}\n' \
				"$suite" "${kv%%=*}" "$r" "${kv#*=}"
		done
	done >>"$raw"
}

# target NAME FIELD: FIELD of the target NAME in latest.json.
target() {
	jq -er --arg n "$1" ".targets[] | select(.target == \$n) | .$2" "$out/latest.json"
}

# summarize [INET6_CONFIG=VALUE...]: the summary of a run with route_pps_inet6
# (these values, or the default set with every ceiling), route_tcp and
# route_local_pps (each with its ceiling).
summarize() {
	printf '%s\n' '{"machine":{"kernel":"test","vcpus":2},"date":"test","mode":"quick"}' \
		'{"peer":{"name":"xdp-forward","status":"ok"}}' >"$raw"
	if (($#)); then
		rounds route_pps_inet6 "$@"
	else
		rounds route_pps_inet6 kernel=1000 xdp=1190 tc=1080 tc-floor=1170 fwd-full=1200 \
			fwd-direct=1188
	fi
	rounds route_tcp kernel=10e9 tc=9.9e9 tc-floor=9.7e9
	rounds route_local_pps kernel=1000 tc=985 xdp=950 tc-pass=990 xdp-pass=969
	run --separate-stderr python3 "$XF_TOP/bench/summarize.py" "$raw" "$out"
	assert_success
}

@test "summary: a bound above its ceiling is marked, one below it is not" {
	summarize
	# IPv6 xdp >= 1.00x fwd-full: the peer's direct mode reached 0.99.
	[[ $(target "route xdp IPv6 64 B vs xdp-forward fib full" ceiling) == fwd-direct ]]
	[[ $(target "route xdp IPv6 64 B vs xdp-forward fib full" ceiling_ratio) == 0.99 ]]
	[[ $(target "route xdp IPv6 64 B vs xdp-forward fib full" beyond_ceiling) == true ]]
	assert_line --regexp '^\| route xdp IPv6 64 B vs xdp-forward fib full \|.*\| fwd-direct 0\.99 \(0\.99-0\.99\), per CPU-s 0\.99: \*\*below the bound\*\* \|'
	# hook tc: IPv6 >= 1.10x the kernel, missed under a ceiling of 1.17.
	[[ $(target "route tc IPv6 64 B vs kernel" status) == missed ]]
	[[ $(target "route tc IPv6 64 B vs kernel" ceiling) == tc-floor ]]
	[[ $(target "route tc IPv6 64 B vs kernel" beyond_ceiling) == false ]]
	assert_line --regexp '^\| route tc IPv6 64 B vs kernel \|.*\| tc-floor 1\.17 \(1\.17-1\.17\), per CPU-s 1\.17 \|'
}

@test "summary: a target against its own ceiling is a share of it, never beyond it" {
	summarize
	# IPv6 xdp >= 0.97x fib direct, TCP >= 0.98x tc-floor, traffic to r1
	# >= 0.98x the pass-only program: the denominator is the ceiling.
	for t in "route xdp IPv6 64 B vs xdp-forward fib direct" "route tc TCP Gbit/s vs tc-floor" \
		"route tc on traffic it does not forward" "route xdp on traffic it does not forward"; do
		[[ $(target "$t" ceiling_ratio) == 1 ]] || fail "$t: ceiling_ratio"
		[[ $(target "$t" beyond_ceiling) == false ]] || fail "$t: beyond_ceiling"
	done
	assert_line --regexp '^\| route xdp IPv6 64 B vs xdp-forward fib direct \| >= 0\.97x fwd-direct \| 1\.00 .*\*\*met\*\*.*\| fwd-direct itself: the bound is its share \|'
	assert_line --regexp '^\| route tc TCP Gbit/s vs tc-floor \| >= 0\.98x tc-floor \| 1\.02 .*\*\*met\*\*.*\| tc-floor itself: the bound is its share \|'
	# 985 / 990 met, 950 / 969 (0.980...) met only just, by the median.
	[[ $(target "route tc on traffic it does not forward" status) == met ]]
	[[ $(target "route xdp on traffic it does not forward" status) == met ]]
}

@test "summary: a target whose ceiling or denominator is not in the run" {
	summarize kernel=1000 xdp=1190 tc=1080 fwd-full=1200
	# No fwd-direct, no tc-floor: judged, with no ceiling; the target
	# against fwd-direct itself is not measured, its bound shown.
	assert_line --regexp '^\| route tc IPv6 64 B vs kernel \|.*\| - \| '
	assert_line --regexp '^\| route xdp IPv6 64 B vs xdp-forward fib direct \| >= 0\.97x fwd-direct \|'
	[[ $(target "route tc IPv6 64 B vs kernel" status) == missed ]]
	[[ $(target "route xdp IPv6 64 B vs xdp-forward fib full" status) == missed ]]
	[[ $(target "route xdp IPv6 64 B vs xdp-forward fib direct" status) == "not measured" ]]
	run ! target "route tc IPv6 64 B vs kernel" ceiling
}

# bench_refuses STATUS MESSAGE TOOL ARGS...: TOOL exits STATUS with MESSAGE
# as its one line on stderr, and no namespace of its own is left.
bench_refuses() {
	local status=$1 msg=$2 before
	shift 2
	before=$(ip netns list | grep -cE '^xf(ab|vr)[0-9]+-' || true)
	run "-$status" --separate-stderr "$XF_TOP/$@"
	[[ $stderr == "$msg" ]] || fail "stderr: $stderr"
	[[ $(ip netns list | grep -cE '^xf(ab|vr)[0-9]+-' || true) == "$before" ]] ||
		fail "$1 left a namespace"
}

# bats test_tags=root
@test "bench tools: bad input is one line with status 2, before or after the cleanup is set" {
	_need_root
	bench_refuses 2 'Error: invalid peer mode "bogus" (full, direct).' bench/ab peer:bogus
	# After the EXIT trap: the cleanup runs before any namespace exists.
	bench_refuses 2 'Error: the peer runs on hook xdp only.' bench/ab peer:full 3 tc
	XF_VLAN_BUILDS=bogus bench_refuses 2 \
		'Error: unknown build "bogus" in XF_VLAN_BUILDS (kctx or plain, then -nopop, -nofold or both).' bench/vlan-ratio
	XF_VLAN_LOADS=0 bench_refuses 2 \
		'Error: XF_VLAN_LOADS "0" is not a count from 1 to 99.' bench/vlan-ratio
	bench_refuses 2 'Error: RUNS "0" is not a count of runs.' bench/vlan-ratio 0
}

# bats test_tags=root
@test "tc-floor: ping on both families and a TCP transfer cross r1 on it, not the kernel" {
	_need_root
	load helpers/route
	route_setup
	TOPO=1 PIN=/sys/fs/bpf/xfbt$$-floor
	warm_up
	bpffs_ready
	bpftool prog loadall "$XF_TOP/build/bench/progs/fib_floor.bpf.o" "$PIN"
	for dev in veth1 veth2; do
		nsenter --net="/run/netns/$XF_NS_R1" bpftool net attach tcx_ingress \
			pinned "$PIN/xf_fib_floor_fwd" dev "$dev"
	done
	k4=$(kstat "$XF_NS_R1" IpForwDatagrams) k6=$(kstat "$XF_NS_R1" Ip6OutForwDatagrams)
	run ping4 5 "$XF_H2_IP4" -q
	assert_output --partial "5 packets transmitted, 5 received"
	run ping6 5 "$XF_H2_IP6" -q
	assert_output --partial "5 packets transmitted, 5 received"
	# GSO segments of up to 64 KB: the egress device's MTU checks each
	# segment, so they stay on the floor too.
	iperf_server
	run -0 in_h1 timeout 20 iperf3 -c "$XF_H2_IP4" -t 1
	iperf_server_done
	assert_equal "$(kstat "$XF_NS_R1" IpForwDatagrams)" "$k4"
	assert_equal "$(kstat "$XF_NS_R1" Ip6OutForwDatagrams)" "$k6"
}
