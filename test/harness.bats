#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The harness itself can fail: test/run-all counts bats's exit status, and
# a C unit test that checked nothing fails.
bats_require_minimum_version 1.8.2

setup() {
	load helpers/common
	_common_setup
}

# runall STATUS BATSFILE: test/run-all on that one file exits STATUS, in a clean environment
# (the outer bats's variables, and its libexec on PATH, would confuse the
# inner one).
runall() {
	local path
	path=$(tr : '\n' <<<"$PATH" | grep -v bats-core | paste -sd :)
	run "-$1" --separate-stderr env -i PATH="$path" HOME="$HOME" XF_TESTS="$2" \
		"$XF_TOP/test/run-all" 3>&-
}

@test "run-all fails when bats fails without a 'not ok' line" {
	# A file that does not exist: bats exits 1 and prints no TAP line.
	runall 1 "$BATS_TEST_TMPDIR/missing.bats"
	assert_line "not ok bats exited with status 1 and no failed test"
	assert_line --regexp '^[0-9]+ passed, [1-9][0-9]* failed, [0-9]+ skipped$'
}

@test "run-all's closing line counts passed and failed tests of bats" {
	# printf, not a here-document: bats would rewrite "@test" lines of
	# this file wherever they are.
	printf '%s\n' '@test "passes" { true; }' '@test "fails" { false; }' \
		'@test "skips" { skip "on purpose"; }' >"$BATS_TEST_TMPDIR/two.bats"
	runall 1 "$BATS_TEST_TMPDIR/two.bats"
	refute_line --partial "no failed test"
	# The units and man pages pass too, so only the failures are exact.
	assert_line --regexp '^[0-9]+ passed, 1 failed, 1 skipped$'
}

@test "run-all passes when bats and everything else pass" {
	printf '%s\n' '@test "passes" { true; }' >"$BATS_TEST_TMPDIR/one.bats"
	runall 0 "$BATS_TEST_TMPDIR/one.bats"
	assert_line --regexp '^[1-9][0-9]* passed, 0 failed, 0 skipped$'
}

# cunit BODY: build a unit test whose main() runs BODY with check.h.
cunit() {
	printf '#include "check.h"\nint main(void)\n{\n\tstruct check c = { 0 };\n%s\n\treturn check_done(&c, "t");\n}\n' \
		"$1" >"$BATS_TEST_TMPDIR/t.c"
	run -0 cc -Wall -Werror -I"$XF_TOP/test/unit" -o "$BATS_TEST_TMPDIR/t" "$BATS_TEST_TMPDIR/t.c"
}

@test "check.h: a unit test that checked nothing fails" {
	cunit ""
	run -1 "$BATS_TEST_TMPDIR/t"
	assert_line "t: FAIL no checks ran"
}

@test "check.h: one passed check passes, one failed check fails" {
	cunit '	check_true(&c, 1, "one", __LINE__);'
	run -0 "$BATS_TEST_TMPDIR/t"
	assert_output "t: 1 passed, 0 failed"
	cunit '	check_str(&c, "a", "b", __LINE__);'
	run -1 "$BATS_TEST_TMPDIR/t"
	assert_line "t: 0 passed, 1 failed"
}

@test "left_behind: a directory left is listed, removed and fails; none passes" {
	mkdir -p "$BATS_TEST_TMPDIR/pins/ns1"
	run -1 left_behind "" "$BATS_TEST_TMPDIR/pins" "$BATS_TEST_TMPDIR/none"
	assert_output "# left behind: $BATS_TEST_TMPDIR/pins $BATS_TEST_TMPDIR/pins/ns1 "
	[[ ! -e $BATS_TEST_TMPDIR/pins ]]
	run -0 left_behind "" "$BATS_TEST_TMPDIR/pins"
	assert_output ""
}

# bats test_tags=root
@test "bpffs_ready: bpftool pins where the machine has no bpffs yet, as just booted" {
	_need_root
	# A mount namespace of its own, with /sys/fs/bpf unmounted: the sysfs
	# beneath refuses the pin's directory until bpffs_ready mounts one.
	run -0 unshare -m --propagation private bash -c '
		source "$1/scripts/topo.bash"
		umount /sys/fs/bpf 2>/dev/null
		[[ $(stat -f -c %T /sys/fs/bpf) == sysfs ]] || exit 3
		bpftool prog loadall "$1/build/probe.bpf.o" /sys/fs/bpf/xfbr && exit 4
		bpffs_ready || exit 5
		bpftool prog loadall "$1/build/probe.bpf.o" /sys/fs/bpf/xfbr || exit 6
		stat -f -c %T /sys/fs/bpf
		bpffs_ready || exit 7
		grep -c " /sys/fs/bpf bpf " /proc/self/mounts' _ "$XF_TOP"
	assert_output --partial "bpf_fs"
	assert_line 1
}
