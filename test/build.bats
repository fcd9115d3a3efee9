#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The build is hermetic: ./configure and plain make install nothing, and a
# missing build dependency ends them with one line naming it and its Debian
# package. Each test builds in a copy of the tree (the files git knows, as
# make deb copies them), with the dependency taken away from its PATH or
# pkg-config path, and runs under strace to see every program started.
# Also: test/vm/fetch-kernel fails clearly on a pin the archive lacks.
bats_require_minimum_version 1.8.2

setup_file() {
	local top d f
	top="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
	# One pristine copy; each test copies it again (cp -a keeps mtimes, so
	# make sees what a fresh clone has). Outside git (an unpacked
	# tarball): the tree without what the build writes.
	mkdir -p "$BATS_FILE_TMPDIR/src"
	if git -C "$top" rev-parse --show-toplevel >/dev/null 2>&1; then
		git -C "$top" ls-files -z --cached --others --exclude-standard |
			(cd "$top" && tar --null -T - --ignore-failed-read -cf -) |
			tar -xf - -C "$BATS_FILE_TMPDIR/src"
	else
		tar -C "$top" --exclude=./build --exclude=./config.mk \
			--exclude=./config.mk.tmp -cf - . | tar -xf - -C "$BATS_FILE_TMPDIR/src"
	fi
	[[ -x $BATS_FILE_TMPDIR/src/configure && ! -e $BATS_FILE_TMPDIR/src/config.mk ]]
	# A PATH of symlinks to everything on PATH but clang-19.
	mkdir -p "$BATS_FILE_TMPDIR/bin"
	IFS=: read -ra d <<<"$PATH"
	for f in $(printf '%s/*\n' "${d[@]}"); do
		[[ -x $f && ${f##*/} != clang-19 && ! -e $BATS_FILE_TMPDIR/bin/${f##*/} ]] || continue
		ln -s "$f" "$BATS_FILE_TMPDIR/bin/${f##*/}"
	done
	# pkg-config's search path with every module but jansson (which no
	# other module requires).
	mkdir -p "$BATS_FILE_TMPDIR/pc"
	for d in $(pkg-config --variable pc_path pkg-config | tr : ' '); do
		for f in "$d"/*.pc; do
			[[ -e $f && ${f##*/} != jansson.pc && ! -e $BATS_FILE_TMPDIR/pc/${f##*/} ]] || continue
			ln -s "$f" "$BATS_FILE_TMPDIR/pc/${f##*/}"
		done
	done
	export XF_TOP=$top
}

setup() {
	bats_load_library bats-support
	bats_load_library bats-assert
	TREE=$BATS_TEST_TMPDIR/tree
	cp -a "$BATS_FILE_TMPDIR/src" "$TREE"
	cd "$TREE" || return
	TRACE=$BATS_TEST_TMPDIR/execve.log
}

teardown() {
	[[ -z ${USERDIR:-} ]] || rm -rf "$USERDIR"
}

# traced CMD...: CMD under strace, every program it and its children start
# logged to $TRACE.
traced() {
	strace -f -qq -e trace=execve -e signal=none -o "$TRACE" "$@"
}

# assert_installed_nothing [NAME...]: the trace shows programs run, and
# none of apt, apt-get, apt-cache, aptitude, dpkg or NAME among them.
assert_installed_nothing() {
	local names
	names=$(printf '|%s' apt-get apt-cache aptitude dpkg "$@")
	run -0 grep -c 'execve(' "$TRACE"
	[[ $output -gt 1 ]] || fail "strace saw $output programs start"
	run -1 grep -E "execve\\(\"[^\"]*/(apt$names)\"" "$TRACE"
}

ERR_TAIL='run scripts/install-deps build, or make check / make demo which install it)'

@test "configure without clang-19 on PATH: one Error naming it, exit 1, nothing installed" {
	[[ -x $BATS_FILE_TMPDIR/bin/sh && ! -e $BATS_FILE_TMPDIR/bin/clang-19 ]]
	run -1 --separate-stderr traced env PATH="$BATS_FILE_TMPDIR/bin" ./configure
	assert_equal "$stderr" "Error: build dependency missing: clang-19 (Debian package clang-19; $ERR_TAIL"
	assert_line --regexp '^clang-19: +no '
	[[ ! -e config.mk && ! -e config.mk.tmp ]]
	assert_installed_nothing install-deps
}

@test "configure without jansson's pkg-config module: one Error naming it, exit 1" {
	run -1 --separate-stderr traced env PKG_CONFIG_LIBDIR="$BATS_FILE_TMPDIR/pc" ./configure
	assert_equal "$stderr" "Error: build dependency missing: jansson (Debian package libjansson-dev; $ERR_TAIL"
	assert_line --regexp '^libbpf: +yes '
	[[ ! -e config.mk ]]
	assert_installed_nothing install-deps
}

@test "make with CLANG that does not exist stops in configure, naming it, and installs nothing" {
	run -2 --separate-stderr traced make --no-print-directory CLANG=/nonexistent
	assert_equal "$(grep '^Error' <<<"$stderr")" \
		"Error: build dependency missing: /nonexistent (Debian package clang-19; $ERR_TAIL"
	[[ ! -e config.mk && ! -e build/xfwd ]]
	assert_installed_nothing install-deps
}

@test "make without jansson stops in configure and installs nothing" {
	run -2 --separate-stderr traced env PKG_CONFIG_LIBDIR="$BATS_FILE_TMPDIR/pc" make --no-print-directory
	assert_equal "$(grep '^Error' <<<"$stderr")" \
		"Error: build dependency missing: jansson (Debian package libjansson-dev; $ERR_TAIL"
	assert_installed_nothing install-deps
}

@test "make -n all: configure alone remakes config.mk; a configured tree runs neither" {
	# make remakes a missing config.mk for real even under -n (and does
	# not print its recipe): configure's lines show it ran.
	run -0 make --no-print-directory -n all
	assert_line --regexp '^clang: +yes'
	refute_output --partial "install-deps"
	refute_output --partial "deps:"
	assert_line --regexp ' -o build/xfwd '
	[[ -f config.mk ]]
	run -0 make --no-print-directory -n all
	refute_output --partial "configure"
	refute_line --regexp '^clang:'
	refute_output --partial "install-deps"
	assert_line --regexp ' -o build/xfwd '
}

@test "configure: an unknown option is a usage error, and writes nothing" {
	run -2 --separate-stderr ./configure --with-apt
	assert_equal "$stderr" "Error: configure: unknown option '--with-apt'"
	[[ ! -e config.mk ]]
}

@test "install-deps: an unknown set is a usage error; the sets say what is missing" {
	run -2 --separate-stderr scripts/install-deps build nothing
	assert_equal "$stderr" "Error: install-deps: unknown set 'nothing' (sets: build demo test bench)"
	# As a user, with clang-19 away from PATH: a report, no apt. The
	# user needs a copy and a PATH it can read: the test's own directory
	# is root's alone.
	USERDIR=$(mktemp -d /tmp/xfwd-build-bats.XXXXXX)
	chmod 755 "$USERDIR"
	cp scripts/install-deps "$USERDIR/"
	cp -a "$BATS_FILE_TMPDIR/bin" "$USERDIR/bin"
	run -1 --separate-stderr traced setpriv --reuid=65534 --regid=65534 --clear-groups \
		env PATH="$USERDIR/bin" "$USERDIR/install-deps" build
	assert_output "deps: missing (build): clang-19"
	assert_equal "$stderr" "Error: missing packages: clang-19; as root on Debian run scripts/install-deps build"
	assert_installed_nothing
}

# fetch_kernel ARGS...: test/vm/fetch-kernel with its own cache under the
# test's directory and the pin file $PINS. Offline when an earlier run
# left sid's apt lists in the shared cache (they are linked, not copied).
fetch_kernel() {
	local shared=${XDG_CACHE_HOME:-$HOME/.cache}/xfwd-vm/apt-sid/lists
	mkdir -p "$BATS_TEST_TMPDIR/cache/apt-sid"
	if compgen -G "$shared/*_Packages*" >/dev/null; then
		ln -sfn "$shared" "$BATS_TEST_TMPDIR/cache/apt-sid/lists"
		export XF_APT_OFFLINE=1
	fi
	XF_VM_CACHE=$BATS_TEST_TMPDIR/cache XF_VM_KERNELS=$PINS test/vm/fetch-kernel "$@"
}

@test "fetch-kernel: a pin the archive lacks is an Error naming it and its file" {
	PINS=$BATS_TEST_TMPDIR/kernels
	echo "sid 7.2 linux-image-7.2.13+deb14-amd64 7.2.13-0xfwd0" >"$PINS"
	run --separate-stderr fetch_kernel sid 7.2
	[[ $stderr != "Error: apt-get update of sid failed" ]] || skip "no Debian archive reachable"
	assert_equal "$status" 1
	assert_output ""
	assert_regex "$stderr" '^Error: pinned kernel linux-image-7\.2\.13\+deb14-amd64 7\.2\.13-0xfwd0 \("sid 7\.2" in '"$PINS"'\) is gone from Debian sid; newest there: linux-image-7\.2\S+-amd64 \S+; move the pin as '"$PINS"' says$'
	[[ $(find "$BATS_TEST_TMPDIR/cache" -maxdepth 1 -name 'kernel-*' | wc -l) -eq 0 ]]
	# A series without a pin.
	run -1 --separate-stderr fetch_kernel bookworm 6.1
	assert_equal "$stderr" "Error: no pin for \"bookworm 6.1\" in $PINS"
}

@test "fetch-kernel: the cache directory is named for the pinned version" {
	local ready=$BATS_TEST_TMPDIR/cache/kernel-sid-7.2.13+deb14-amd64_7.2.13-1
	PINS=$BATS_TEST_TMPDIR/kernels
	echo "sid 7.2 linux-image-7.2.13+deb14-amd64 7.2.13-1" >"$PINS"
	mkdir -p "$ready"
	touch "$ready/ready"
	# The pinned version is in the cache: found without apt.
	run -0 --separate-stderr traced env XF_VM_CACHE="$BATS_TEST_TMPDIR/cache" \
		XF_VM_KERNELS="$PINS" test/vm/fetch-kernel sid 7.2
	assert_output "$ready"
	assert_installed_nothing install-deps
	# A moved pin does not take the other version's directory.
	echo "sid 7.2 linux-image-7.2.13+deb14-amd64 7.2.13-0xfwd0" >"$PINS"
	run --separate-stderr fetch_kernel sid 7.2
	refute_output "$ready"
	assert_equal "$status" 1
}

@test "test/vm/kernels pins sid 7.2 and bookworm 6.1, one line each, in the form --newest prints" {
	run -0 grep -v '^#' test/vm/kernels
	assert_equal "$(awk 'NF' <<<"$output" | awk '{ print $1, $2, NF }')" "sid 7.2 4
bookworm 6.1 4"
	assert_regex "$(grep '^sid ' test/vm/kernels)" '^sid +7\.2 +linux-image-7\.2\.[0-9]+\+deb[0-9]+-amd64 +7\.2\.[0-9]+-[0-9]+$'
	assert_regex "$(grep '^bookworm ' test/vm/kernels)" '^bookworm +6\.1 +linux-image-6\.1\.0-[0-9]+-amd64 +6\.1\.[0-9]+-[0-9]+$'
	PINS=/nonexistent
	run --separate-stderr fetch_kernel --newest sid 7.2
	[[ $stderr != "Error: apt-get update of sid failed" ]] || skip "no Debian archive reachable"
	assert_equal "$status" 0
	assert_output --regexp '^sid 7\.2 linux-image-7\.2\.[0-9]+\+deb[0-9]+-amd64 7\.2\.[0-9]+-[0-9]+$'
}
