#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The docs: README.md stays a front door (short, links that resolve), the
# man pages, README.md and doc/architecture.md state behaviour (no dated
# figures, no word of how the project was made: those live in doc/bench/),
# and the docs README.md points at exist. No root.

bats_require_minimum_version 1.8.2

setup() {
	load helpers/common
	_common_setup
	cd "$XF_TOP"
}

# pages: the pages that state behaviour, each of which must exist (called
# directly, not in a subshell, so its fail fails the test).
pages=()
behaviour_pages() {
	local f

	pages=(README.md doc/architecture.md man/man8/*.8.in)
	for f in "${pages[@]}"; do
		[[ -f $f ]] || fail "$f is missing"
	done
	[[ ${#pages[@]} -ge 8 ]] || fail "only ${#pages[@]} pages found"
}

@test "docs: the front door and the docs it points at exist" {
	local f

	for f in README.md doc/bench/README.md test/README doc/architecture.md \
		test/vm/README; do
		[[ -s $f ]] || fail "$f is missing or empty"
	done
}

@test "docs: README.md is at most 220 lines" {
	local n

	n=$(wc -l <README.md)
	[[ $n -le 220 ]] || fail "README.md has $n lines: move detail to doc/, test/README or the man pages"
}

@test "docs: no dates, no 'this machine', no issue numbers in behaviour pages" {
	behaviour_pages
	run grep -nEi '\b20[0-9]{2}-[0-9]{2}-[0-9]{2}\b|this machine|\bissue [0-9]' "${pages[@]}"
	# 1: no line matched (0: some did; 2: grep could not read a page).
	[[ $status -eq 1 ]] || fail "status $status: $output"
}

@test "docs: no measured figures in behaviour pages (they live in doc/bench/)" {
	behaviour_pages
	# README.md's table of the last published run is ratios, without units.
	run grep -nE '[0-9] ?ns\b|Mpps|Gbit/s' "${pages[@]}"
	[[ $status -eq 1 ]] || fail "status $status: $output"
}

@test "docs: every relative link in README.md points at a file that exists" {
	local link path n=0 bad=()

	while read -r link; do
		link=${link#*](}
		link=${link%)}
		path=${link%%#*}
		[[ $link == *://* || $link == mailto:* || -z $path ]] && continue
		n=$((n + 1))
		[[ -e $path ]] || bad+=("$link")
	done < <(grep -oE '\]\([^)[:space:]]+\)' README.md)
	[[ $n -ge 5 ]] || fail "only $n relative links found in README.md"
	[[ ${#bad[@]} -eq 0 ]] || fail "README.md links to what does not exist: ${bad[*]}"
}
