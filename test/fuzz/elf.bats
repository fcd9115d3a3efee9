#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# chain add with hostile member objects. test/fuzz/mutate-elf makes
# variants of real BPF objects (truncated, wrong machine, bad headers,
# sections, relocations, symbols, instructions and BTF, non-XDP programs,
# random bytes); build/asan/xfwd (ASan, UBSan, leaks fatal) adds each to a
# running chain on r1's veth1, under timeout. Each must load or fail with
# exactly one Error line, never crash, hang, leak or trip a sanitizer, and
# a failure must leave the running chain, its pins and its copies as they
# were. XF_ELF_SAMPLE (default 6) is how many of each kind of each object
# are tried; 0 tries them all (make fuzz does).
bats_require_minimum_version 1.8.2
# bats file_tags=root

load ../helpers/common
load ../helpers/route

BASES="test/progs/count test/progs/global_fn test/progs/runcfg test/progs/tail
	test/progs/tc_only test/fuzz/mixed test/fuzz/noprog"

setup_file() {
	_need_root
	_common_setup
	local b objs=()
	[[ -x $XF_TOP/build/asan/xfwd ]] || {
		echo "# build/asan/xfwd missing: make check-hostile builds it" >&3
		return 1
	}
	for b in $BASES; do
		objs+=("$XF_TOP/build/$b.bpf.o")
	done
	XF_ELF_OBJS=$BATS_FILE_TMPDIR/objs
	"$XF_TOP/test/fuzz/mutate-elf" --sample "${XF_ELF_SAMPLE:-6}" "$XF_ELF_OBJS" \
		"${objs[@]}" >/dev/null
	# Objects that once broke the rule, by name.
	for b in "$XF_TOP"/test/fuzz/regress/fuzz_elf/*; do
		cp "$b" "$XF_ELF_OBJS/regress-${b##*/}"
	done
	export XF_ELF_OBJS
	topo_create
	XF_PIN_DIR=$(pin_dir)
	XF_RUN_DIR=/run/xfwd/${XF_PIN_DIR##*/}
	export XF_PIN_DIR XF_RUN_DIR
	xr chain add dev veth1 obj "$XF_TOP/build/test/progs/count.bpf.o" name base
}

teardown_file() {
	_common_setup
	xr chain del dev veth1 all >/dev/null 2>&1 || true
	topo_destroy
	[[ -z ${XF_PIN_DIR:-} ]] || rm -rf "$XF_PIN_DIR" "$XF_RUN_DIR"
}

setup() {
	_common_setup
}

# The running chain as the kernel and bpffs hold it: program and link,
# members and rules, pins and copies.
state() {
	xr -j chain show dev veth1 |
		jq -c '.interfaces[0] | {prog_id, link_id, chain: [.chain[] | {name, prog, rules}]}'
	find "$XF_PIN_DIR" "$XF_RUN_DIR" 2>/dev/null | sort
}

# hostile KIND: chain add every variant of that kind; counts to the log.
hostile() {
	local f rc before after errf=$BATS_TEST_TMPDIR/err bad=() n=0 loaded=0
	before=$(state)
	for f in "$XF_ELF_OBJS/$1"-*.o; do
		[[ -e $f ]] || continue
		n=$((n + 1))
		rc=0
		timeout 20 "$XF_TOP/build/asan/xfwd" -n "$XF_NS_R1" chain add dev veth1 \
			obj "$f" name m >/dev/null 2>"$errf" || rc=$?
		if grep -qE 'Sanitizer|runtime error|LeakSanitizer' "$errf"; then
			bad+=("${f##*/}: sanitizer: $(grep -m1 -E 'ERROR|runtime error' "$errf")")
			xr chain del dev veth1 name m >/dev/null 2>&1 || true
			before=$(state)
			continue
		fi
		case $rc in
		0)
			loaded=$((loaded + 1))
			xr -j chain show dev veth1 | jq -e '[.interfaces[0].chain[].name] |
				index("m") != null' >/dev/null || bad+=("${f##*/}: exit 0, no member m")
			xr chain del dev veth1 name m >/dev/null ||
				bad+=("${f##*/}: loaded, then del failed")
			before=$(state)	# a new program and link now
			;;
		1 | 2)
			[[ $(wc -l <"$errf") == 1 && $(head -c 7 "$errf") == "Error: " ]] ||
				bad+=("${f##*/}: exit $rc, stderr not one Error line: $(head -c 300 "$errf")")
			# The file is there: whatever is wrong, it is not that.
			! grep -q 'No such file' "$errf" ||
				bad+=("${f##*/}: says the file is not there: $(head -c 300 "$errf")")
			after=$(state)
			[[ $after == "$before" ]] ||
				bad+=("${f##*/}: exit $rc changed the chain: $before -> $after")
			before=$after	# one finding, not one per object after it
			;;
		124)
			bad+=("${f##*/}: hung (timeout 20 s)")
			before=$(state)
			;;
		*)
			bad+=("${f##*/}: exit $rc: $(head -c 300 "$errf")")
			xr chain del dev veth1 name m >/dev/null 2>&1 || true
			before=$(state)
			;;
		esac
	done
	echo "# $1: $n objects, $loaded loaded, $((n - loaded)) refused, ${#bad[@]} bad" >&3
	((n > 0)) || fail "no $1 variants made"
	if ((${#bad[@]})); then
		printf '%s\n' "${bad[@]}"
		fail "$1: ${#bad[@]} of $n broke the rule"
	fi
	# And the base member is still there, alone.
	run -0 --separate-stderr xr -j chain show dev veth1
	jq -e '[.interfaces[0].chain[].name] == ["base"]' <<<"$output"
}

@test "chain add: truncated objects" {
	hostile trunc
}

@test "chain add: wrong machine, class, byte order, type" {
	hostile machine
}

@test "chain add: ELF header offsets and counts out of range" {
	hostile header
}

@test "chain add: huge, misplaced and mistyped sections" {
	hostile section
}

@test "chain add: bad relocations" {
	hostile reloc
}

@test "chain add: symbols outside their sections" {
	hostile symbol
}

@test "chain add: instructions that jump and call out of the code" {
	hostile insn
}

@test "chain add: bad BTF headers" {
	hostile btf
}

@test "chain add: non-XDP programs, no programs, several programs" {
	hostile type
	# The originals too: tc only and no program are refused, several
	# types with one XDP program load it.
	local o
	for o in test/progs/tc_only test/fuzz/noprog; do
		run -2 --separate-stderr "$XF_TOP/build/asan/xfwd" -n "$XF_NS_R1" chain add \
			dev veth1 obj "$XF_TOP/build/$o.bpf.o" name m
		assert_equal "$stderr" "Error: no XDP program in \"$XF_TOP/build/$o.bpf.o\"."
	done
	run -2 --separate-stderr "$XF_TOP/build/asan/xfwd" -n "$XF_NS_R1" chain add \
		dev veth1 obj "$XF_TOP/build/test/progs/tail.bpf.o" name m
	[[ $stderr == *"has 2 XDP programs; choose one with sec or prog." ]]
	run -0 "$XF_TOP/build/asan/xfwd" -n "$XF_NS_R1" chain add dev veth1 \
		obj "$XF_TOP/build/test/fuzz/mixed.bpf.o" name m
	run -0 --separate-stderr xr -j chain show dev veth1
	jq -e '[.interfaces[0].chain[] | .prog] == ["xf_count", "xf_mixed_xdp"]' <<<"$output"
	run -0 xr chain del dev veth1 name m
}

@test "chain add: objects that once broke the rule (test/fuzz/regress/fuzz_elf)" {
	hostile regress
	run -1 --separate-stderr "$XF_TOP/build/asan/xfwd" -n "$XF_NS_R1" chain add dev veth1 \
		obj "$XF_ELF_OBJS/regress-symbol-value-wraps.o" name m
	[[ $stderr == *"is not a BPF object file: symbol "*" lies outside its section." ]]
}

@test "chain add: random bytes" {
	hostile flip
}
