#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# xfwd chain: several XDP programs on r1's veth1 (the ingress from h1),
# linked into one, with real traffic h1 -> r1 -> h2 (r1's kernel forwards
# what the chain passes). Members are the small programs of test/progs and
# Debian's xdp-filter objects. Each test builds its own topology and takes
# the chain, its pins and the namespaces down again in teardown.
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/common
load helpers/route
load helpers/chain

setup_file() {
	_need_root
	_need_progs pass count drop_udp tx broken tc_only runcfg tail
}

setup() {
	_common_setup
	BG_PIDS=()
	topo_create
	PIN_DIR=$(pin_dir)
	RUN_DIR=/run/xfwd/${PIN_DIR##*/}
	IF_PIN=$PIN_DIR/$(ifindex "$XF_NS_R1" veth1)
	# Neighbours resolved before any chain: nothing waits on ARP later.
	ping4 1 "$XF_H2_IP4" -q >/dev/null
}

# What "del all" leaves (pins outlive the namespace, copies stay in /run)
# is removed here and fails the test.
teardown() {
	local left=0
	kill_bg
	xr route detach all >/dev/null 2>&1 || true
	xr chain del dev veth1 all >/dev/null 2>&1 || true
	left_behind "${PIN_DIR:-}" "${RUN_DIR:-}" || left=1
	topo_destroy
	((!left))
}

# --- 1. order ----------------------------------------------------------------

@test "order is observable: count before drop_udp counts the dropped datagrams, after it not" {
	run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name count
	run -0 xr chain add dev veth1 obj "$PROGS/drop_udp.bpf.o" name drop
	drop_port drop $PORT
	assert_equal "$(members)" "count drop"
	before=$(mapval count xf_cnt)
	udp 50
	assert_equal "$(rx received)" 0
	assert_equal "$(mctr drop drop)" 50
	seen=$(($(mapval count xf_cnt) - before))
	((seen >= 50)) || fail "count saw $seen packets, not the 50 dropped after it"

	run -0 xr chain order dev veth1 drop count
	assert_equal "$(members)" "drop count"
	before=$(mapval count xf_cnt)
	udp 50
	assert_equal "$(rx received)" 0
	# Counters stay with their member across a reorder.
	assert_equal "$(mctr drop drop)" 100
	seen=$(($(mapval count xf_cnt) - before))
	((seen < 50)) || fail "count saw $seen packets although drop runs first"
}

# --- 2. rules ----------------------------------------------------------------

@test "on drop goto: what drop_udp drops skips the member between and goes on at the target" {
	run -0 xr chain add dev veth1 obj "$PROGS/drop_udp.bpf.o" name drop
	run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name mid
	run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name tail
	run -0 xr chain set dev veth1 name drop on drop goto tail
	assert_equal "$(rules drop)" "on drop goto tail"
	drop_port drop $PORT
	mid0=$(mapval mid xf_cnt) tail0=$(mapval tail xf_cnt)
	udp 50
	assert_equal "$(mctr drop drop)" 50
	(($(mapval mid xf_cnt) - mid0 < 50)) || fail "mid ran for the dropped datagrams"
	(($(mapval tail xf_cnt) - tail0 >= 50)) || fail "tail did not run for them"
	# The chain's verdict is the last member's: tail passed them, so h2 has
	# every one.
	assert_equal "$(rx received)" 50
	assert_equal "$(rx missing)" 0
}

@test "on pass stop: the members after it never run" {
	run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name first on pass stop
	run -0 xr chain add dev veth1 obj "$PROGS/drop_udp.bpf.o" name drop
	drop_port drop $PORT
	assert_equal "$(rules first)" "on pass stop"
	udp 50
	assert_equal "$(rx received)" 50
	assert_equal "$(mruns drop)" 0
	(($(mctr first pass) >= 50))
	# Back to the default: drop runs and drops.
	run -0 xr chain set dev veth1 name first on pass next
	udp 50
	assert_equal "$(rx received)" 0
	assert_equal "$(mctr drop drop)" 50
}

@test "on pass goto skips the members in between" {
	run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name c
	run -0 xr chain add dev veth1 obj "$PROGS/drop_udp.bpf.o" name b before c
	run -0 xr chain add dev veth1 obj "$PROGS/pass.bpf.o" name a first on pass goto c
	assert_equal "$(members)" "a b c"
	drop_port b $PORT
	# c ran alone, then after b, before a was added: whatever the namespace
	# sent meanwhile (neighbour discovery, MLD) c counted and a did not.
	# So could b, before a went in front of it. Count from here on.
	read -r A0 C0 < <(passes_a_c)
	local b0
	b0=$(mruns b)
	udp 50
	assert_equal "$(rx received)" 50
	assert_equal "$(mruns b)" "$b0"
	(($(mapval c xf_cnt) >= 50))
	# Every packet a passed went on to c. The counters are read while the
	# namespace's own traffic may be in flight between a and c on another
	# CPU: poll until a snapshot agrees.
	wait_until 3 a_pass_is_c_pass
}

# passes_a_c: members a's and c's pass counts, from one reading of the
# counters (two readings could each see a packet the other did not).
passes_a_c() {
	cshow | jq -er '[(.chain[] | select(.name == "a") | .pass),
		(.chain[] | select(.name == "c") | .pass)] | "\(.[0]) \(.[1])"'
}

a_pass_is_c_pass() {
	local a c
	read -r a c < <(passes_a_c)
	((a - A0 == c - C0 && a - A0 >= 50))
}

# xdp_tx_ctr: frames r1's veth1 sent back out with XDP_TX (the driver's count).
xdp_tx_ctr() {
	ip netns exec "$XF_NS_R1" ethtool -S veth1 | awk '$1 == "rx_queue_0_xdp_tx:" { print $2 }'
}

@test "XDP_TX ends the chain by default: the frames go back out, the members after never run" {
	run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name count
	run -0 xr chain add dev veth1 obj "$PROGS/tx.bpf.o" name tx
	run -0 xr chain add dev veth1 obj "$PROGS/drop_udp.bpf.o" name drop
	# A veth takes XDP_TX frames only while its peer has GRO on (or XDP).
	in_h1 ethtool -K veth0 gro on >/dev/null
	tx0=$(xdp_tx_ctr) fwd0=$(kstat "$XF_NS_R1" IpForwDatagrams)
	# The end marker is bounced too, so no receiver: 40 datagrams and 3
	# markers, and whatever else h1 sends meanwhile.
	in_h1 /usr/bin/python3 "$UDPSEQ" send "$XF_H2_IP4" $PORT 40 2000 >/dev/null
	wait_until 3 eval '(($(mctr tx tx) >= 43))'
	(($(xdp_tx_ctr) - tx0 >= 43))
	(($(mctr count pass) >= 43))
	assert_equal "$(mruns drop)" 0
	assert_equal "$(kstat "$XF_NS_R1" IpForwDatagrams)" "$fwd0"
}

# --- 3. cycles, 16 members and the limit -------------------------------------

@test "a cycle is refused with its path, and the running chain stays" {
	run -0 xr chain add dev veth1 obj "$PROGS/pass.bpf.o" name a
	run -0 xr chain add dev veth1 obj "$PROGS/pass.bpf.o" name b
	prog=$(prog_id)
	run -2 --separate-stderr xr chain set dev veth1 name b on pass goto a
	assert_equal "$stderr" "Error: cycle: a -> b -> a."
	assert_output ""
	run -2 --separate-stderr xr chain set dev veth1 name a on drop goto a
	assert_equal "$stderr" "Error: cycle: a -> a."
	run -2 --separate-stderr xr chain add dev veth1 obj "$PROGS/pass.bpf.o" name c on drop goto a
	assert_equal "$stderr" "Error: cycle: a -> b -> c -> a."
	run -2 --separate-stderr xr chain set dev veth1 name a on drop goto nosuch
	assert_equal "$stderr" 'Error: goto to unknown member "nosuch".'
	assert_equal "$(prog_id)" "$prog"
	assert_equal "$(members)" "a b"
	assert_equal "$(rules a)$(rules b)" ""
	[[ ! -e $IF_PIN/maps/c && ! -e $RUN_DIR/${IF_PIN##*/}/c.o ]]
	udp 20
	assert_equal "$(rx received)" 20
}

@test "16 members forward and each counts; the 33rd member is refused" {
	# (No loop variable "i": bats' run changes it.)
	names=()
	for k in {1..16}; do
		run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name "c$k"
		names+=("c$k")
	done
	assert_equal "$(members)" "${names[*]}"
	udp 50
	assert_equal "$(rx received)" 50
	for k in {1..16}; do
		n=$(mapval "c$k" xf_cnt)
		((n >= 50)) || fail "c$k counted $n"
		(($(mctr "c$k" pass) >= 50))
	done
	for k in {17..32}; do
		run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name "c$k"
	done
	prog=$(prog_id)
	run -2 --separate-stderr xr chain add dev veth1 obj "$PROGS/count.bpf.o" name c33
	assert_equal "$stderr" "Error: a chain has at most 32 members."
	assert_equal "$(prog_id)" "$prog"
	udp 20
	assert_equal "$(rx received)" 20
	(($(mctr c32 pass) >= 20))
}

# --- 4. reorder under load ---------------------------------------------------

# drops_outside: the sum of the kernel's drop counters on the stream's way
# that are not the chain's: veth's ring into r1's XDP (h1's veth0 tx
# drops), r1's veth2 and h2's veth0, the backlog queues (softnet_stat,
# the whole machine's) and h2's UDP socket.
drops_outside() {
	local h1 r1 h2 sock backlog
	h1=$(ip -n "$XF_NS_H1" -s -j link show dev veth0 | jq -e '.[0].stats64.tx.dropped')
	r1=$(ip -n "$XF_NS_R1" -s -j link show dev veth2 | jq -e '.[0].stats64.tx.dropped')
	h2=$(ip -n "$XF_NS_H2" -s -j link show dev veth0 | jq -e '.[0].stats64.rx.dropped')
	sock=$(kstat "$XF_NS_H2" UdpRcvbufErrors)
	backlog=0
	while read -r _ d _; do
		backlog=$((backlog + 16#$d))
	done </proc/net/softnet_stat
	echo "# drops: h1 $h1 r1 $r1 h2 $h2 socket $sock backlog $backlog" >&3
	echo $((h1 + r1 + h2 + sock + backlog))
}

@test "reorder under load: 50 swaps a b c <-> a c b while h1 streams; every datagram runs the chain and reaches h2" {
	dir=$BATS_TEST_TMPDIR/load ids=()
	# All three count and pass: kernel forwarding would deliver a datagram
	# that missed the chain too, but then the counts would fall short.
	for m in a b c; do
		run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name $m
	done
	link=$(link_id)
	ids+=("$(prog_id)")
	# At most 30000 datagrams at 1000/s (longer under emulation, where
	# the swaps are slower); stopped once the swaps are done, which takes
	# seconds here but once took over a minute in a guest on a busy host.
	max=$(vm_slow 30000)
	out0=$(drops_outside)
	udp_recv "$dir" $PORT "$(vm_slow 60)"
	ip netns exec "$XF_NS_H1" /usr/bin/python3 "$UDPSEQ" send "$XF_H2_IP4" $PORT "$max" 1000 \
		>"$dir/sent" 3>&- &
	TX_PID=$!
	BG_PIDS+=("$TX_PID")
	# The stream is flowing through the chain before the first swap ...
	wait_until 5 eval '(($(mctr a pass) >= 100))'
	for k in {1..50}; do
		if ((k % 2)); then order="a c b"; else order="a b c"; fi
		run -0 xr chain order dev veth1 $order
		read -r id now < <(xr -j chain show dev veth1 |
			jq -r '.interfaces[0] | "\(.prog_id) \([.chain[].name] | join(" "))"')
		assert_equal "$now" "$order"
		ids+=("$id")
	done
	# ... and still after the last: every swap happened under traffic.
	kill -0 "$TX_PID" || fail "the stream ended before the swaps did"
	n=$(mctr a pass)
	wait_until 5 eval "((\$(mctr a pass) >= n + 100))"
	kill -TERM "$TX_PID"
	wait "$TX_PID"
	wait "$RX_PID" || fail "h2 saw no end marker"
	RX=$dir/rx.json
	sent=$(cat "$dir/sent")
	# What the kernel's queues dropped on the way, outside the chain: 0
	# where the machine keeps up; a guest on one emulated CPU once lost a
	# burst of 26 there.
	lost=$(($(drops_outside) - out0))
	echo "# sent $sent, dropped outside the chain $lost, summary $(cat "$RX")" >&3
	((sent >= 300 && sent < max))
	assert_equal "$(rx sent)" "$sent"
	(($(rx missing) <= lost)) || fail "$(rx missing) datagrams missing, $lost dropped outside the chain"
	assert_equal "$(rx dups)" 0
	(($(rx received) >= sent - lost)) || fail "$(rx received) of $sent received"
	for m in a b c; do
		n=$(mapval $m xf_cnt)
		((n >= sent - lost)) || fail "member $m ran for $n packets of $sent"
	done
	# 51 programs, one link: each swap replaced the whole program in place.
	assert_equal "$(printf '%s\n' "${ids[@]}" | sort -u | wc -l)" 51
	assert_equal "$(link_id)" "$link"
}

# --- 5. a member the verifier refuses ----------------------------------------

@test "a member the verifier rejects leaves the running chain forwarding" {
	run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name count
	run -0 xr chain add dev veth1 obj "$PROGS/drop_udp.bpf.o" name drop
	drop_port drop $PORT
	prog=$(prog_id)
	run -1 --separate-stderr xr chain add dev veth1 obj "$PROGS/broken.bpf.o" name broken first
	assert_output ""
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == "Error: member broken: "*"invalid access to packet"* ]] ||
		fail "unexpected: $stderr"
	assert_equal "$(prog_id)" "$prog"
	assert_equal "$(members)" "count drop"
	[[ ! -e $IF_PIN/maps/broken && ! -e $RUN_DIR/${IF_PIN##*/}/broken.o ]]
	# The old chain still runs: it forwards, counts and drops as before.
	udp 30 $((PORT + 2))
	assert_equal "$(rx received)" 30
	udp 30
	assert_equal "$(rx received)" 0
	assert_equal "$(mctr drop drop)" 30
	(($(mapval count xf_cnt) >= 60))
}

# --- 6. maps filled with bpftool ---------------------------------------------

@test "a member's pinned map filled with bpftool changes its verdicts at once, and survives rebuilds" {
	run -0 xr chain add dev veth1 obj "$PROGS/drop_udp.bpf.o" name drop
	run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name count
	[[ -e $IF_PIN/maps/drop/xf_drop_port && -e $IF_PIN/maps/count/xf_cnt ]]
	udp 20
	assert_equal "$(rx received)" 20
	prog=$(prog_id) map=$(map_id drop xf_drop_port)
	run -0 bpftool map update pinned "$IF_PIN/maps/drop/xf_drop_port" key 0 0 0 0 \
		value $(le32 $PORT)
	udp 20
	assert_equal "$(rx received)" 0
	assert_equal "$(mctr drop drop)" 20
	assert_equal "$(prog_id)" "$prog"
	# Rebuilds (add, order, set) keep the member's maps and their contents.
	run -0 xr chain add dev veth1 obj "$PROGS/pass.bpf.o" name p first
	run -0 xr chain order dev veth1 drop p count
	run -0 xr chain set dev veth1 name p on tx stop
	[[ $(prog_id) != "$prog" ]]
	assert_equal "$(map_id drop xf_drop_port)" "$map"
	assert_equal "$(mapval drop xf_drop_port)" $PORT
	udp 20
	assert_equal "$(rx received)" 0
	assert_equal "$(mctr drop drop)" 40
	# And the next update is seen at once again.
	run -0 bpftool map update pinned "$IF_PIN/maps/drop/xf_drop_port" key 0 0 0 0 value 0 0 0 0
	udp 20
	assert_equal "$(rx received)" 20
	# A member that goes takes its maps; added again, it starts afresh.
	drop_port drop $PORT
	run -0 xr chain del dev veth1 name drop
	[[ ! -e $IF_PIN/maps/drop ]]
	run -0 xr chain add dev veth1 obj "$PROGS/drop_udp.bpf.o" name drop
	assert_equal "$(mapval drop xf_drop_port)" 0
	udp 20
	assert_equal "$(rx received)" 20
}

# --- 7. objects built by others ----------------------------------------------

# xdp-filter's "alw" objects (policy allow) drop what their maps list; the
# "dny" ones drop everything else, ARP included. Their maps, from BTF and
# the code: filter_ipv4, PERCPU_HASH, key the IPv4 address as in the
# header, value a u64 whose bit 0 matches the source and bit 1 the
# destination, hits counted from bit 6 up; filter_ports, PERCPU_ARRAY of
# 65536, key the port as in the header read as a host u16, value bits 0/1
# as above, bit 2 TCP, bit 3 UDP.
@test "xdp-filter objects load as members: deny an address and a UDP port through their maps" {
	local ipo udpo deny=198.18.1.2
	ipo=$(xdpfilt alw_ip) udpo=$(xdpfilt alw_udp)
	ip -n "$XF_NS_H1" addr add "$deny/24" dev veth0
	run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name count
	run -0 xr chain add dev veth1 obj "$ipo" name ipf
	run -0 xr chain add dev veth1 obj "$udpo" name udpf
	# Their XDP_RUN_CONFIG says priority 10: both go before count (50),
	# in the order added; and "XDP_PASS" chain-calls, a rule of its own.
	assert_equal "$(members)" "ipf udpf count"
	assert_equal "$(rules ipf)" "on pass next"
	[[ -e $IF_PIN/maps/ipf/filter_ipv4 && -e $IF_PIN/maps/udpf/filter_ports ]]
	udp 20 $PORT $deny
	assert_equal "$(rx received)" 20

	# Deny the source 198.18.1.2 and UDP destination port PORT + 2.
	run -0 bpftool map update pinned "$IF_PIN/maps/ipf/filter_ipv4" key ${deny//./ } \
		value 1 0 0 0 0 0 0 0
	p=$((PORT + 2))
	run -0 bpftool map update pinned "$IF_PIN/maps/udpf/filter_ports" \
		key $((p >> 8)) $((p & 255)) 0 0 value 10 0 0 0 0 0 0 0
	count0=$(mapval count xf_cnt)
	udp 30 $PORT $deny
	assert_equal "$(rx received)" 0
	assert_equal "$(mctr ipf drop)" 30
	# xdp-filter counts its hits in the entry, per CPU, from bit 6 up.
	hits=$(bpftool -j map lookup pinned "$IF_PIN/maps/ipf/filter_ipv4" key ${deny//./ } |
		jq -er '[.formatted.values[].value / 64 | floor] | add')
	assert_equal "$hits" 30
	# Others pass, through both filters and count.
	udp 30
	assert_equal "$(rx received)" 30
	assert_equal "$(rx by_src | jq -r 'keys[]')" "$XF_H1_IP4"
	# The port filter drops its port, whatever the source.
	udp 30 $p
	assert_equal "$(rx received)" 0
	assert_equal "$(mctr udpf drop)" 30
	(($(mapval count xf_cnt) - count0 >= 30 && $(mapval count xf_cnt) - count0 < 60))
}

@test "XDP_RUN_CONFIG: priority places a member, chain-call actions become rules; the command line wins" {
	run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name count
	run -0 xr chain add dev veth1 obj "$(xdpfilt alw_ip)" name ipf
	# runcfg: priority 20, XDP_PASS and XDP_DROP chain-call.
	run -0 xr chain add dev veth1 obj "$PROGS/runcfg.bpf.o" name rc
	assert_equal "$(members)" "ipf rc count"
	assert_equal "$(rules rc)" "on drop next on pass next"
	drop_port rc $PORT
	udp 30
	# rc dropped them, but drop goes on to count, which passes them.
	assert_equal "$(mctr rc drop)" 30
	assert_equal "$(rx received)" 30
	run -0 xr chain set dev veth1 name rc on drop stop
	udp 30
	assert_equal "$(rx received)" 0
	# A position and rules given on the command line win over the metadata.
	run -0 xr chain del dev veth1 name ipf
	run -0 xr chain add dev veth1 obj "$(xdpfilt alw_ip)" name ipf last on pass stop
	assert_equal "$(members)" "rc count ipf"
	assert_equal "$(rules ipf)" "on pass stop"
}

# --- bad objects, foreign programs, del, show, usage -------------------------

# bad_objects: each bad object is refused with one clear Error line.
bad_objects() {
	local text=$BATS_TEST_TMPDIR/text.o trunc=$BATS_TEST_TMPDIR/trunc.o
	echo "not an object" >"$text"
	head -c 1000 "$PROGS/count.bpf.o" >"$trunc"
	run -1 --separate-stderr xr chain add dev veth1 obj "$text"
	assert_equal "$stderr" "Error: \"$text\" is not a BPF object file: BPF object format invalid."
	run -1 --separate-stderr xr chain add dev veth1 obj /bin/true
	assert_equal "$stderr" 'Error: "/bin/true" is not a BPF object file: BPF object format invalid.'
	run -1 --separate-stderr xr chain add dev veth1 obj "$trunc"
	assert_equal "$stderr" "Error: \"$trunc\" is not a BPF object file: BPF object format invalid."
	run -1 --separate-stderr xr chain add dev veth1 obj "$BATS_TEST_TMPDIR/nosuch.o"
	assert_equal "$stderr" \
		"Error: \"$BATS_TEST_TMPDIR/nosuch.o\" is not a BPF object file: No such file or directory."
	run -2 --separate-stderr xr chain add dev veth1 obj "$PROGS/tc_only.bpf.o"
	assert_equal "$stderr" "Error: no XDP program in \"$PROGS/tc_only.bpf.o\"."
	run -2 --separate-stderr xr chain add dev veth1 obj "$PROGS/count.bpf.o" sec tc
	assert_equal "$stderr" "Error: no XDP program in section tc in \"$PROGS/count.bpf.o\"."
	run -2 --separate-stderr xr chain add dev veth1 obj "$PROGS/tail.bpf.o"
	assert_equal "$stderr" \
		"Error: \"$PROGS/tail.bpf.o\" has 2 XDP programs; choose one with sec or prog."
	run -2 --separate-stderr xr chain add dev veth1 obj "$PROGS/tail.bpf.o" prog nosuch
	assert_equal "$stderr" "Error: no XDP program named nosuch in \"$PROGS/tail.bpf.o\"."
	run -1 --separate-stderr xr chain add dev veth1 obj "$PROGS/broken.bpf.o"
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == "Error: member xf_broken: "* ]]
}

@test "bad objects get a clear error and change nothing, with or without a chain" {
	bad_objects
	# Nothing at all was made: no XDP, no pins, no copies.
	no_xdp veth1
	[[ ! -e $PIN_DIR && ! -e $RUN_DIR ]] ||
		fail "left: $(find "$PIN_DIR" "$RUN_DIR" 2>/dev/null | tr '\n' ' ')"
	run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name count
	prog=$(prog_id)
	bad_objects
	assert_equal "$(prog_id)" "$prog"
	assert_equal "$(members)" "count"
	assert_equal "$(ls "$IF_PIN/maps")" "count"
	# The member's copy and where it came from (for save), nothing else.
	assert_equal "$(ls "$RUN_DIR/${IF_PIN##*/}" | paste -sd ' ')" "count.o count.src"
	# The choice of a program among several works.
	run -0 xr chain add dev veth1 obj "$PROGS/tail.bpf.o" prog xf_tail
	assert_equal "$(members)" "count xf_tail"
	udp 20
	assert_equal "$(rx received)" 20
}

@test "a foreign XDP program on the interface is refused and left untouched" {
	run -0 ip -n "$XF_NS_R1" link set dev veth1 xdp obj "$PROGS/pass.bpf.o" sec xdp
	id=$(ip -n "$XF_NS_R1" -j -d link show dev veth1 | jq -er '.[0].xdp.prog.id')
	run -1 --separate-stderr xr chain add dev veth1 obj "$PROGS/count.bpf.o"
	assert_equal "$stderr" \
		"Error: veth1 already has XDP program $id (xf_pass) that is not an xfwd chain; detach it first."
	run -1 --separate-stderr xr chain del dev veth1 all
	assert_equal "${#stderr_lines[@]}" 1
	run -0 --separate-stderr xr -j chain show
	jq -e '.interfaces == []' <<<"$output"
	assert_equal "$(ip -n "$XF_NS_R1" -j -d link show dev veth1 | jq -er '.[0].xdp.prog.id')" "$id"
	[[ ! -e $PIN_DIR && ! -e $RUN_DIR ]]
	run -0 ip -n "$XF_NS_R1" link set dev veth1 xdp off
}

@test "del: a member takes its pins and copy; del all takes everything, the link too" {
	local ifx=${IF_PIN##*/}
	run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name a
	run -0 xr chain add dev veth1 obj "$PROGS/drop_udp.bpf.o" name b
	run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name c
	drop_port b $PORT
	run -0 xr chain set dev veth1 name a on drop goto c
	run -2 --separate-stderr xr chain del dev veth1 name c
	assert_equal "$stderr" "Error: member a goes to c on drop; change that rule first."
	run -2 --separate-stderr xr chain del dev veth1 name nosuch
	assert_equal "$stderr" 'Error: no member "nosuch" on veth1.'
	link=$(link_id)
	run -0 xr chain del dev veth1 name b
	assert_equal "$(members)" "a c"
	assert_equal "$(link_id)" "$link"
	[[ ! -e $IF_PIN/maps/b && ! -e $RUN_DIR/$ifx/b.o ]]
	[[ -e $IF_PIN/maps/a && -e $RUN_DIR/$ifx/a.o ]]
	udp 20
	assert_equal "$(rx received)" 20
	run -0 xr chain del dev veth1 all
	[[ ! -e $PIN_DIR && ! -e $RUN_DIR ]] ||
		fail "left: $(find "$PIN_DIR" "$RUN_DIR" 2>/dev/null | tr '\n' ' ')"
	no_xdp veth1
	run -0 --separate-stderr xr -j chain show
	jq -e '.interfaces == []' <<<"$output"
	run -1 --separate-stderr xr chain del dev veth1 all
	assert_equal "$stderr" "Error: veth1 has no xfwd chain."
	# The kernel forwards again, and the last member going takes all too.
	udp 20
	assert_equal "$(rx received)" 20
	run -0 xr chain add dev veth1 obj "$PROGS/pass.bpf.o" name only
	run -0 xr chain del dev veth1 name only
	no_xdp veth1
	[[ ! -e $PIN_DIR && ! -e $RUN_DIR ]]
}

@test "show -j: the documented keys, counters as numbers, rules only when set" {
	run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name a
	run -0 xr chain add dev veth1 obj "$PROGS/drop_udp.bpf.o" name b on pass stop on drop next
	udp 10
	run -0 --separate-stderr xr -j chain show
	assert_equal "$stderr" ""
	jq -e . <<<"$output" >/dev/null || fail "not JSON: $output"
	run -0 jq -r '.interfaces[0] | keys_unsorted | join(" ")' <<<"$output"
	assert_output "dev ifindex mode prog_id link_id members chain"
	run -0 --separate-stderr xr -j chain show dev veth1
	j=$output
	run -0 jq -r '.interfaces[0].chain[0] | keys_unsorted | join(" ")' <<<"$j"
	assert_output "name prog aborted drop pass tx redirect other"
	run -0 jq -r '.interfaces[0].chain[1] | keys_unsorted | join(" ")' <<<"$j"
	assert_output "name prog aborted drop pass tx redirect other rules"
	jq -e --arg ifx "${IF_PIN##*/}" '.interfaces[0] | .dev == "veth1" and
		.ifindex == ($ifx | tonumber) and .mode == "native" and .members == 2 and
		(.chain | length) == 2 and (.prog_id | type) == "number" and
		(.link_id | type) == "number" and .chain[0].prog == "xf_count" and
		.chain[1].rules == "on drop next on pass stop" and
		([.chain[] | .aborted, .drop, .pass, .tx, .redirect, .other | type] | unique) ==
		["number"] and .chain[0].pass >= 10' <<<"$j"
	# The ids are the kernel's: the program on veth1 and its link.
	assert_equal "$(jq -r '.interfaces[0].prog_id' <<<"$j")" \
		"$(ip -n "$XF_NS_R1" -j -d link show dev veth1 | jq -er '.[0].xdp.prog.id')"
	# (bpftool 7.5 exits 255 after showing a link by id; in r1, so that it
	# names the device.)
	run ip netns exec "$XF_NS_R1" bpftool -j link show id "$(jq -r '.interfaces[0].link_id' <<<"$j")"
	jq -e --argjson p "$(jq '.interfaces[0].prog_id' <<<"$j")" '.type == "xdp" and
		.prog_id == $p and .devname == "veth1"' <<<"$output"
	# The table has the same rows.
	run -0 xr chain show
	assert_line --regexp '^ +a +xf_count( +[0-9]+){6} +-$'
	assert_line --regexp '^ +b +xf_drop_udp( +[0-9]+){6} +on drop next on pass stop$'
}

@test "usage errors exit 2 with one Error line and change nothing" {
	local c=$PROGS/count.bpf.o args
	run -0 xr chain add dev veth1 obj "$c" name a
	run -0 xr chain add dev veth1 obj "$c" name b
	prog=$(prog_id)
	while IFS= read -r args; do
		run -2 --separate-stderr xr chain $args
		assert_output ""
		assert_equal "${#stderr_lines[@]}" 1
		[[ $stderr == "Error: "* ]] || fail "chain $args: $stderr"
	done <<EOF
add dev veth1
add obj $c
add dev veth1 obj $c name
add dev veth1 obj $c on bogus next
add dev veth1 obj $c on drop jump
add dev veth1 obj $c on drop goto
add dev veth1 obj $c on drop next on drop stop
add dev veth1 obj $c name 0123456789abcdef
add dev veth1 obj $c name ..
add dev veth1 obj $c name .
add dev veth1 obj $c name ../x
add dev veth1 obj $c name a/b
add dev veth1 obj $c name .b
add dev veth1 obj $c first last
add dev veth1 obj $c sec xdp prog xf_count
add dev veth1 obj $c after nosuch
add dev veth1 obj $c name a
add dev veth1 obj $c bogus
set dev veth1 name a
set dev veth1 name nosuch on drop stop
set dev veth1 name a on drop goto nosuch
order dev veth1
order dev veth1 a
order dev veth1 a a
order dev veth1 a nosuch
order dev veth1 b a c
del dev veth1
del dev veth1 name a all
del dev veth1 name nosuch
show bogus
frob
EOF
	assert_equal "$(prog_id)" "$prog"
	assert_equal "$(members)" "a b"
}

# bats test_tags=guest
@test "route and a filter share one interface through the chain" {
	xdp_ready
	# XDP-redirected UDP keeps a checksum that offload never finished.
	in_h1 ethtool -K veth0 tx off txvlan off tx-vlan-stag-hw-insert off >/dev/null
	run -0 xr route attach dev veth1 dev veth2 hook xdp
	assert_equal "$(members)" "route"
	filter_before_route
	run -0 xr route get "$XF_H2_IP4" iif veth1
	assert_line --regexp '^verdict: +XDP_REDIRECT$'
	# route leaves the chain; the filter stays and keeps dropping.
	run -0 xr route detach all
	assert_equal "$(members)" "filter"
	udp 20
	assert_equal "$(rx received)" 0
}

@test "chain del leaves route's member to route: refused by name, kept by del all, taken by route detach" {
	xdp_ready
	in_h1 ethtool -K veth0 tx off txvlan off tx-vlan-stag-hw-insert off >/dev/null
	run -0 xr route attach dev veth1 dev veth2 hook xdp
	run -0 xr chain add dev veth1 obj "$PROGS/count.bpf.o" name c last
	run -0 xr chain set dev veth1 name route on pass goto c
	assert_equal "$(members)" "route c"
	prog=$(prog_id)
	run -2 xr chain del dev veth1 name route
	assert_output --partial 'belongs to xfwd route'
	assert_equal "$(prog_id)" "$prog"
	# all: every member but route, whose goto to c is its default again.
	run -0 xr chain del dev veth1 all
	assert_equal "$(members)" "route"
	assert_equal "$(rules route)" ""
	fwd=$(ctr veth1 forwarded)
	udp 40
	assert_equal "$(rx received)" 40
	(($(ctr veth1 forwarded) >= fwd + 40)) || fail "route forwarded $(ctr veth1 forwarded)"
	# A second del all has nothing of its own to take.
	run -0 xr chain del dev veth1 all
	assert_equal "$(members)" "route"
	# route takes its member, and the chain with it.
	run -0 xr route detach all
	run -0 xr -j chain show
	assert_equal "$(jq -c '.interfaces' <<<"$output")" '[]'
}
