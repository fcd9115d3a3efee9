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

