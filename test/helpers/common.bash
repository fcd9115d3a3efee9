# SPDX-License-Identifier: GPL-2.0
# Shared bats helpers: PATH to the built binary, the topology of
# scripts/topo.bash, polling instead of sleeping.

# From this file's place, so that suites in subdirectories (test/fuzz/)
# can load it too.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/topo.bash"

# One prefix per bats run and file, so several runs can go on at once.
_file_tag=$(basename "$BATS_TEST_FILENAME" .bats)
XF_NS_PREFIX="xf${BATS_ROOT_PID}${_file_tag:0:6}"
unset _file_tag

_common_setup() {
	bats_load_library bats-support
	bats_load_library bats-assert
	XF_TOP="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
	PATH="$XF_TOP/build:$PATH"
	# XFWD_BIN=/path/to/xfwd tests another build of it (make check-asan
	# runs suites against build/asan/xfwd); it must be named xfwd.
	if [[ -n ${XFWD_BIN:-} ]]; then
		[[ ${XFWD_BIN##*/} == xfwd && -x $XFWD_BIN ]] ||
			fail "XFWD_BIN=$XFWD_BIN: not an executable named xfwd"
		PATH="$(cd "$(dirname "$XFWD_BIN")" && pwd):$PATH"
	fi
	export XF_TOP PATH
}

_need_root() {
	[[ $EUID -eq 0 ]] || skip "needs root"
}

# _need_progs NAME...: in setup_file, fail unless make check has built the
# test programs build/test/progs/NAME.bpf.o.
_need_progs() {
	local p dir
	dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/test/progs"
	for p in "$@"; do
		[[ -e $dir/$p.bpf.o ]] || {
			echo "# $dir/$p.bpf.o missing: make check builds it" >&3
			return 1
		}
	done
}


# kernel_lacks KEY: the running kernel lacks the feature KEY (a key of
# "xfwd feature"), as known from outside xfwd's probes: the kernels xfwd is
# tested on (test/vm: Debian's 7.2 and 6.1; this machine's 6.18) are
# listed here. For another kernel XF_KERNEL_LACKS names what it lacks
# (e.g. "" for a bpf-next kernel with everything). An unlisted kernel
# without it ends the test, failed: xfwd's own probes cannot stand in for
# the answer they are tested against (feature.bats).
kernel_lacks() {
	local lacks
	if [[ -n ${XF_KERNEL_LACKS+set} ]]; then
		lacks=$XF_KERNEL_LACKS
	else
		case $(uname -r) in
		# xdp_features: no netdev genetlink family (6.3), so no device
		# is known to run XDP natively or to take XDP frames.
		# kern_ctx: bpf_cast_to_kern_ctx() (6.2), route's source table.
		# wireguard: 6.1's module needs x86 crypto modules that the
		# guests do not load (test/vm/run); this machine has none.
		6.1.*) lacks="tcx netkit fib_mark peer_egress xdp_features xdp_flowtable kern_ctx wireguard" ;;
		7.2.*) lacks="peer_egress" ;;
		6.18.*) lacks="netkit vlan bond gre wireguard freplace peer_egress xdp_flowtable" ;;
		*)
			# Called in conditions, where a failed status would
			# read as "has it": end the test here instead.
			echo "kernel_lacks: unlisted kernel $(uname -r): list it in test/helpers/common.bash, or name what it lacks in XF_KERNEL_LACKS (test/vm/README)" >&2
			exit 1
			;;
		esac
	fi
	[[ " $lacks " == *" $1 "* ]]
}

# vm_slow N: N times XF_VM_SLOW under emulation (make check-kernels): time
# limits (a python3 with scapy takes seconds to start there), and traffic
# that must outlast the test's own slower steps.
vm_slow() {
	echo $(($1 * ${XF_VM_SLOW:-1}))
}

# kill_bg: end the background processes a test started (BG_PIDS), by PID.
kill_bg() {
	local pid
	for pid in "${BG_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
}

# left_behind DIR...: for a teardown, after the undo commands: each DIR
# (pins outlive the namespace, object copies stay in /run) that still
# exists is listed, removed, and fails the test (status 1). Empty
# arguments are skipped.
left_behind() {
	local d left=0
	for d in "$@"; do
		[[ -n $d && -e $d ]] || continue
		echo "# left behind: $(find "$d" | tr '\n' ' ')"
		rm -rf "$d"
		left=1
	done
	((!left))
}
