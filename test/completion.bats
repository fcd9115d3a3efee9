#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Bash completion (completions/xfwd), called the way bash calls it: the
# bash-completion library for _init_completion, COMP_WORDS, COMP_CWORD,
# COMP_LINE and COMP_POINT set from a command line, then _xfwd. Every path:
# top-level words and options from "xfwd help", verbs, keywords, choices
# "{ a | b }" (nested groups too), placeholders (verdicts, devices from the
# right namespace with -n, netns names, files for obj and -b).
bats_require_minimum_version 1.8.2

setup() {
	load helpers/common
	_common_setup
	source /usr/share/bash-completion/bash_completion
	source "$XF_TOP/completions/xfwd"
}

teardown() {
	[[ -z ${CNS:-} ]] || ip netns del "$CNS" 2>/dev/null || true
}

# comp LINE: complete LINE (the cursor at its end; a trailing space starts
# an empty word) into REPLY, the offered words sorted, one line.
comp() {
	local -a w
	read -ra w <<<"$1"
	[[ $1 != *" " ]] || w+=("")
	COMP_WORDS=("${w[@]}")
	COMP_CWORD=$((${#w[@]} - 1))
	COMP_LINE=$1
	COMP_POINT=${#1}
	COMPREPLY=()
	# As bash runs it: without errexit (the library's functions end on
	# false tests).
	_xfwd || true
	REPLY=$(printf '%s\n' "${COMPREPLY[@]}" | sort | paste -sd ' ')
}

@test "top-level words are every object and command of help, plus help" {
	local want
	# Objects, and commands without verbs ("xfwd [ OPTIONS ] gc").
	want=$(xfwd help | sed -n -e 's/.*OBJECT := {\(.*\)}.*/\1/p' \
		-e 's/^ *xfwd \[ OPTIONS \] \([a-z][a-z]*\)\( .*\)*$/\1/p' | tr -d '|' |
		xargs -n1 | sort | paste -sd ' ')
	[[ $want == *gc* && $want == *save* && $want == *restore* ]]
	comp "xfwd "
	assert_equal "$REPLY" "$(printf '%s\n' $want help | sort | paste -sd ' ')"
	comp "xfwd -j "
	assert_equal "$REPLY" "$(printf '%s\n' $want help | sort | paste -sd ' ')"
	comp "xfwd ro"
	assert_equal "$REPLY" "route"
}

@test "options come from help's OPTIONS, in full" {
	comp "xfwd -"
	assert_equal "$REPLY" "-Version -all -batch -debug -force -help -human -json -netns -pretty -statistics"
	comp "xfwd -j"
	assert_equal "$REPLY" "-json"
}

@test "a new top-level word of help is completed without an edit" {
	# A stand-in xfwd whose help lists one more object and one command
	# outside the OBJECT list, as "xfwd gc" would be.
	mkdir "$BATS_TEST_TMPDIR/bin"
	cat >"$BATS_TEST_TMPDIR/bin/xfwd" <<-'SH'
		#!/bin/sh
		case "$1" in
		help) cat <<-EOT
		Usage: xfwd [ OPTIONS ] OBJECT { COMMAND | help }
		       xfwd [ OPTIONS ] gc
		where  OBJECT := { route | newobj }
		       OPTIONS := { -j[son] | -n[etns] NAME }
		       route     the route object
		       newobj    a new object
		       gc        remove the pins of namespaces that have gone
		EOT
		;;
		newobj) echo "Usage: xfwd newobj frob dev IFNAME [ speed { slow | fast } ]"
			echo "       xfwd newobj help" ;;
		esac
		SH
	chmod +x "$BATS_TEST_TMPDIR/bin/xfwd"
	PATH="$BATS_TEST_TMPDIR/bin:$PATH"
	comp "xfwd "
	assert_equal "$REPLY" "gc help newobj route"
	comp "xfwd newobj "
	assert_equal "$REPLY" "frob help"
	comp "xfwd newobj frob dev x speed "
	assert_equal "$REPLY" "fast slow"
	comp "xfwd -"
	assert_equal "$REPLY" "-json -netns"
}

@test "verbs of every object, abbreviated objects too" {
	comp "xfwd route "
	assert_equal "$REPLY" "attach detach get help refresh show"
	comp "xfwd chain "
	assert_equal "$REPLY" "add del help order profile set show"
	comp "xfwd redirect "
	assert_equal "$REPLY" "add del help show"
	comp "xfwd stats "
	assert_equal "$REPLY" "help reset show watch"
	comp "xfwd feature "
	assert_equal "$REPLY" "help show"
	comp "xfwd red d"
	assert_equal "$REPLY" "del"
	comp "xfwd -n foo -j route s"
	assert_equal "$REPLY" "show"
}

@test "keywords of a verb's grammar, abbreviated verbs too" {
	comp "xfwd feature show "
	assert_equal "$REPLY" "dev"
	comp "xfwd route get 198.18.0.1 "
	assert_equal "$REPLY" "dport from iif len proto sport ttl vlan"
	comp "xfwd ro att dev veth1 "
	assert_equal "$REPLY" "dev family hook lookup mode netfilter qdisc"
	comp "xfwd stats show "
	assert_equal "$REPLY" "chain dev redirect route"
	comp "xfwd chain prof dev lo "
	assert_equal "$REPLY" "dev duration"
}

@test "choices { a | b } after their keyword" {
	comp "xfwd route attach dev veth1 hook "
	assert_equal "$REPLY" "auto tc xdp"
	comp "xfwd route attach dev veth1 hook x"
	assert_equal "$REPLY" "xdp"
	comp "xfwd route attach dev veth1 family "
	assert_equal "$REPLY" "all inet inet6"
	comp "xfwd route get 198.18.0.1 proto "
	assert_equal "$REPLY" "icmp tcp udp"
	comp "xfwd redirect add dev veth1 to veth2 hook "
	assert_equal "$REPLY" "tc xdp"
}

@test "redirect mode: the modes only, not the words of a nested [ via ADDRESS ]" {
	comp "xfwd redirect add dev veth1 to veth2 mode "
	assert_equal "$REPLY" "egress ingress mirror neigh peer peer-egress"
	comp "xfwd redirect add dev veth1 to veth2 mode neigh "
	[[ " $REPLY " == *" via "* ]] || fail "after neigh, via is offered: $REPLY"
	comp "xfwd redirect add dev veth1 to veth2 mode neigh via "
	assert_equal "$REPLY" ""
}

@test "chain on: the verdicts, then next, stop or goto" {
	comp "xfwd chain add dev veth1 obj a.o on "
	assert_equal "$REPLY" "aborted drop pass redirect tx"
	comp "xfwd chain add dev veth1 obj a.o on d"
	assert_equal "$REPLY" "drop"
	comp "xfwd chain add dev veth1 obj a.o on drop "
	assert_equal "$REPLY" "goto next stop"
	comp "xfwd chain set dev veth1 name a on pass "
	assert_equal "$REPLY" "goto next stop"
	comp "xfwd chain set dev veth1 name a on pass goto "
	assert_equal "$REPLY" ""
	# After a full "on VERDICT ACTION", the keywords again.
	comp "xfwd chain add dev veth1 obj a.o on drop stop "
	[[ " $REPLY " == *" on "* && " $REPLY " == *" name "* ]] ||
		fail "keywords after on drop stop: $REPLY"
	[[ " $REPLY " != *" drop "* ]] || fail "a verdict offered as a keyword: $REPLY"
}

@test "placeholders without a list complete to nothing" {
	comp "xfwd route get 198.18.0.1 ttl "
	assert_equal "$REPLY" ""
	comp "xfwd chain add dev veth1 obj a.o name "
	assert_equal "$REPLY" ""
	comp "xfwd stats watch interval "
	assert_equal "$REPLY" ""
}

@test "files: obj offers object files and directories, -b any file" {
	mkdir "$BATS_TEST_TMPDIR/f" "$BATS_TEST_TMPDIR/f/sub"
	touch "$BATS_TEST_TMPDIR/f/a.o" "$BATS_TEST_TMPDIR/f/b.txt"
	cd "$BATS_TEST_TMPDIR/f"
	comp "xfwd chain add dev veth1 obj "
	assert_equal "$REPLY" "a.o sub"
	comp "xfwd -b "
	assert_equal "$REPLY" "a.o b.txt sub"
	comp "xfwd -batch b"
	assert_equal "$REPLY" "b.txt"
}

# bats test_tags=root
@test "netns names after -n" {
	_need_root
	CNS="${XF_NS_PREFIX}comp"
	ip netns add "$CNS"
	comp "xfwd -n "
	[[ " $REPLY " == *" $CNS "* ]] || fail "$CNS not offered: $REPLY"
	comp "xfwd -netns ${CNS:0:${#CNS}-1}"
	assert_equal "$REPLY" "$CNS"
}

# bats test_tags=root
@test "devices of the namespace -n names, else of the current one" {
	_need_root
	CNS="${XF_NS_PREFIX}comp"
	ip netns add "$CNS"
	ip -n "$CNS" link add xfcomp0 type veth peer name xfcomp1
	comp "xfwd -n $CNS route attach dev "
	assert_equal "$REPLY" "lo xfcomp0 xfcomp1"
	comp "xfwd -n $CNS redirect add dev xfcomp0 to xfcomp"
	assert_equal "$REPLY" "xfcomp0 xfcomp1"
	comp "xfwd -n $CNS route get 198.18.0.1 iif "
	assert_equal "$REPLY" "lo xfcomp0 xfcomp1"
	comp "xfwd route attach dev "
	assert_equal "$REPLY" "$(command ls /sys/class/net | sort | paste -sd ' ')"
	[[ " $REPLY " != *" xfcomp0 "* ]]
}

@test "save, restore and gc: bash completion completes them and their keywords" {
	comp "xfwd sa"
	assert_equal "$REPLY" "save"
	comp "xfwd -j res"
	assert_equal "$REPLY" "restore"
	comp "xfwd g"
	assert_equal "$REPLY" "gc"
	comp "xfwd gc "
	assert_equal "$REPLY" "help"
	comp "xfwd save "
	assert_equal "$REPLY" "file help keep"
	comp "xfwd restore "
	assert_equal "$REPLY" "check file help"
	comp "xfwd restore c"
	assert_equal "$REPLY" "check"
	# file FILE: files of the directory.
	mkdir "$BATS_TEST_TMPDIR/d"
	touch "$BATS_TEST_TMPDIR/d/state.json"
	comp "xfwd save file $BATS_TEST_TMPDIR/d/st"
	assert_equal "$REPLY" "$BATS_TEST_TMPDIR/d/state.json"
	comp "xfwd restore file $BATS_TEST_TMPDIR/d/st"
	assert_equal "$REPLY" "$BATS_TEST_TMPDIR/d/state.json"
}
