# SPDX-License-Identifier: GPL-2.0
# Shared bats helpers: PATH to the built binary, the topology of
# scripts/topo.bash, polling instead of sleeping.

source "$BATS_TEST_DIRNAME/../scripts/topo.bash"

# One prefix per bats run and file, so several runs can go on at once.
_file_tag=$(basename "$BATS_TEST_FILENAME" .bats)
XF_NS_PREFIX="xf${BATS_ROOT_PID}${_file_tag:0:6}"
unset _file_tag

_common_setup() {
	bats_load_library bats-support
	bats_load_library bats-assert
	XF_TOP="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
	PATH="$XF_TOP/build:$PATH"
	export XF_TOP PATH
}

_need_root() {
	[[ $EUID -eq 0 ]] || skip "needs root"
}

