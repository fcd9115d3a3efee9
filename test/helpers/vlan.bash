# SPDX-License-Identifier: GPL-2.0
# Helpers of test/vlan.bats: h1 -- r1 -- h2 with 802.1Q devices on the
# links (real ones: "ip link add ... type vlan"), in the shapes of issue 17.
# Needs scripts/topo.bash and test/helpers/route.bash loaded.

# need_vlan: on a kernel without 802.1Q the test ends as skipped, naming
# what is missing (bats reports it); test 1 checks that feature says so.
need_vlan() {
	if kernel_lacks vlan; then
		skip "this kernel has no 802.1Q (CONFIG_VLAN_8021Q, module 8021q): \"xfwd feature\" says vlan: no"
	fi
}

# vlan_dev NS PARENT ID: PARENT.ID, up.
vlan_dev() {
	ip -n "$1" link add link "$2" name "$2.$3" type vlan id "$3"
	ip -n "$1" link set "$2.$3" up
}

# vlan_addrs NS DEV IP4 IP6: move the test's addresses of NS onto DEV
# (after flushing the global ones from where they were).
vlan_addrs() {
	ip -n "$1" addr add "$3/24" dev "$2"
	ip -n "$1" addr add "$4/64" dev "$2" nodad
}

# vlan_side N ID: host N (1: h1, 2: h2) talks to r1 tagged ID, hN's
# veth0.ID -- r1's vethN.ID, with the addresses of that side; the untagged
# veth0/vethN keep no global address.
vlan_side() {
	local ns=XF_NS_H$1 r1dev=veth$1 h4=XF_H$1_IP4 h6=XF_H$1_IP6 ab
	ab=$([[ $1 == 1 ]] && echo A || echo B)
	local r4=XF_R1_IP4$ab r6=XF_R1_IP6$ab
	ip -n "${!ns}" addr flush dev veth0 scope global
	ip -n "$XF_NS_R1" addr flush dev "$r1dev" scope global
	vlan_dev "${!ns}" veth0 "$2"
	vlan_dev "$XF_NS_R1" "$r1dev" "$2"
	vlan_addrs "${!ns}" "veth0.$2" "${!h4}" "${!h6}"
	vlan_addrs "$XF_NS_R1" "$r1dev.$2" "${!r4}" "${!r6}"
	ip -n "${!ns}" route replace default via "${!r4}"
	ip -n "${!ns}" -6 route replace default via "${!r6}"
}

# vlan_stick ID: router on a stick. h2 moves onto h1's trunk: h1's
# veth0.ID, moved into h2's namespace, is h2's link, and r1 routes between
# veth1.<h1's id> and veth1.ID on the one trunk veth1. veth2 is unused.
vlan_stick() {
	ip -n "$XF_NS_H2" addr flush dev veth0 scope global
	ip -n "$XF_NS_R1" addr flush dev veth2 scope global
	ip -n "$XF_NS_H1" link add link veth0 name "h2.$1" type vlan id "$1"
	ip -n "$XF_NS_H1" link set "h2.$1" netns "$XF_NS_H2"
	ip -n "$XF_NS_H2" link set "h2.$1" up
	vlan_dev "$XF_NS_R1" veth1 "$1"
	vlan_addrs "$XF_NS_H2" "h2.$1" "$XF_H2_IP4" "$XF_H2_IP6"
	vlan_addrs "$XF_NS_R1" "veth1.$1" "$XF_R1_IP4B" "$XF_R1_IP6B"
	ip -n "$XF_NS_H2" route replace default via "$XF_R1_IP4B"
	ip -n "$XF_NS_H2" -6 route replace default via "$XF_R1_IP6B"
}

# vlan_ready: no IPv6 address of the three namespaces is tentative.
vlan_ready() {
	local ns
	for ns in "$XF_NS_H1" "$XF_NS_R1" "$XF_NS_H2"; do
		[[ -z $(ip -n "$ns" -6 addr show tentative) ]] || return
	done
}

# vlan_pings N [ARGS]: N IPv4 and N IPv6 echo requests from h1 to h2, all
# answered.
vlan_pings() {
	run -0 ping4 "$1" "$XF_H2_IP4" -q "${@:2}"
	assert_output --partial "$1 packets transmitted, $1 received"
	run -0 ping6 "$1" "$XF_H2_IP6" -q "${@:2}"
	assert_output --partial "$1 packets transmitted, $1 received"
}

# vlan_refused DEV: on a kernel without tcx, attaching a VLAN device on
# hook tc is refused with the reason and nothing changes.
vlan_refused() {
	run -1 --separate-stderr xr route attach dev "$1" hook tc
	assert_equal "$stderr" "Error: hook tc needs tcx (Linux 6.6 or later), which this kernel lacks; use hook xdp."
	run -0 xr -j route show
	assert_output '{"interfaces":[]}'
}

# vlan_no_hook HOOK: HOOK cannot be tested here (tc without tcx). It only
# decides; the test then checks the refusal outside the condition (where
# errexit holds) and ends:
#	if vlan_no_hook "$hook"; then vlan_refused DEV; return; fi
vlan_no_hook() {
	[[ $1 == tc ]] && kernel_lacks tcx
}

# vlan_attach HOOK DEV...: the devices on HOOK (after warm_up; the hosts
# made ready for xdp first).
vlan_attach() {
	local hook=$1 a=()
	shift
	[[ $hook != xdp ]] || xdp_ready
	warm_up
	for d in "$@"; do a+=(dev "$d"); done
	run -0 xr route attach "${a[@]}" hook "$hook"
}

# vlan_h1_tagged: h1 tagged 100 -- r1 -- h2 untagged (where the kernel
# has 802.1Q: need_vlan), the addresses ready.
vlan_h1_tagged() {
	need_vlan
	vlan_side 1 100
	wait_until 5 vlan_ready
}

# vlan_module_out: 8021q unloaded, for a route program loaded before it
# (polled: the namespaces of earlier tests go away in the background, and
# their VLAN devices hold the module). The test ends as skipped where it
# is built in. vlan_module_in (teardown) loads it again, in a guest from
# test/vm/run's modules (XF_VM_MODULES).
vlan_module_out() {
	[[ -e /sys/module/8021q/refcnt ]] ||
		skip "8021q is built into this kernel: no program loads before it"
	VLAN_MODULE_OUT=1
	wait_until "$(vm_slow 10)" rmmod 8021q 2>/dev/null
}

vlan_module_in() {
	[[ -e /sys/module/8021q ]] || modprobe ${XF_VM_MODULES:+-d "$XF_VM_MODULES"} 8021q
}

# vlan_lost CMD...: after CMD, three echo requests of each family from h1
# go unanswered, and none of them reaches h2.
vlan_lost() {
	local before before6
	before=$(kstat "$XF_NS_H2" IcmpInEchos)
	before6=$(kstat "$XF_NS_H2" Icmp6InEchos)
	"$@"
	run -1 ping4 3 "$XF_H2_IP4" -q
	run -1 ping6 3 "$XF_H2_IP6" -q
	assert_equal "$(kstat "$XF_NS_H2" IcmpInEchos)" "$before"
	assert_equal "$(kstat "$XF_NS_H2" Icmp6InEchos)" "$before6"
}

# vlan_copies_exact [DEV...]: every IN entry of xf_rt_vlan, and of its copy
# xf_rt_vlc, carries its VLAN device's xf_rt_ifcfg entry or zeros (which
# only pass: all a device without an entry may carry, and what a change
# killed half-way may leave). Each DEV, a VLAN device of r1 attached and
# settled, has its tag in both, carrying its own entry, which is not
# zeros. Read by the maps' BTF (struct xf_route_vlan's cfg); an OUT key
# has bit 63.
vlan_copies_exact() {
	local d dev want=()
	for dev in "$@"; do
		want+=("$(ip -n "$XF_NS_R1" -j link show dev "$dev" | jq -er '.[0].ifindex')") ||
			return
	done
	d=$(pin_dir)/route
	printf 'map dump pinned %s\n' "$d/xf_rt_vlan" "$d/xf_rt_ifcfg" "$d/xf_rt_vlc" |
		bpftool -j batch file - | jq -e --arg want "${want[*]}" '
		def zero: [.. | numbers] | all(. == 0);
		[.[] | select(.command) | .output | map(.formatted // error("no BTF"))] as [$vlan, $cfg, $vlc] |
		($cfg | map({key: (.key | tostring), value}) | from_entries) as $c |
		[$vlan[] | select(.key < 9223372036854775808) | .value] as $in |
		[$vlc[] | .value | select(.key != 0 and .key < 9223372036854775808) | .v] as $inc |
		([$in[], $inc[]] | map(.cfg == $c[.ifindex | tostring] or (.cfg | zero)) | all) and
		([$want | splits(" ") | select(. != "")] | map(. as $i | $c[$i] as $e |
			$e != null and ($e | zero | not) and
			([$in[], $inc[] | select((.ifindex | tostring) == $i) | .cfg == $e] == [true, true])) |
			all)' >/dev/null
}
