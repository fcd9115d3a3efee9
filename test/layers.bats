#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The shape of the C tree: lib/route's files call each other in the layers
# lib/route/internal.h writes down (scripts/layers, from the built objects'
# symbols), and no file of cmd/ or lib/ outgrows a reader.
bats_require_minimum_version 1.8.2

setup() {
	load helpers/common
	_common_setup
	cd "$XF_TOP"
}

# route_objs: the object file of each lib/route/*.c, as make builds it.
route_objs() {
	local c
	for c in lib/route/*.c; do
		echo "build/${c%.c}.o"
	done
}

@test "lib/route: the files' calls form a DAG in internal.h's layers" {
	run -0 scripts/layers -H lib/route/internal.h $(route_objs)
	refute_output --partial "Error:"
	# Every file is in the order printed, the lowest first.
	[[ ${#lines[@]} -eq $(ls lib/route/*.c | wc -l) ]]
	assert_line "link.c: (nothing)"
	assert_line --regexp '^refresh\.c: .*fast\.c'
}

@test "scripts/layers: a cycle, and a use against the written layers, fail" {
	local d=$BATS_TEST_TMPDIR
	printf 'int b(void);\nint a(void) { return b(); }\n' >"$d/a.c"
	printf 'int a(void);\nint b(void) { return a(); }\n' >"$d/b.c"
	printf 'int b(void);\nint c(void) { return b(); }\n' >"$d/c.c"
	cc -c -o "$d/a.o" "$d/a.c"
	cc -c -o "$d/b.o" "$d/b.c"
	cc -c -o "$d/c.o" "$d/c.c"
	run -1 --separate-stderr scripts/layers "$d/a.o" "$d/b.o"
	[[ $stderr == "Error: the calls between $d's files form a cycle: "*a.c*b.c* ||
	   $stderr == "Error: the calls between $d's files form a cycle: "*b.c*a.c* ]]
	# b.c, not a cycle, but above c.c where c.c calls it.
	printf '/*\n *   0: c.c\n *   1: b.c\n */\n' >"$d/layers.h"
	run -1 --separate-stderr scripts/layers -H "$d/layers.h" "$d/b.o" "$d/c.o"
	assert_equal "$stderr" \
		"Error: c.c (layer 0) uses b.c (layer 1), which is not below it in $d/layers.h."
	printf '/*\n *   0: b.c\n *   1: c.c\n */\n' >"$d/layers.h"
	run -0 scripts/layers -H "$d/layers.h" "$d/b.o" "$d/c.o"
}

@test "no C file of cmd/ or lib/ is over 800 lines" {
	run -0 wc -l cmd/*.[ch] lib/*.[ch] lib/*/*.[ch]
	[[ ${#lines[@]} -gt 100 ]]
	run -0 awk '$2 != "total" && $1 > 800' <<<"$output"
	assert_output ""
}
