#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Every show command's -j output is pure JSON on stdout with stable keys,
# also in batch mode (one document a line).
bats_require_minimum_version 1.8.2
# bats file_tags=root

setup_file() {
	[[ $EUID -eq 0 ]] || skip "needs root"
	load helpers/common
	topo_create
}

teardown_file() {
	load helpers/common
	ip netns exec "${XF_NS_R1:-none}" "$BATS_TEST_DIRNAME/../build/xfwd" route detach all \
		2>/dev/null || true
	topo_destroy
}

setup() {
	load helpers/common
	_common_setup
}

# json ARGS...: run xfwd -j ARGS in r1; stdout must parse, stderr be empty.
json() {
	run -0 --separate-stderr xfwd -n "$XF_NS_R1" -j "$@"
	assert_equal "$stderr" ""
	jq -e . <<<"$output" >/dev/null || fail "not JSON: $output"
}

@test "feature -j: kernel probes and interfaces with fixed keys" {
	json feature
	run -0 jq -r '.kernel | keys_unsorted | join(" ")' <<<"$output"
	assert_output "jit xdp_link tcx cls_bpf netkit vlan freplace fib_lookup fib_direct fib_output fib_skip_neigh fib_tbid fib_src fib_mark redirect redirect_map redirect_peer redirect_neigh clone_redirect peer_egress xdp_flowtable xdp_tracepoints kern_ctx"
	json feature show dev veth1
	run -0 jq -r '.interfaces[0] | keys_unsorted | join(" ")' <<<"$output"
	assert_output "dev ifindex kind xdp_native xdp_generic xdp_attached xdp_features redirect_target detail"
}

@test "show -j: an empty set is a document with an empty list" {
	# The contract route.bats relies on too: never empty output.
	run -0 --separate-stderr xfwd -n "$XF_NS_R1" -j route show
	assert_equal "$stderr" ""
	assert_output '{"interfaces":[]}'
	run -0 --separate-stderr xfwd -n "$XF_NS_R1" -j chain show
	assert_output '{"interfaces":[]}'
	run -0 --separate-stderr xfwd -n "$XF_NS_R1" -j redirect show
	assert_output '{"rules":[]}'
}

@test "route show and get -j: keys and raw integers" {
	run -0 xfwd -n "$XF_NS_R1" route attach dev veth1 dev veth2
	json route show
	run -0 jq -r '.interfaces[0] | keys_unsorted | join(" ")' <<<"$output"
	assert_output "dev ifindex hook mode family lookup prog_id forwarded forwarded_bytes passed passed_bytes why netfilter skips pass_reasons"
	json route show dev veth2
	jq -e '.interfaces | length == 1 and (.[0].forwarded | type == "number")' <<<"$output"
	json route get "$XF_H2_IP4" iif veth1 ttl 1
	jq -e '.reason == "ttl" and .verdict == "TC_ACT_UNSPEC" and (.prog_id | type == "number")' \
		<<<"$output"
	run -0 xfwd -n "$XF_NS_R1" route detach all
}

@test "batch -j: one JSON document per command, one per line" {
	run -0 --separate-stderr bash -c "printf 'feature show dev veth1\nfeature show dev veth2\n' |
		xfwd -n '$XF_NS_R1' -j -b -"
	assert_equal "${#lines[@]}" 2
	jq -e '.interfaces[0].dev == "veth1"' <<<"${lines[0]}"
	jq -e '.interfaces[0].dev == "veth2"' <<<"${lines[1]}"
}

@test "-p indents the JSON" {
	run -0 xfwd -n "$XF_NS_R1" -p feature show dev veth1
	assert_line '{'
	assert_line --regexp '^  "kernel": \{$'
}

@test "a failed command prints nothing on stdout in JSON mode" {
	run -1 --separate-stderr xfwd -n "$XF_NS_R1" -j feature show dev nosuch0
	assert_equal "$output" ""
	[[ $stderr == Error:* ]]
}
