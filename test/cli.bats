#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The command line: help, usage errors, exit codes, batch mode, -n, JSON.
bats_require_minimum_version 1.8.2

setup() {
	load helpers/common
	_common_setup
}

# Every object of "xfwd help", and every verb of each (none for a
# command: its usage has "[", "{" or nothing where a verb would be).
objects() {
	xfwd help | sed -n 's/.*OBJECT := {\(.*\)}.*/\1/p' | tr -d '|'
}

verbs() {
	xfwd "$1" help | awk '{ v = ($1 == "Usage:") ? $4 : $3; if (v ~ /^[a-z]/ && v != "help") print v }'
}

# Every command of "xfwd help" (an entry without verbs: gc, save, restore),
# and the keywords of each one's grammar.
commands() {
	xfwd help | sed -n 's/^ *xfwd \[ OPTIONS \] \([a-z][a-z0-9-]*\).*/\1/p'
}

keywords() {
	xfwd "$1" help | awk 'NR == 1 { for (i = 4; i <= NF; i++) if ($i ~ /^[a-z]/) print $i }'
}

# Every entry of the dispatch table: help's list of summaries.
entries() {
	xfwd help | awk '/^       [a-z][a-z0-9-]*  +[^ ]/ && !/:=/ { print $1 }'
}

# synopsis PAGE: the SYNOPSIS section of man/man8/PAGE.8.in.
synopsis() {
	sed -n '/^\.SH SYNOPSIS/,/^\.SH [^S]/p' "$XF_TOP/man/man8/$1.8.in"
}

@test "every entry of the dispatch table is an object or a command of help" {
	run -0 entries
	assert_equal "$(sort <<<"$output")" "$(printf '%s\n' $(objects) $(commands) | sort)"
	run -0 commands
	for c in gc save restore; do
		assert_line "$c"
	done
}

@test "help at every level exits 0 and prints usage on stdout" {
	run -0 --separate-stderr xfwd help
	assert_output --partial "Usage: xfwd [ OPTIONS ] OBJECT"
	[[ -z $stderr ]]
	run -0 xfwd -help
	assert_output --partial "OBJECT := {"
	run -0 xfwd --help
	assert_output "$(xfwd help)"
	for obj in $(objects) $(commands); do
		run -0 --separate-stderr xfwd "$obj" help
		assert_output --partial "Usage: xfwd $obj"
		[[ -z $stderr ]]
		for verb in $(verbs "$obj"); do
			run -0 xfwd "$obj" "$verb" help
			assert_output --partial "xfwd $obj $verb"
		done
	done
}

@test "-V prints the version" {
	run -0 xfwd -V
	assert_output --regexp '^xfwd [0-9]+\.[0-9]+\.[0-9]+ \(libbpf [0-9.]+\)$'
}

# Each usage error: exit 2, nothing on stdout, exactly one Error: line.
assert_usage_error() {
	run -2 --separate-stderr xfwd "$@"
	assert_equal "$output" ""
	assert_equal "$(grep -c '^Error: ' <<<"$stderr")" 1
	assert_equal "$(wc -l <<<"$stderr")" 1
}

@test "usage errors exit 2 with one Error line naming the token" {
	assert_usage_error bogus
	[[ $stderr == *'"bogus"'* ]]
	assert_usage_error -Z feature
	assert_usage_error -n
	assert_usage_error feature bogus
	assert_usage_error feature show bogus
	assert_usage_error feature show dev
	assert_usage_error feature show dev 0123456789abcdefghij
	assert_usage_error feature show dev lo dev lo
	assert_usage_error -n 'a/b' feature
}

@test "no object prints usage on stderr and exits 2" {
	run -2 --separate-stderr xfwd
	assert_equal "$output" ""
	[[ $stderr == *"Usage: xfwd"* ]]
}

@test "unknown verb names the object's help" {
	run -2 --separate-stderr xfwd feature frobnicate
	assert_equal "$stderr" 'Error: unknown command "frobnicate"; try "xfwd feature help".'
}

@test "unique prefixes are accepted for objects and verbs" {
	run -0 xfwd fe help
	assert_output --partial "Usage: xfwd feature"
	run -0 xfwd fea sh help
	assert_output --partial "xfwd feature show"
}

@test "an ambiguous prefix is refused, naming the candidates" {
	run -2 --separate-stderr xfwd r show
	assert_equal "$output" ""
	assert_equal "$stderr" 'Error: object "r" is ambiguous: route redirect restore.'
	run -2 --separate-stderr xfwd chain s
	assert_equal "$stderr" 'Error: command "s" is ambiguous: set show.'
}

@test "a missing namespace fails with exit 1" {
	run -1 --separate-stderr xfwd -n xfwd-no-such-ns feature
	assert_equal "$output" ""
	[[ $stderr == 'Error: cannot open network namespace "xfwd-no-such-ns"'* ]]
}

@test "batch: a missing file fails with exit 1" {
	run -1 --separate-stderr xfwd -b /nonexistent/xfwd-batch
	[[ $stderr == Error:* ]]
}

@test "batch: a usage error names the line and stops" {
	printf 'feature help\n\n# comment\nfeature bogus\nfeature help\n' >"$BATS_TEST_TMPDIR/b"
	run -2 --separate-stderr xfwd -b "$BATS_TEST_TMPDIR/b"
	assert_equal "$(grep -c 'Usage: xfwd feature' <<<"$output")" 1
	[[ $stderr == *'batch line 4 of'* ]]
}

@test "batch: -force goes on after a failure" {
	printf 'feature help\nfeature bogus\nfeature help\n' >"$BATS_TEST_TMPDIR/b"
	run -2 --separate-stderr xfwd -force -b "$BATS_TEST_TMPDIR/b"
	assert_equal "$(grep -c 'Usage: xfwd feature' <<<"$output")" 2
	[[ $stderr == *'batch line 2 of'* ]]
}

@test "batch from stdin with quoted words" {
	run -0 bash -c "printf '\"feature\" '\''help'\''\n' | xfwd -b -"
	assert_output --partial "Usage: xfwd feature"
}

@test "every verb appears in help, the man pages and the completion" {
	local obj verb page
	source /usr/share/bash-completion/bash_completion
	source "$XF_TOP/completions/xfwd"
	for obj in $(objects); do
		page="$XF_TOP/man/man8/xfwd-$obj.8.in"
		[[ -f $page ]] || page="$XF_TOP/man/man8/xfwd.8.in"
		grep -q "^\.B $obj\$\|\\\\fB$obj\\\\fR\|^\.B xfwd $obj\|^$obj\$" "$XF_TOP/man/man8/xfwd.8.in" ||
			fail "object $obj missing from xfwd.8"
		COMP_WORDS=(xfwd "${obj:0:2}") COMP_CWORD=1 COMP_LINE="xfwd ${obj:0:2}"
		COMP_POINT=${#COMP_LINE}
		_xfwd
		[[ " ${COMPREPLY[*]} " == *" $obj "* ]] || fail "completion lacks object $obj"
		for verb in $(verbs "$obj"); do
			grep -q "xfwd $obj $verb\|^\.B $verb\b\|fB$verb\\\\fR" "$page" ||
				fail "verb $obj $verb missing from $(basename "$page")"
			COMP_WORDS=(xfwd "$obj" "") COMP_CWORD=2 COMP_LINE="xfwd $obj "
			COMP_POINT=${#COMP_LINE}
			_xfwd
			[[ " ${COMPREPLY[*]} " == *" $verb "* ]] ||
				fail "completion lacks $obj $verb"
		done
	done
	# A command: named in xfwd.8, completed, and its keywords in the
	# synopsis of xfwd.8 and of its own page, and completed after it.
	for obj in $(commands); do
		grep -q "^\.B $obj\$" "$XF_TOP/man/man8/xfwd.8.in" || fail "command $obj missing from xfwd.8"
		COMP_WORDS=(xfwd "${obj:0:3}") COMP_CWORD=1 COMP_LINE="xfwd ${obj:0:3}"
		COMP_POINT=${#COMP_LINE}
		_xfwd
		[[ " ${COMPREPLY[*]} " == *" $obj "* ]] || fail "completion lacks command $obj"
		for verb in $(keywords "$obj"); do
			for page in xfwd "xfwd-$obj"; do
				[[ -f $XF_TOP/man/man8/$page.8.in ]] || continue
				grep -qw -- "$verb" <(synopsis "$page") ||
					fail "$obj's keyword $verb missing from the synopsis of $page.8"
			done
		done
		COMP_WORDS=(xfwd "$obj" "") COMP_CWORD=2 COMP_LINE="xfwd $obj "
		COMP_POINT=${#COMP_LINE}
		_xfwd
		assert_equal "$(printf '%s\n' "${COMPREPLY[@]}" | sort | paste -sd ' ')" \
			"$(printf '%s\n' $(keywords "$obj") help | sort | paste -sd ' ')"
	done
}
