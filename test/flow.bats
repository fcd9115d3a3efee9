#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# xfwd route ... lookup flowtable: only flows that nftables put in a
# flowtable are forwarded, and they leave as the kernel's own flowtable
# path sends them. h1 -- r1 -- h2 as in route.bats, with an nftables
# flowtable on r1's veth1 and veth2. Where the kernel has no
# bpf_xdp_flow_lookup() (6.1; 6.18 without NF_FLOW_TABLE) each test checks
# the refusal and its reason instead; the traffic runs in the 7.2 guest
# (make check-kernels).
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/common
load helpers/route

FLOWS=$BATS_TEST_DIRNAME/fixtures/flows.py

setup_file() {
	_need_root
}

setup() {
	route_setup
	WORK=$(mktemp -d)
	BG_PIDS=()
}

teardown() {
	kill_bg
	[[ -z ${WORK:-} ]] || rm -rf "$WORK"
	route_teardown
}

# ft_rules [FORWARD_RULE [CHAIN]]: r1's ruleset: a flowtable on veth1 and
# veth2, and a forward chain that puts TCP and UDP flows in it after
# FORWARD_RULE; CHAIN is one more chain of the table.
ft_rules() {
	ip netns exec "$XF_NS_R1" nft -f - <<-EOF
	table inet xf {
		flowtable ft {
			hook ingress priority 0
			devices = { veth1, veth2 }
		}
		chain forward_ft {
			type filter hook forward priority 0; policy accept;
			${1:-}
			meta l4proto { tcp, udp } flow add @ft
		}
		${2:-}
	}
	EOF
}

# ft_lacks: the kernel cannot run lookup flowtable; ft_refused checks that
# attach says so, with the reason, and changes nothing.
ft_lacks() {
	kernel_lacks xdp_flowtable
}

ft_refused() {
	xdp_ready
	run -1 --separate-stderr xr route attach dev veth1 dev veth2 hook xdp lookup flowtable
	assert_output ""
	assert_regex "$stderr" '^Error: lookup flowtable needs bpf_xdp_flow_lookup\(\), which this kernel cannot give: .+\.$'
	case $(uname -r) in
	6.1.*) assert_regex "$stderr" 'nf_flow_table has no bpf_xdp_flow_lookup\(\) kfunc \(Linux 6\.9\)' ;;
	6.18.*) assert_regex "$stderr" 'kernel built without NF_FLOW_TABLE' ;;
	esac
	run -0 no_hooks veth1 veth2
	run -0 xr -j route show
	assert_output '{"interfaces":[]}'
}

# jqr FILTER: one raw value of $json.
jqr() {
	run -0 jq -r "$1" <<<"$json"
}

# serve: the echo servers in h2, for 60 s at most (more under emulation).
serve() {
	in_h2 /usr/bin/python3 "$FLOWS" serve "$(vm_slow 20)" "$WORK" &
	BG_PIDS+=($!)
	wait_until "$(vm_slow 5)" test -e "$WORK/ready"
}

# ft_attach: the flowtable ruleset's fast path on veth1 and veth2.
ft_attach() {
	run -0 --separate-stderr attach xdp lookup flowtable
	[[ -z $stderr ]] || fail "attach: $stderr"
}

@test "lookup flowtable: feature probes the kfunc; attach refuses with the reason where it is missing" {
	run -0 xr -j feature
	json=$output
	if ft_lacks; then
		jqr '.kernel.xdp_flowtable.supported'
		assert_output false
		ft_refused
		return
	fi
	jqr '.kernel.xdp_flowtable | "\(.supported) \(.detail)"'
	assert_output "true bpf_xdp_flow_lookup() available to XDP programs"
	ft_rules
	ft_attach
	run -0 xr -j route show dev veth1
	json=$output
	jqr '.interfaces[0] | "\(.hook) \(.lookup)"'
	assert_output "xdp flowtable"
}

@test "lookup flowtable: hook tc is refused, the kernel's flowtable already runs at ingress" {
	run -2 --separate-stderr xr route attach dev veth1 dev veth2 hook tc lookup flowtable
	assert_output ""
	assert_equal "$stderr" "Error: lookup flowtable is for hook xdp: on hook tc the kernel's own flowtable already forwards at ingress."
	run -0 no_hooks veth1 veth2
}

@test "lookup flowtable: a TCP flow (IPv4) and a UDP flow (IPv6) are forwarded once in the flowtable" {
	if ft_lacks; then ft_refused; return; fi
	ft_rules
	warm_up
	ft_attach
	serve
	run -0 in_h1 /usr/bin/python3 "$FLOWS" tcp "$XF_H2_IP4" 40 fin
	assert_output 40
	run -0 in_h1 /usr/bin/python3 "$FLOWS" udp "$XF_H2_IP6" 40
	assert_output 40
	# The first packets of each flow go to the kernel, which offloads the
	# flow; from then on the fast path has both directions.
	for dev in veth1 veth2; do
		run -0 ctr "$dev" flow_miss
		((output > 0))
		run -0 ctr "$dev" forwarded
		echo "$dev forwarded $output"
		((output >= 60))
	done
}

@test "lookup flowtable: a flow that the firewall drops is never forwarded" {
	if ft_lacks; then ft_refused; return; fi
	ft_rules "udp dport 5001 drop"
	warm_up
	ft_attach
	serve
	run -0 in_h1 /usr/bin/python3 "$FLOWS" udp "$XF_H2_IP4" 5
	assert_output 0
	run -0 ctr veth1 forwarded
	assert_output 0
	run -0 ctr veth1 flow_miss
	((output >= 5))
	# What the ruleset accepts is forwarded on the same interfaces.
	run -0 in_h1 /usr/bin/python3 "$FLOWS" tcp "$XF_H2_IP4" 20 fin
	assert_output 20
	run -0 ctr veth1 forwarded
	((output > 0))
}

# masq_run NAME: the same 30 frames from h1 to h2 port 5001, then the same
# 30 answers from h2 to the masquerading address, captured as they reach h2
# (requests after SNAT) and h1 (answers after the reverse NAT) in
# WORK/NAME.h2 and WORK/NAME.h1. Hand-made on both sides, so that only
# r1 can make two runs differ.
masq_run() {
	local n=30 c
	for c in h2 h1; do
		"in_$c" /usr/bin/python3 "$FLOWS" capture veth0 \
			"$([[ $c == h2 ]] && echo 5001 || echo 40001)" "$n" "$(vm_slow 10)" \
			"$WORK/$1.$c" &
		BG_PIDS+=($!)
		wait_until "$(vm_slow 5)" test -e "$WORK/$1.$c.ready"
	done
	in_h1 /usr/bin/python3 "$FLOWS" send veth0 "$(mac "$XF_NS_R1" veth1)" \
		"$(mac "$XF_NS_H1" veth0)" "$XF_H1_IP4" "$XF_H2_IP4" 40001 5001 "$n"
	in_h2 /usr/bin/python3 "$FLOWS" send veth0 "$(mac "$XF_NS_R1" veth2)" \
		"$(mac "$XF_NS_H2" veth0)" "$XF_H2_IP4" "$XF_R1_IP4B" 5001 40001 "$n"
	wait_until "$(vm_slow 10)" masq_got "$1" "$n"
}

# masq_got NAME N: both captures of masq_run NAME have N frames.
masq_got() {
	(($(wc -l <"$WORK/$1.h2") == $2 && $(wc -l <"$WORK/$1.h1") == $2))
}

# bats test_tags=guest
@test "lookup flowtable: a masqueraded flow leaves byte for byte as from the kernel's flowtable" {
	if ft_lacks; then ft_refused; return; fi
	ft_rules "" "chain postrouting_nat {
			type nat hook postrouting priority srcnat; policy accept;
			oifname veth2 masquerade
		}"
	warm_up
	xdp_ready
	# The kernel alone: its slow path for the first packets, then its
	# flowtable.
	masq_run kernel
	# The same frames with the fast path in front of the flowtable.
	ft_attach
	run -0 ctr veth1 forwarded
	local before1=$output
	masq_run xdp
	# All but the first few: the entry may have timed out in between
	# (30 s for UDP) under emulation, and is then made again.
	run -0 ctr veth1 forwarded
	((output - before1 >= 25))
	run -0 ctr veth2 forwarded
	((output >= 25))
	# Masqueraded: h2 sees r1's address, not h1's.
	run -0 head -c 60 "$WORK/xdp.h2"
	assert_output --partial "$(printf '%02x' ${XF_R1_IP4B//./ })"
	same_frames kernel.h2 xdp.h2
	same_frames kernel.h1 xdp.h1
}

# same_frames A B: two captures of WORK hold the same frames; else the
# first frames that differ are shown.
same_frames() {
	cmp -s "$WORK/$1" "$WORK/$2" && return
	diff "$WORK/$1" "$WORK/$2" | head -6
	fail "$1 and $2 differ"
}

@test "lookup flowtable: TCP FIN and RST reach the kernel, which ends the flow" {
	if ft_lacks; then ft_refused; return; fi
	ft_rules
	warm_up
	ft_attach
	serve
	run -0 in_h1 /usr/bin/python3 "$FLOWS" tcp "$XF_H2_IP4" 20 fin
	assert_output 20
	wait_until "$(vm_slow 3)" grep -qx eof "$WORK/tcp.log"
	run -0 ctr veth1 flow_fin_rst
	((output >= 1))
	run -0 in_h1 /usr/bin/python3 "$FLOWS" tcp "$XF_H2_IP4" 20 rst
	assert_output 20
	wait_until "$(vm_slow 3)" grep -qx reset "$WORK/tcp.log"
	run -0 ctr veth1 flow_fin_rst
	((output >= 2))
	run -0 ctr veth1 forwarded
	((output > 0))
}

# --- flow_proto and flow_xmit (issue 43: never tested) -------------------------

# bats test_tags=guest
@test "lookup flowtable: ICMP and the IPv4 fragments of a UDP datagram are passed as flow_proto" {
	local p0
	if ft_lacks; then ft_refused; return; fi
	ft_rules
	warm_up
	xdp_ready
	# IPv4 only: h1's IPv6 neighbour probes (ICMPv6) would count too.
	run -0 --separate-stderr xr route attach dev veth1 dev veth2 hook xdp lookup flowtable family inet
	assert_equal "$stderr" ""
	p0=$(ctr veth1 flow_proto)
	run -0 ping4 5 "$XF_H2_IP4" -q
	assert_output --partial "5 packets transmitted, 5 received"
	wait_until "$(vm_slow 3)" ctr_ge veth1 flow_proto $((p0 + 5)) || true
	assert_equal "$(ctr veth1 flow_proto)" $((p0 + 5))
	# 3000 bytes of UDP: h1 sends three fragments (1480, 1480 and 48
	# bytes of the 3008), which no flowtable holds, even of a UDP flow.
	in_h1 /usr/bin/python3 -c 'import socket, sys
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x" * 3000, (sys.argv[1], 5001))' "$XF_H2_IP4"
	wait_until "$(vm_slow 3)" ctr_ge veth1 flow_proto $((p0 + 8)) || true
	assert_equal "$(ctr veth1 flow_proto)" $((p0 + 8))
	assert_equal "$(ctr veth1 forwarded)" 0
}

# raw_udp FROM N: N frames of the one UDP flow h1:40001 <-> h2:5001, from
# h1 (FROM 1) or h2's answers (FROM 2), the same bytes on every run, so
# that every run is the same flow (flows.py send).
raw_udp() {
	if (($1 == 1)); then
		in_h1 /usr/bin/python3 "$FLOWS" send veth0 "$(mac "$XF_NS_R1" veth1)" \
			"$(mac "$XF_NS_H1" veth0)" "$XF_H1_IP4" "$XF_H2_IP4" 40001 5001 "$2"
	else
		in_h2 /usr/bin/python3 "$FLOWS" send veth0 "$(mac "$XF_NS_R1" veth2)" \
			"$(mac "$XF_NS_H2" veth0)" "$XF_H2_IP4" "$XF_H1_IP4" 5001 40001 "$2"
	fi
}

# A flow in the flowtable whose route now goes elsewhere (here: a
# blackhole route for h2) is left to the kernel, which tears it down and
# drops the packet as the new route says; the fast path must not forward
# it on the route the entry cached.
# bats test_tags=guest
@test "lookup flowtable: a flow whose route changed under it is passed as flow_xmit, not forwarded" {
	local f0 x0 in0
	if ft_lacks; then ft_refused; return; fi
	ft_rules
	warm_up
	ft_attach
	# h1's first datagrams and h2's answers make the flow established, and
	# the forward chain puts it in the flowtable; h1's next are forwarded.
	raw_udp 1 3
	raw_udp 2 3
	raw_udp 1 5
	wait_until "$(vm_slow 3)" ctr_ge veth1 forwarded 1 || true
	run -0 ctr veth1 forwarded
	((output >= 1)) || fail "the flow was never forwarded on the fast path"
	ip -n "$XF_NS_R1" route add blackhole "$XF_H2_IP4/32"
	f0=$(ctr veth1 forwarded)
	x0=$(ctr veth1 flow_xmit)
	in0=$(kstat "$XF_NS_H2" IpInReceives)
	raw_udp 1 3
	wait_until "$(vm_slow 3)" ctr_ge veth1 flow_xmit $((x0 + 1)) || true
	run -0 ctr veth1 flow_xmit
	((output > x0)) || fail "flow_xmit did not move: $output"
	assert_equal "$(ctr veth1 forwarded)" "$f0"
	assert_equal "$(kstat "$XF_NS_H2" IpInReceives)" "$in0"
}
