# SPDX-License-Identifier: GPL-2.0
# The guests' virtio-net NICs (test/vm/run: six, paired by qemu hubs,
# MAC 52:54:00:18:HUB:END), moved into a test's namespaces. Needs
# scripts/topo.bash and test/helpers/route.bash loaded.

# nic_find MAC: the name of the NIC whose own MAC is MAC in the root
# namespace, or "": a test may have given it another (hostile_topo does),
# which it keeps when it comes back; ip shows the own one as permaddr then.
nic_find() {
	ip -o link show | awk -v m="link/ether $1 " -v p="permaddr $1" '
		index($0, m) || index($0 " ", p " ") { sub(/:$/, "", $2); print $2; exit }'
}

nic_here() {
	[[ -n $(nic_find "$1") ]]
}

# nic_skip: the test ends as skipped where there are no NICs (not in a
# guest of make check-kernels).
nic_skip() {
	if [[ -z ${XF_VM:-} ]]; then
		skip "no virtio-net NICs here: they are in the guests of make check-kernels (test/vm/run)"
	fi
}

# nic_wait: the six NICs back in the root namespace (a test's namespace
# gives them back when it goes, moments after its end).
nic_wait() {
	local m
	for m in 00:01 00:02 01:01 01:02 02:01 02:02; do
		wait_until 10 nic_here "52:54:00:18:$m"
	done
}

need_nics() {
	nic_skip
	nic_wait
}

# nic_move HUB:END NS NAME: that NIC into NS as NAME, up.
nic_move() {
	local dev
	dev=$(nic_find "52:54:00:18:$1")
	ip link set "$dev" netns "$2"
	ip -n "$2" link set "$dev" name "$3"
	# A NIC comes back from a test's namespace as that test left it: the
	# MTU 9000 of nic.bats's jumbo test would refuse the next test's
	# programs that are not xdp.frags.
	ip -n "$2" link set "$3" mtu 1500 up
}

# nic_addrs NS DEV IP4 IP6 [GW4 GW6]
nic_addrs() {
	ip -n "$1" addr add "$3/24" dev "$2"
	ip -n "$1" addr add "$4/64" dev "$2" nodad
	if [[ -n ${5:-} ]]; then
		ip -n "$1" route add default via "$5"
		ip -n "$1" -6 route add default via "$6"
	fi
}

# nic_side1 [H1DEV R1DEV]: topo_create's veth pair of h1 -- r1 replaced by
# hub 0's NICs with its addresses and routes, named H1DEV and R1DEV
# (default nic0, nic1).
nic_side1() {
	local h=${1:-nic0} r=${2:-nic1}
	ip -n "$XF_NS_H1" link del veth0
	nic_move 00:01 "$XF_NS_H1" "$h"
	nic_move 00:02 "$XF_NS_R1" "$r"
	nic_addrs "$XF_NS_H1" "$h" "$XF_H1_IP4" "$XF_H1_IP6" "$XF_R1_IP4A" "$XF_R1_IP6A"
	nic_addrs "$XF_NS_R1" "$r" "$XF_R1_IP4A" "$XF_R1_IP6A"
}

# nic_side2 [R1DEV H2DEV]: the same for r1 -- h2 and hub 1 (default nic2,
# nic3).
nic_side2() {
	local r=${1:-nic2} h=${2:-nic3}
	ip -n "$XF_NS_H2" link del veth0
	nic_move 01:01 "$XF_NS_R1" "$r"
	nic_move 01:02 "$XF_NS_H2" "$h"
	nic_addrs "$XF_NS_R1" "$r" "$XF_R1_IP4B" "$XF_R1_IP6B"
	nic_addrs "$XF_NS_H2" "$h" "$XF_H2_IP4" "$XF_H2_IP6" "$XF_R1_IP4B" "$XF_R1_IP6B"
}

# nic_as_veths: both sides on NICs under the veths' names (h1 veth0 -- r1
# veth1, r1 veth2 -- h2 veth0), so that helpers written for the veths run
# on a real driver.
nic_as_veths() {
	nic_side1 veth0 veth1
	nic_side2 veth2 veth0
}
