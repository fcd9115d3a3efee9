#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Valgrind memcheck over build/xfwd (the shipped build, not the ASan one):
# every object's show, stats, a whole route attach/detach cycle, a chain
# add/del cycle and a redirect add/del cycle in r1 of the test topology.
# Each run must leak nothing ("definitely" and "indirectly lost" 0) and
# raise no memcheck error; test/fuzz/valgrind.supp holds what valgrind
# 3.19 gets wrong about the bpf() syscall, inside libbpf only.
bats_require_minimum_version 1.8.2
# bats file_tags=root

load ../helpers/common
load ../helpers/route

setup_file() {
	_need_root
	command -v valgrind >/dev/null || {
		echo "# valgrind missing: scripts/install-deps installs it" >&3
		return 1
	}
	topo_create
	XF_PIN_DIR=$(pin_dir)
	export XF_PIN_DIR
}

teardown_file() {
	_common_setup
	xr route detach all >/dev/null 2>&1 || true
	xr chain del dev veth1 all >/dev/null 2>&1 || true
	xr redirect del dev veth1 all >/dev/null 2>&1 || true
	topo_destroy
	[[ -z ${XF_PIN_DIR:-} ]] || rm -rf "$XF_PIN_DIR" "/run/xfwd/${XF_PIN_DIR##*/}"
}

setup() {
	_common_setup
}

# vg ARGS...: xfwd -n r1 ARGS under memcheck; exit status and output as
# xfwd's (run it with run), valgrind's report in $VG_LOG. A memcheck
# error or leak exits 99.
vg() {
	VG_LOG=$BATS_TEST_TMPDIR/vg.log
	valgrind -q --error-exitcode=99 --leak-check=full \
		--show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
		--suppressions="$XF_TOP/test/fuzz/valgrind.supp" --log-file="$VG_LOG" \
		"$XF_TOP/build/xfwd" -n "$XF_NS_R1" "$@"
}

# clean: the last vg run's report has no error and no leak.
clean() {
	if grep -qE '^==[0-9]+== [^ ]' "$VG_LOG"; then
		cat "$VG_LOG"
		fail "memcheck report for: $BATS_RUN_COMMAND"
	fi
}

@test "valgrind: show of every object, and stats, leak nothing" {
	local obj
	for obj in route chain redirect feature; do
		run -0 vg "$obj" show
		clean
		run -0 vg -j "$obj" show
		clean
	done
	run -0 vg stats
	clean
	run -0 vg -s -j stats show
	clean
}

@test "valgrind: route attach, show, get, stats, detach" {
	xdp_ready
	run -0 vg route attach dev veth1 dev veth2 hook xdp
	clean
	ping4 3 "$XF_H2_IP4" -q >/dev/null
	run -0 vg route show
	clean
	run -0 vg -j route get "$XF_H2_IP4" iif veth1 from "$XF_H1_IP4"
	clean
	run -0 vg stats
	clean
	run -0 vg stats reset
	clean
	run -0 vg -s -j stats watch interval 0.2 count 2
	clean
	run -0 vg route detach all
	clean
	run -0 vg route attach dev veth1 dev veth2 hook tc
	clean
	run -0 vg route detach dev veth1 dev veth2
	clean
}

@test "valgrind: chain add, show, reorder, del" {
	local progs=$XF_TOP/build/test/progs
	run -0 vg chain add dev veth1 obj "$progs/count.bpf.o" name c1
	clean
	run -0 vg chain add dev veth1 obj "$progs/pass.bpf.o" name c2 on pass next
	clean
	ping4 2 "$XF_H2_IP4" -q >/dev/null
	run -0 vg -s chain show
	clean
	run -0 vg stats dev veth1 chain
	clean
	run -0 vg chain order dev veth1 c2 c1
	clean
	run -0 vg chain del dev veth1 name c1
	clean
	run -0 vg chain del dev veth1 all
	clean
	# and a refusal: nothing leaks on the error path either
	run -2 vg chain add dev veth1 obj "$XF_TOP/build/test/progs/tc_only.bpf.o"
	clean
}

@test "valgrind: redirect add, show, del" {
	run -0 vg redirect add dev veth1 match "$XF_H2_IP4/32" to veth2
	clean
	run -0 vg redirect show
	clean
	run -0 vg redirect del dev veth1 all
	clean
	run -1 vg redirect del dev veth1 all
	clean
}
