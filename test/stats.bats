#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# xfwd stats: the counters of route, chain and redirect in one view, with
# real traffic h1 -- r1 -- h2; the numbers equal each object's show, the
# per-CPU values add up, watch prints rates and stops, reset zeroes only
# what it names. Each test builds its own topology (scripts/topo.bash).
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/common
load helpers/route
load helpers/redirect

PROGS="$BATS_TEST_DIRNAME/../build/test/progs"

setup_file() {
	_need_root
}

setup() {
	_common_setup
	topo_create
	PIN_DIR=$(pin_dir)
	RUN_DIR=/run/xfwd/${PIN_DIR##*/}
}

teardown() {
	local dev left=0
	kill_bg
	for dev in "${RD_DEVS[@]}"; do
		xr redirect del dev "$dev" all >/dev/null 2>&1 || true
	done
	xr route detach all >/dev/null 2>&1 || true
	xr chain del dev veth1 all >/dev/null 2>&1 || true
	left_behind "${PIN_DIR:-}" "${RUN_DIR:-}" || left=1
	topo_destroy
	((!left))
}

# st DEV OBJECT ITEM KEY FIELD: one number of "stats show -j" (0 when the
# counter is not listed).
st() {
	xr -j stats | jq -er --arg d "$1" --arg o "$2" --arg i "$3" --arg k "$4" --arg f "$5" '
		[.counters[] | select(.dev == $d and .object == $o and .item == $i and
		 .key == $k) | .[$f]] | add // 0'
}

# st_fwd DEV HOOK: what route forwarded from DEV, with the packets it
# passed for the neighbours' upkeep (ctr's "forwarded").
st_fwd() {
	echo $(($(st "$1" route "$2" forwarded packets) + $(st "$1" route "$2" neigh_upkeep packets)))
}

# route xdp on veth1 and veth2, with the member "count" in front of route
# in veth1's chain, and 20 pings through it.
traffic() {
	warm_up
	run -0 attach xdp
	run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name count
	run -0 ping4 20 "$XF_H2_IP4" -q
	assert_output --partial "20 packets transmitted, 20 received"
}

@test "nothing attached: an empty list, exit 0" {
	run -0 --separate-stderr xr -j stats
	assert_equal "$stderr" ""
	jq -e '.counters == []' <<<"$output"
	run -0 xr -j stats watch count 1 interval 0.1
	jq -e '.interval == 1 and .counters == [] and .route == []' <<<"$output"
	run -0 xr stats reset
}

# views_agree route|chain: "stats show dev veth1 OBJ" and OBJ's own show
# have the same counters (route: the pass reasons; chain: each member's
# verdicts), into VIEW_STATS and VIEW_SHOW.
views_agree() {
	local hook
	hook=$(xr -j route show dev veth1 | jq -er '.interfaces[0].hook // ""')
	if [[ $1 == route ]]; then
		VIEW_SHOW=$(xr -j route show dev veth1 | jq -c '[.interfaces[0].pass_reasons[] |
			{key: .reason, packets, bytes}]')
		VIEW_STATS=$(xr -j stats show dev veth1 route | jq -c --arg h "$hook" '
			[.counters[] | select(.item == $h and .key != "forwarded") |
			 {key, packets, bytes}]')
	else
		VIEW_STATS=$(xr -j stats show dev veth1 chain | jq -c '[.counters | group_by(.item)[] |
			{name: .[0].item} + (map({(.key): .packets}) | add)] | sort_by(.name)')
		VIEW_SHOW=$(xr -j chain show dev veth1 | jq -c '[.interfaces[0].chain[] |
			{name, aborted, drop, pass, tx, redirect, other}] | sort_by(.name)')
	fi
	[[ $VIEW_STATS == "$VIEW_SHOW" ]]
}

@test "show -j: route and chain counters equal route show and chain show" {
	local hook
	traffic
	hook=$(xr -j route show dev veth1 | jq -er '.interfaces[0].hook')
	assert_equal "$(st_fwd veth1 "$hook")" 20
	assert_equal "$(st veth1 route "$hook" forwarded packets)" "$(ctr veth1 fast)"
	assert_equal "$(st veth1 route "$hook" forwarded bytes)" "$(ctr veth1 fast_bytes)"
	assert_equal "$(st veth2 route "$hook" forwarded packets)" "$(ctr veth2 fast)"
	# Every pass reason as route show lists it, and every chain member's
	# verdicts as chain show has them. h1's own IPv6 chatter can move a
	# counter between two reads: read both again until they agree.
	wait_until 3 views_agree route || assert_equal "$VIEW_STATS" "$VIEW_SHOW"
	wait_until 3 views_agree chain || assert_equal "$VIEW_STATS" "$VIEW_SHOW"
	(($(st veth1 chain count pass packets) >= 20))
	# The table has the same groups.
	run -0 xr stats show dev veth1
	assert_output --partial "forwarded"
	assert_output --partial "count"
}

@test "show -j: redirect counters equal redirect show" {
	tc_mode tcx
	ip -n "$XF_NS_H2" addr add 198.18.1.9/24 dev veth0
	run -0 xr redirect add dev veth1 match 198.18.1.9/32 to veth2
	run -0 xr redirect add dev veth1 to veth2
	run -0 xr redirect add dev veth2 to veth1
	run -0 ping4 10 198.18.1.9 -q
	assert_output --partial "10 packets transmitted, 10 received"
	(($(rule veth1 198.18.1.9/32 packets) >= 10))
	assert_equal "$(st veth1 redirect "ingress 198.18.1.9/32 egress->veth2" matched packets)" \
		"$(rule veth1 198.18.1.9/32 packets)"
	assert_equal "$(st veth1 redirect "ingress 198.18.1.9/32 egress->veth2" matched bytes)" \
		"$(rule veth1 198.18.1.9/32 bytes)"
	assert_equal "$(st veth2 redirect "ingress all egress->veth1" matched packets)" \
		"$(rule veth2 all packets)"
	run -0 xr -j stats show redirect
	jq -e '[.counters[].object] | unique == ["redirect"]' <<<"$output"
}

# dv DEV KEY: a device counter of "stats show -j" (empty when not listed).
dv() {
	xr -j stats | jq -er --arg d "$1" --arg k "$2" '.devices[] | select(.dev == $d) | .[$k]'
}

# count_ge MAP N: the tc_count program of MAP has counted N (for
# wait_until: counted anew at each try).
count_ge() {
	local n
	n=$(count "$1") && ((n >= $2))
}

@test "devices: a redirect into a veth whose peer cannot take XDP frames shows its drops" {
	local matched arrived
	if kernel_lacks xdp_features; then
		skip "no xdp_features: the kernel does not say which device takes XDP frames"
	fi
	warm_up
	# GRO on h2's end while the rule is added, off after: veth2 then
	# cannot take the frames the rule redirects into it.
	in_h2 ethtool -K veth0 gro on >/dev/null
	run -0 xr redirect add dev veth1 match "$XF_H2_IP4/32" to veth2 hook xdp
	tc_count "$XF_NS_H2" veth0 ingress
	# The frames keep r1's MAC as their destination: h2 answers none, and
	# counts those that arrive.
	run -1 ping4 10 "$XF_H2_IP4" -q
	assert_output --partial "10 packets transmitted, 0 received"
	wait_until 3 count_ge "$MAP" 10
	in_h2 ethtool -K veth0 gro off >/dev/null
	run -1 ping4 10 "$XF_H2_IP4" -q
	assert_output --partial "10 packets transmitted, 0 received"
	matched=$(rule veth1 "$XF_H2_IP4/32" packets)
	arrived=$(count "$MAP")
	assert_equal "$matched" 20
	assert_equal "$arrived" 10
	# Dropped on veth1's receive queue, where the redirect failed: as many
	# as the rule matched and h2 never got.
	assert_equal "$(dv veth1 rx_queue_drops)" $((matched - arrived))
	assert_equal "$(dv veth1 rx_dropped)" $((matched - arrived))
	# veth2 sent the ones that arrived.
	assert_equal "$(dv veth2 xdp_xmit)" "$arrived"
	assert_equal "$(dv veth1 driver)" veth
	# The same in the table.
	run -0 xr stats show
	assert_output --regexp $'devices:\n +DEV +DRIVER +COUNTER +VALUE'
	assert_output --regexp ' rx_queue_drops +10'$'\n'
	# A redirect target is a device in use: listed with its counters.
	run -0 xr -j stats show dev veth1
	jq -e '[.devices[].dev] == ["veth1", "veth2"]' <<<"$output"
	# A device whose driver has no XDP counters (a bridge): the link
	# statistics only.
	ip -n "$XF_NS_R1" link add rdbr0 type bridge
	ip -n "$XF_NS_R1" link set rdbr0 up
	run -0 xr redirect add dev veth2 to rdbr0
	run -0 xr -j stats show dev veth2
	jq -e '.devices[] | select(.dev == "rdbr0") | .driver == "bridge" and
		(keys - ["dev", "ifindex", "driver"] | sort) == (["rx_packets", "rx_bytes",
		"rx_errors", "rx_dropped", "tx_packets", "tx_bytes", "tx_errors",
		"tx_dropped"] | sort)' <<<"$output"
}

@test "-s: the per-CPU values add up to the totals" {
	local hook
	traffic
	hook=$(xr -j route show dev veth1 | jq -er '.interfaces[0].hook')
	run -0 xr -j -s stats
	jq -e '[.counters[] |
		(.percpu | length) > 0 and
		([.percpu[].packets] | add) == .packets and
		([.percpu[].bytes] | add) == .bytes] | all and length > 0' <<<"$output"
	# Tables: the counters' table whole, the per-CPU values in a block
	# after it, whose packets add up to the counter's.
	run -0 xr -s stats
	assert_line --index 0 "counters:"
	refute_output --partial "percpu:"
	run -0 awk '
		/^[a-z-]+:$/ { block = $1; next }
		block == "counters:" && !/^  DEV/ && NF < 4 { bad = 1 }
		block == "per-cpu:" && $1 == "veth1" { dev = $1; key = $4 }
		block == "per-cpu:" && !/^  DEV/ && NF == 3 && dev == "veth1" && key == "forwarded" { sum += $2 }
		block == "per-cpu:" && !/^  DEV/ && NF == 7 && key == "forwarded" && dev == "veth1" { sum += $6 }
		block == "per-cpu:" && $1 ~ /^veth/ && $1 != "veth1" { dev = $1 }
		END { if (bad) print "broken"; else print sum }' <<<"$output"
	assert_output "$(st veth1 route "$hook" forwarded packets)"
	run -0 xr -s stats
	assert_output --regexp $'\nper-cpu:\n +DEV +OBJECT +ITEM +KEY +CPU +PACKETS +BYTES\n'
}

@test "watch -j count 2: two JSON lines with rates, then exit 0" {
	local hook
	traffic
	hook=$(xr -j route show dev veth1 | jq -er '.interfaces[0].hook')
	in_h1 ping -c 60 -i 0.02 -W 1 -q "$XF_H2_IP4" >/dev/null &
	BG_PIDS+=($!)
	run -0 --separate-stderr xr -j stats watch dev veth1 route interval 0.5 count 2
	assert_equal "$stderr" ""
	assert_equal "${#lines[@]}" 2
	jq -e '.interval >= 1 and .seconds > 0.4' <<<"${lines[0]}"
	# About 50 echo requests a second arrive on veth1 and are forwarded.
	jq -e --arg h "$hook" '.interval == 2 and
		([.counters[] | select(.key == "forwarded" and .item == $h) | .pps] | .[0] > 20) and
		(.route[0].forwarded_pps > 20) and (.route[0].passed_pct | type == "number")' \
		<<<"${lines[1]}"
	# Not on a terminal: one block per interval, no screen control.
	run -0 xr stats watch dev veth1 interval 0.2 count 2
	assert_output --partial "interval: 2"
	[[ $output != *$'\e['* ]]
}

@test "watch rates: within 10% of the generator's rate over a 3-second window" {
	local e0 e1 t0 t1 rate
	traffic
	# About 40-50 echo requests a second for 6 s (ping's own pace); h2's
	# kernel counts what arrives over the same window as watch.
	in_h1 ping -c 300 -i 0.02 -W 1 -q "$XF_H2_IP4" >/dev/null &
	BG_PIDS+=($!)
	# Measure once the echo requests arrive at h2.
	e0=$(kstat "$XF_NS_H2" IcmpInEchos)
	wait_until 5 kstat_ge "$XF_NS_H2" IcmpInEchos $((e0 + 5))
	e0=$(kstat "$XF_NS_H2" IcmpInEchos)
	t0=$(date +%s.%N)
	run -0 xr -j stats watch dev veth1 route interval 3 count 1
	e1=$(kstat "$XF_NS_H2" IcmpInEchos)
	t1=$(date +%s.%N)
	rate=$(awk -v n=$((e1 - e0)) -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", n / (b - a) }')
	echo "# generator $rate/s, watch $(jq -r '.route[0].forwarded_pps' <<<"$output")/s" >&3
	jq -e --argjson r "$rate" '.route[0].forwarded_pps >= 0.9 * $r and
		.route[0].forwarded_pps <= 1.1 * $r and
		([.counters[] | select(.key == "forwarded") | .bps][0] as $b |
		 $b >= 0.9 * $r * 98 * 8 and $b <= 1.1 * $r * 98 * 8)' <<<"$output"
}

@test "watch stops at SIGINT and SIGTERM, exit 0" {
	local pid sig rc
	for sig in INT TERM; do
		# A file of its own each time: the shell truncates it in the child,
		# after the parent may already look at it.
		xfwd -n "$XF_NS_R1" -j stats watch count 1000 >"$BATS_TEST_TMPDIR/w.$sig" &
		pid=$!
		BG_PIDS+=("$pid")
		# Once the first block is out, the handlers are in and watch
		# sleeps until the next.
		wait_until 5 test -s "$BATS_TEST_TMPDIR/w.$sig"
		kill -"$sig" "$pid"
		# Promptly: the sleep is cut short, not finished.
		wait_until 2 bash -c "! kill -0 $pid 2>/dev/null"
		rc=0
		wait "$pid" || rc=$?
		assert_equal "$sig $rc" "$sig 0"
	done
}

# screen SIZE FRAMES SIGNAL [--resize RxC | --then SHELL] -- ARGS...: "xfwd -n r1 ARGS" on a
# pseudo-terminal of SIZE (ROWSxCOLS), stopped with SIGNAL after FRAMES
# frames; test/fixtures/ptyscreen.py replays what it wrote on a model of
# the terminal, into $output as JSON.
screen() {
	local opts=("$1" "$2" "stats watch: interval" "$3" "$(vm_slow 20)")
	shift 3
	[[ $1 != --resize && $1 != --then ]] || { opts+=("$1" "$2"); shift 2; }
	shift	# --
	run -0 --separate-stderr "$XF_TOP/test/fixtures/ptyscreen.py" "${opts[@]}" \
		-- xfwd -n "$XF_NS_R1" "$@" || { echo "$stderr" >&3; return 1; }
}

# The body of the screen: the rows between the header and the tail, as
# their PPS in numbers (1.2K -> 1200), in the order shown.
SCREEN_PPS='[.screen | (index(.[] | select(test("^ +PPS "))) // -1) as $h |
	.[$h + 1:][] | select(test("^(\\.\\.\\. |passed since|drops since|$)") | not) |
	split(" ") | map(select(. != "")) | .[0] |
	capture("^(?<n>[0-9.]+)(?<u>[KMGTPE]?)$") |
	(.n | tonumber) * ({"": 1, K: 1e3, M: 1e6, G: 1e9}[.u] // 1e12)]'

@test "watch on a terminal: a screen sorted by rate, fitted to it, restored on SIGINT and SIGTERM" {
	traffic
	# Three rates: h2's echo requests (~45/s) through veth1 and their
	# replies through veth2, r1's own address (~18/s) passed to the kernel.
	in_h1 ping -c 400 -i 0.02 -W 1 -q "$XF_H2_IP4" >/dev/null &
	BG_PIDS+=($!)
	in_h1 ping -c 150 -i 0.05 -W 1 -q "$XF_R1_IP4A" >/dev/null &
	BG_PIDS+=($!)
	wait_until 5 ctr_ge veth1 not_forwarded 3
	screen 12x60 3 INT -- stats watch interval 0.5
	jq -r '.screen[] | "# " + .' <<<"$output" >&3
	jq -e '.rc == 0 and .frames >= 3 and .restored and (.scrolled | not) and
		(.wrapped | not) and .unknown == [] and (.screen | length) == 12 and
		([.screen[] | length <= 60] | all)' <<<"$output"
	jq -e '.screen[0] | startswith("xfwd stats watch: interval ")' <<<"$output"
	jq -e '.screen[1] | test("^ +PPS +BPS +DEV +OBJECT +ITEM +KEY$")' <<<"$output"
	# Every row that moved, highest rate first; the forwarded pings among
	# them, and the pass reason since the start below.
	jq -e "$SCREEN_PPS"' | length >= 4 and . == (sort | reverse) and .[0] > 20' <<<"$output"
	jq -e '[.screen[] | select(test("^ +[0-9]+ +[0-9.]+[KMG]?bit +veth1 +route +xdp +forwarded$"))] | length == 1' \
		<<<"$output"
	jq -e '[.screen[] | select(startswith("passed since start:  not_forwarded "))] | length == 1' \
		<<<"$output"
	jq -e '[.screen[] | select(startswith("drops since start:"))] | length == 1' <<<"$output"
	# Smaller after a resize (SIGWINCH): still fitted, the rows that do not
	# fit counted; SIGTERM restores the terminal too.
	screen 12x60 2 TERM --resize 8x40 -- stats watch interval 0.5
	jq -r '.screen[] | "# " + .' <<<"$output" >&3
	jq -e '.rc == 0 and .restored and (.scrolled | not) and (.wrapped | not) and
		.rows == 8 and ([.screen[] | length <= 40] | all) and
		([.screen[] | select(test("^\\.\\.\\. [0-9]+ more$"))] | length == 1)' <<<"$output"
	jq -e "$SCREEN_PPS"' | length >= 2 and . == (sort | reverse)' <<<"$output"
	# -s: the programs' cost on a line of its own.
	screen 14x100 2 INT -- -s stats watch interval 0.3
	jq -e '[.screen[] | select(test("^ns per packet:  veth1 [a-z]+ xf_[a-z_]+ [0-9]+  "))] |
		length == 1' <<<"$output"
	# -j on a terminal: JSON Lines as ever, no screen.
	screen 12x60 2 INT -- -j stats watch interval 0.3
	jq -e '.rc == 0 and (.alt_seen | not)' <<<"$output"
}

@test "watch on a terminal: a failed redirect's drops and the kernel's xdp_redirect_err since the start" {
	if kernel_lacks xdp_features; then
		skip "no xdp_features: the kernel does not say which device takes XDP frames"
	fi
	warm_up
	in_h2 ethtool -K veth0 gro on >/dev/null
	run -0 xr redirect add dev veth1 match "$XF_H2_IP4/32" to veth2 hook xdp
	in_h2 ethtool -K veth0 gro off >/dev/null
	# 10 echo requests after the screen's first interval, all of them
	# lost where veth1 redirects them.
	screen 14x100 1 INT --then "ip netns exec $XF_NS_H1 ping -c 10 -i 0.05 -W 1 -q $XF_H2_IP4" \
		-- stats watch interval 0.5
	jq -r '.screen[] | "# " + .' <<<"$output" >&3
	assert_equal "$(rule veth1 "$XF_H2_IP4/32" packets)" 10
	jq -e '[.screen[] | select(startswith("drops since start:  veth1 rx_dropped 10  veth1 rx_queue_drops 10"))] |
		length == 1' <<<"$output"
	if kernel_lacks xdp_tracepoints; then
		jq -e '[.screen[] | select(startswith("xdp errors: not counted: "))] | length == 1' <<<"$output"
	else
		jq -e '[.screen[] | select(test("^xdp errors since start:  veth1 redirect_err E[A-Z]+ 10$"))] |
			length == 1' <<<"$output"
	fi
}

@test "watch on a terminal where tracing programs are refused (no CAP_BPF): one line says why, the rest goes on" {
	traffic
	run -0 --separate-stderr "$XF_TOP/test/fixtures/ptyscreen.py" 14x100 2 "stats watch: interval" \
		INT "$(vm_slow 20)" -- nsenter --net="/run/netns/$XF_NS_R1" setpriv --inh-caps=-all \
		--ambient-caps=-all --bounding-set=-bpf,-net_admin,-sys_admin "$(command -v xfwd)" \
		stats watch interval 0.3
	jq -r '.screen[] | "# " + .' <<<"$output" >&3
	jq -e '.rc == 0 and .restored' <<<"$output"
	jq -e '[.screen[] | select(startswith("xdp errors: not counted: ") and endswith(": EPERM"))] |
		length == 1' <<<"$output"
	jq -e '[.screen[] | select(test("^ +[0-9]+ +[0-9.]+[KMG]?bit +veth1 +route +xdp +forwarded$"))] |
		length == 1' <<<"$output"
}

@test "watch on a terminal: what goes to stderr while the screen is up is printed once it is gone" {
	local n
	run -0 xr route attach dev veth1 dev veth2 hook tc
	# The kernel calls of the screen's start and first interval; the
	# next one, in the second interval, fails (XFWD_FAULT, xfwd(8)).
	XFWD_FAULT=count screen 14x100 9 INT -- stats watch interval 0.2 count 1
	n=$(jq -r '.main[]' <<<"$output" | sed -n 's/^xfwd: fault: \([0-9]*\) kernel calls$/\1/p')
	((n > 0))
	XFWD_FAULT=fail:$((n + 1)) screen 14x100 9 INT -- stats watch interval 0.2 count 2
	jq -e --arg n $((n + 1)) '.restored and (.main | map(select(. != "")) |
		.[0] | startswith("xfwd: fault: failing kernel call " + $n + " "))' <<<"$output"
}

@test "-s watch: run-time statistics on while it runs, off after it exits" {
	local id before after
	traffic
	id=$(xr -j route show dev veth1 | jq -er '.interfaces[0].prog_id')
	in_h1 ping -c 50 -i 0.02 -W 1 -q "$XF_H2_IP4" >/dev/null &
	BG_PIDS+=($!)
	run -0 xr -j -s stats watch dev veth1 interval 0.5 count 2
	jq -e --argjson id "$id" '.programs | any(.prog_id == $id and .runs > 0 and
		.ns_per_packet > 0)' <<<"${lines[1]}"
	wait "${BG_PIDS[-1]}" || true
	# The fd is gone with the process: pings do not add run time any more
	# (unless someone else holds the statistics on, as nothing here does).
	before=$(bpftool -j prog show id "$id" | jq -r '.run_time_ns // 0')
	run -0 ping4 10 "$XF_H2_IP4" -q
	after=$(bpftool -j prog show id "$id" | jq -r '.run_time_ns // 0')
	((before > 0))
	assert_equal "$after" "$before"
}

@test "reset zeroes what it names and nothing else" {
	local hook
	traffic
	hook=$(xr -j route show dev veth1 | jq -er '.interfaces[0].hook')
	(($(st veth1 chain count pass packets) >= 20))
	run -0 xr stats reset dev veth1 route
	assert_equal "$(ctr veth1 forwarded)" 0
	(($(ctr veth2 forwarded) >= 20))
	(($(st veth1 chain count pass packets) >= 20))
	run -0 xr stats reset dev veth1 chain
	assert_equal "$(st veth1 chain count pass packets)" 0
	(($(ctr veth2 forwarded) >= 20))
	run -0 xr stats reset
	assert_equal "$(ctr veth2 forwarded)" 0
	# The counters count again afterwards.
	run -0 ping4 5 "$XF_H2_IP4" -q
	assert_equal "$(st_fwd veth1 "$hook")" 5
}

# usage_error STATUS WANT ARGS...: "xr stats ARGS" exits STATUS with
# nothing on stdout and the one line WANT on stderr.
usage_error() {
	run "-$1" --separate-stderr xr stats "${@:3}"
	assert_output ""
	assert_equal "$stderr" "$2"
}

@test "usage errors exit 2" {
	usage_error 2 'Error: unexpected "frob"; try "xfwd stats help".' show frob
	usage_error 2 'Error: invalid value "0" for SECONDS; try "xfwd stats help".' watch interval 0
	usage_error 2 'Error: invalid value "0" for N; try "xfwd stats help".' watch count 0
	usage_error 2 'Error: duplicate "object"; try "xfwd stats help".' show route route
	usage_error 2 'Error: unexpected "interval"; try "xfwd stats help".' reset interval 1
	usage_error 1 'Error: device "nosuchdev" does not exist.' show dev nosuchdev
}

@test "show is the default verb, also in front of its arguments" {
	run -0 xr -j stats dev veth1
	jq -e '.counters == []' <<<"$output"
	run -0 xr -j stats route
	run -0 xr -j stats sho dev veth1 redirect
	# Too short to be taken for reset: an error, not a reset.
	usage_error 2 'Error: unexpected "re"; try "xfwd stats help".' re
	usage_error 2 'Error: unexpected "r"; try "xfwd stats help".' r
}
