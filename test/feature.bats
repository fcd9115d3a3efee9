#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# xfwd feature: the kernel probes and the per-interface XDP answers, as each
# kernel really gives them: this machine's 6.18, and under qemu Debian's 7.2
# and 6.1 (make check-kernels; what each lacks: kernel_lacks in helpers).
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/common

KERNEL_KEYS="clone_redirect cls_bpf fib_direct fib_lookup fib_mark fib_output \
fib_skip_neigh fib_src fib_tbid freplace jit kern_ctx netkit peer_egress redirect \
redirect_map redirect_neigh redirect_peer tcx vlan xdp_flowtable xdp_link \
xdp_tracepoints"

setup_file() {
	_need_root
	topo_create
}

teardown_file() {
	topo_destroy
}

setup() {
	_common_setup
}

# feature_json [ARGS...]: run "xfwd -n r1 -j feature ARGS" into $json; stdout
# must be pure JSON and stderr empty.
feature_json() {
	run -0 --separate-stderr xfwd -n "$XF_NS_R1" -j feature "$@"
	[[ -z $stderr ]]
	json=$output
	run -0 jq -e . <<<"$json"
}

# jqr FILTER: one raw value of $json.
jqr() {
	run -0 jq -r "$1" <<<"$json"
}

# bats test_tags=guest
@test "every kernel probe has a stable key, a yes/no and a reason" {
	feature_json
	jqr '.kernel | keys | join(" ")'
	assert_output "$(tr -s ' ' <<<"$KERNEL_KEYS")"
	jqr '[.kernel[] | (.supported | type == "boolean") and
	      (.detail | type == "string" and length > 0)] | all'
	assert_output true
	jqr '[.kernel[] | .detail == "not probed"] | any'
	assert_output false
}

# bats test_tags=guest
@test "this kernel: every probe answers as the kernel is known to be (helpers kernel_lacks)" {
	local key want
	feature_json
	for key in $KERNEL_KEYS; do
		want=true
		kernel_lacks "$key" && want=false
		jqr ".kernel.$key.supported"
		assert_equal "$key $output" "$key $want"
	done
}

# bats test_tags=guest
@test "redirect_peer egress flag: where the kernel lacks it, no: the helper would drop" {
	feature_json
	jqr '.kernel.peer_egress.supported'
	if ! kernel_lacks peer_egress; then
		assert_output true
		return
	fi
	assert_output false
	jqr '.kernel.peer_egress.detail'
	assert_output --partial "TC_ACT_SHOT"
}

@test "freplace: where the kernel refuses it, the reason is EPERM" {
	feature_json
	jqr '.kernel.freplace.supported'
	if ! kernel_lacks freplace; then
		assert_output true
		return
	fi
	assert_output false
	jqr '.kernel.freplace.detail'
	assert_output --partial "EPERM"
}

# bats test_tags=guest
@test "netkit: yes where the kernel has the device type, else EOPNOTSUPP" {
	feature_json
	jqr '.kernel.netkit.supported'
	if ! kernel_lacks netkit; then
		assert_output true
		jqr '.kernel.netkit.detail'
		assert_output "a netkit pair can be created"
		return
	fi
	assert_output false
	jqr '.kernel.netkit.detail'
	assert_output --partial "EOPNOTSUPP"
}

# bats test_tags=guest
@test "tcx and fib_mark: yes with a reason free of errors, or EINVAL where the kernel lacks them (6.1)" {
	local key
	feature_json
	for key in tcx fib_mark; do
		jqr ".kernel.$key | \"\\(.supported) \\(.detail)\""
		if kernel_lacks "$key"; then
			assert_output --regexp "^false .*EINVAL"
		else
			assert_output --regexp "^true "
			refute_output --regexp "E[A-Z]{3,}"
		fi
	done
}

# without_kctx_caps CMD...: CMD in r1's namespace as root without
# CAP_PERFMON and CAP_SYS_ADMIN, so that it reads no kernel memory.
without_kctx_caps() {
	nsenter --net="/run/netns/$XF_NS_R1" setpriv --inh-caps=-all --ambient-caps=-all \
		--bounding-set=-perfmon,-sys_admin "$@"
}

@test "kern_ctx: the build route loads; no without CAP_PERFMON and CAP_SYS_ADMIN" {
	local local_table
	feature_json
	jqr '.kernel.kern_ctx | "\(.supported) \(.detail)"'
	if kernel_lacks kern_ctx; then
		assert_output --regexp "^false no bpf_cast_to_kern_ctx\(\)"
		return
	fi
	assert_output --regexp "^true "
	run -0 --separate-stderr without_kctx_caps xfwd -j feature
	json=$output
	jqr '.kernel.kern_ctx | "\(.supported) \(.detail)"'
	assert_output "false bpf_cast_to_kern_ctx() is there, but neither CAP_PERFMON nor CAP_SYS_ADMIN"
	# Where it says yes, attach loads the build with the IPv6 local
	# table's copy (route get: "addresses"; "lookup" without it).
	run -0 xfwd -n "$XF_NS_R1" route attach dev veth1 dev veth2 hook tc
	run -0 xfwd -n "$XF_NS_R1" -j route get "$XF_H2_IP6" iif veth1 from "$XF_H1_IP6"
	local_table=$(jq -r .local_table <<<"$output")
	run -0 xfwd -n "$XF_NS_R1" route detach all
	assert_equal "$local_table" addresses
}

# links NS: every link of NS (of the root namespace without NS) with its
# kind and any program attached, without counters.
links() {
	ip ${1:+-n "$1"} -d -o link show | sed -E 's/^[0-9]+: //'
}

@test "the probes leave nothing behind in any namespace" {
	local r1 root r1_tc
	r1=$(links "$XF_NS_R1")
	root=$(links)
	r1_tc=$(ip netns exec "$XF_NS_R1" bpftool net show)
	feature_json
	# The same links, kinds and XDP state in r1 and the root namespace,
	# and no tc or tcx program in r1.
	assert_equal "$(links "$XF_NS_R1")" "$r1"
	assert_equal "$(links)" "$root"
	assert_equal "$(ip netns exec "$XF_NS_R1" bpftool net show)" "$r1_tc"
	# The scratch namespace of the attach probes is gone with its process:
	# no process of this test's namespaces is left.
	run -0 ip netns pids "$XF_NS_R1"
	assert_output ""
}

# bats test_tags=guest
@test "both veths of r1 are listed with native and generic XDP" {
	feature_json
	jqr '[.interfaces[].dev] | sort | join(" ")'
	assert_output "lo veth1 veth2"
	for dev in veth1 veth2; do
		jqr ".interfaces[] | select(.dev == \"$dev\") |
		     [.kind, .xdp_native, .xdp_generic, .xdp_attached] | join(\" \")"
		if kernel_lacks xdp_features; then
			# Not reported (before 6.3): not known to be native.
			assert_output "veth false true none"
			jqr ".interfaces[] | select(.dev == \"$dev\") | .detail"
			assert_output "kernel does not report XDP features (Linux 6.3): unknown"
			continue
		fi
		assert_output "veth true true none"
		jqr ".interfaces[] | select(.dev == \"$dev\") | .xdp_features"
		assert_output --regexp '(^|,)basic(,|$)'
		assert_output --regexp '(^|,)redirect(,|$)'
	done
	jqr '.interfaces[] | select(.dev == "lo") | [.kind, .xdp_native] | join(" ")'
	assert_output "loopback false"
}

@test "feature show dev veth1 lists that interface only" {
	local ifindex
	ifindex=$(ip -n "$XF_NS_R1" -j link show veth1 | jq '.[0].ifindex')
	feature_json show dev veth1
	jqr '.interfaces | length'
	assert_output 1
	jqr '.interfaces[0] | "\(.dev) \(.ifindex)"'
	assert_output "veth1 $ifindex"
	jqr '.kernel | length > 0'
	assert_output true
}

# bats test_tags=guest
@test "a veth takes XDP redirects only once its peer has GRO on" {
	feature_json show dev veth1
	if kernel_lacks xdp_features; then
		jqr '.interfaces[0] | "\(.redirect_target) \(.detail)"'
		assert_output "false kernel does not report XDP features (Linux 6.3): unknown"
		return
	fi
	jqr '.interfaces[0].redirect_target'
	assert_output false
	jqr '.interfaces[0].detail'
	assert_output --partial "dropped"
	ip netns exec "$XF_NS_H1" ethtool -K veth0 gro on
	feature_json show dev veth1
	ip netns exec "$XF_NS_H1" ethtool -K veth0 gro off
	jqr '.interfaces[0].redirect_target'
	assert_output true
	jqr '.interfaces[0].xdp_features'
	assert_output --regexp '(^|,)ndo_xmit(,|$)'
}

@test "table output: a kernel group and an interfaces table" {
	run -0 --separate-stderr xfwd -n "$XF_NS_R1" feature show dev veth2
	[[ -z $stderr ]]
	assert_line "kernel:"
	assert_line --regexp '^ +NAME +SUPPORTED +DETAIL$'
	if kernel_lacks peer_egress; then
		assert_line --regexp '^ +peer_egress +no +kernel lacks BPF_F_EGRESS'
	else
		assert_line --regexp '^ +peer_egress +yes '
	fi
	assert_line --regexp '^ +DEV +IFINDEX +KIND +XDP_NATIVE'
	if kernel_lacks xdp_features; then
		assert_line --regexp '^ +veth2 +[0-9]+ +veth +no +yes '
	else
		assert_line --regexp '^ +veth2 +[0-9]+ +veth +yes +yes '
	fi
}

@test "unknown device: exit 1 and one Error line, nothing on stdout" {
	run -1 --separate-stderr xfwd -n "$XF_NS_R1" -j feature show dev nosuch0
	assert_output ""
	assert_equal "$stderr" 'Error: device "nosuch0" does not exist.'
}

@test "usage errors exit 2 with one Error line" {
	run -2 --separate-stderr xfwd -n "$XF_NS_R1" feature show dev
	[[ ${#stderr_lines[@]} -eq 1 && $stderr == Error:* ]]
	run -2 --separate-stderr xfwd -n "$XF_NS_R1" feature show bogus
	[[ $stderr == 'Error: unexpected "bogus"; try "xfwd feature help".' ]]
	run -2 --separate-stderr xfwd -n "$XF_NS_R1" feature show dev veth1 dev veth2
	[[ ${#stderr_lines[@]} -eq 1 && $stderr == *duplicate* ]]
}
