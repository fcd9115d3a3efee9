#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The hostile corpus of test/hostile.bats on a real driver: h1 -- r1 -- h2
# over the guests' virtio-net NICs (test/helpers/nic.bash) in place of the
# veths, under the same names. What arrives at h2 must be the kernel's
# frames, byte for byte, on each hook. Skipped where there are no NICs.
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/common
load helpers/route
load helpers/hostile
load helpers/nic

setup_file() {
	_need_root
	_common_setup
	# Without NICs every test skips (setup); nothing to build.
	[[ -n ${XF_VM:-} ]] || return 0
	nic_wait
	hostile_topo nic
	PIN_DIR=$(pin_dir)
	export PIN_DIR
	CORPUS=$BATS_FILE_TMPDIR/corpus.txt
	export CORPUS
	gen_corpus "$CORPUS"
}

teardown_file() {
	[[ -n ${XF_VM:-} ]] || return 0
	xfwd -n "$XF_NS_R1" route detach all >/dev/null 2>&1 || true
	topo_destroy
}

setup() {
	_common_setup
	nic_skip
}

teardown() {
	[[ -n ${XF_VM:-} ]] || return 0
	[[ -z ${CAP_PID:-} ]] || kill "$CAP_PID" 2>/dev/null || true
	xr route detach all >/dev/null 2>&1 || true
	left_behind "$PIN_DIR" "/run/xfwd/${PIN_DIR##*/}"
}

# bats test_tags=guest
@test "nic hook xdp: the hostile corpus over virtio-net, the same frames at h2 as the kernel's" {
	hostile_hook xdp
}

@test "nic hook tc: the hostile corpus over virtio-net, the same frames at h2 as the kernel's" {
	if kernel_lacks tcx; then skip "hook tc needs tcx"; fi
	hostile_hook tc
}
