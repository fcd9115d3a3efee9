# SPDX-License-Identifier: GPL-2.0
# Helpers of test/chain.bats: the chain on r1's veth1 as show and bpftool
# see it, and numbered UDP datagrams from h1 to h2 through it
# (test/fixtures/udpseq.py). Needs helpers/route (in_h1, xr, pin_dir).

PROGS="$BATS_TEST_DIRNAME/../build/test/progs"
UDPSEQ="$BATS_TEST_DIRNAME/fixtures/udpseq.py"
PORT=4242		# data; the end marker goes to PORT + 1

# The xdp-filter objects of Debian's libxdp1 (xdp-tools), wherever the
# multiarch directory is.
xdpfilt() {
	local f
	for f in /usr/lib/*/bpf/xdpfilt_"$1".o /usr/lib/bpf/xdpfilt_"$1".o; do
		[[ -e $f ]] && { echo "$f"; return; }
	done
	fail "xdpfilt_$1.o not found: install xdp-tools (scripts/install-deps)"
}

# ifindex NS DEV
ifindex() {
	ip -n "$1" -j link show dev "$2" | jq -er '.[0].ifindex'
}

# cshow: the chain of veth1 as JSON (one interface object, or null).
cshow() {
	xr -j chain show dev veth1 | jq -ec '.interfaces[0]'
}

prog_id() { cshow | jq -er '.prog_id'; }
link_id() { cshow | jq -er '.link_id'; }

# members: the names in order, space separated.
members() {
	xr -j chain show dev veth1 | jq -er '[.interfaces[0].chain[]?.name] | join(" ")'
}

# mctr NAME VERDICT: packets member NAME returned VERDICT for (summed over
# CPUs by the dispatcher's counters).
mctr() {
	cshow | jq -er --arg m "$1" --arg v "$2" '.chain[] | select(.name == $m) | .[$v]'
}

# mruns NAME: packets member NAME ran for, any verdict.
mruns() {
	cshow | jq -er --arg m "$1" '.chain[] | select(.name == $m) |
		.aborted + .drop + .pass + .tx + .redirect + .other'
}

# rules NAME: the member's rules as show prints them ("" for the defaults).
rules() {
	cshow | jq -er --arg m "$1" '.chain[] | select(.name == $m) | .rules // ""'
}

# The member maps' directory of veth1 (set by setup as IF_PIN).
# mapval MEMBER MAP: the value at key 0 of a member's pinned array map.
mapval() {
	bpftool -j map lookup pinned "$IF_PIN/maps/$1/$2" key 0 0 0 0 | jq -er '.formatted.value'
}

# map_id MEMBER MAP
map_id() {
	bpftool -j map show pinned "$IF_PIN/maps/$1/$2" | jq -er '.id'
}

# le32 N: N as four bytes, host (little-endian) order, for bpftool.
le32() {
	printf '%d %d %d %d' $(($1 & 255)) $((($1 >> 8) & 255)) $((($1 >> 16) & 255)) \
		$((($1 >> 24) & 255))
}

# drop_port MEMBER PORT: tell a drop_udp member which UDP port to drop.
drop_port() {
	bpftool map update pinned "$IF_PIN/maps/$1/xf_drop_port" key 0 0 0 0 value $(le32 "$2")
}

# udp_recv DIR [PORT [TIMEOUT]]: start h2's receiver in the background
# (BG_PIDS, RX_PID) and wait until it is bound. It gives up TIMEOUT seconds
# (default 10) after it started; its summary goes to DIR/rx.json. Started
# with "ip netns exec" itself, not in_h2: the pid is then the receiver's.
udp_recv() {
	mkdir -p "$1"
	ip netns exec "$XF_NS_H2" /usr/bin/python3 "$UDPSEQ" recv "$XF_H2_IP4" "${2:-$PORT}" \
		"${3:-10}" "$1" 3>&- &
	RX_PID=$!
	BG_PIDS+=("$RX_PID")
	wait_until "$(vm_slow 5)" test -e "$1/ready"
}

# udp COUNT [PORT [SRC]]: COUNT numbered datagrams from h1 (from SRC if
# given) to h2:PORT at UDP_RATE a second (2000 unless set), then the end
# marker; returns when h2 has seen the marker, with the receiver's summary
# in $RX. Bounded: the receiver gives up 10 s after it started.
udp() {
	local dir
	dir=$(mktemp -d "$BATS_TEST_TMPDIR/rx.XXXXXX")
	udp_recv "$dir" "${2:-$PORT}"
	in_h1 /usr/bin/python3 "$UDPSEQ" send "$XF_H2_IP4" "${2:-$PORT}" "$1" "${UDP_RATE:-2000}" \
		${3:+"$3"} >/dev/null
	wait "$RX_PID" || fail "h2 saw no end marker: $(cat "$dir/rx.json" 2>/dev/null)"
	RX=$dir/rx.json
}

# rx KEY: a key of the last receiver's summary (received, missing, ...).
rx() {
	jq -er --arg k "$1" '.[$k]' "$RX"
}

# no_xdp DEV: no XDP program on r1's DEV.
no_xdp() {
	[[ $(ip -n "$XF_NS_R1" -d link show dev "$1") != *prog/xdp* ]]
}

# filter_before_route: with route on veth1's chain (hook xdp), a drop_udp
# member "filter" goes before it by priority (50 against route's 1000) and
# drops PORT; other datagrams go through the filter and route forwards them.
filter_before_route() {
	local fwd
	# assert_success, not run -0: a failure shows xfwd's Error line.
	run xr chain add dev veth1 obj "$PROGS/drop_udp.bpf.o" name filter
	assert_success
	assert_equal "$(members)" "filter route"
	drop_port filter "$PORT"
	fwd=$(ctr veth1 forwarded)
	udp 40
	assert_equal "$(rx received)" 0
	assert_equal "$(mctr filter drop)" 40
	udp 40 $((PORT + 10))
	assert_equal "$(rx received)" 40
	(($(ctr veth1 forwarded) >= fwd + 40)) || fail "route forwarded $(ctr veth1 forwarded)"
	assert_equal "$(mctr route redirect)" "$(ctr veth1 fast)"
}
