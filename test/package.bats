#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# What is installed: the systemd units (systemd-analyze verify and
# security), make install's file list, and the Debian package built by
# make deb from a clean copy (its file list, its dependencies, lintian, and
# the binary, help and man pages run from a scratch root it is unpacked
# into). No root: the package build declares Rules-Requires-Root: no.
bats_require_minimum_version 1.8.2

setup_file() {
	local start
	XF_TOP="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
	export XF_TOP
	# One clean package build for the file; the tests read its log.
	start=$SECONDS
	make -C "$XF_TOP" --no-print-directory deb >"$BATS_FILE_TMPDIR/deb.log" 2>&1 &&
		echo ok >"$BATS_FILE_TMPDIR/deb.status"
	echo "# make deb: $((SECONDS - start)) s" >&3
	DEB=$(echo "$XF_TOP"/build/deb/xfwd_*_*.deb)
	ROOT=$BATS_FILE_TMPDIR/root
	export DEB ROOT
	if [[ -f $BATS_FILE_TMPDIR/deb.status && -f $DEB ]]; then
		dpkg -x "$DEB" "$ROOT"
	fi
}

setup() {
	load helpers/common
	_common_setup
}

# top_make ARGS...: make in the tree, quietly, without make's own
# "Entering directory" lines (printed under "make -C DIR check").
top_make() {
	make -C "$XF_TOP" --no-print-directory -s "$@"
}

# make_var NAME: the value of the Makefile's variable NAME.
make_var() {
	top_make --eval="p: ; @echo \$($1)" p
}

# The package build worked and left one .deb, unpacked into $ROOT.
need_deb() {
	[[ -f $BATS_FILE_TMPDIR/deb.status ]] || {
		tail -n 30 "$BATS_FILE_TMPDIR/deb.log"
		fail "make deb failed"
	}
	[[ -x $ROOT/usr/sbin/xfwd ]] || fail "$DEB not unpacked into $ROOT"
}

# verify_units DIR SBINDIR MANDIR: systemd-analyze verify of DIR's units
# (xfwd@.service as an instance) with their ExecStart's SBINDIR replaced
# by the directory of a binary that exists here (verify checks that it is
# executable), and the man pages of Documentation= looked up in MANDIR.
# Any message fails: verify warns about unknown keys and bad values on
# stderr and still exits 0.
verify_units() {
	local dir=$1 sbindir=$2 mandir=$3 tmp=$BATS_TEST_TMPDIR/units u
	mkdir -p "$tmp"
	for u in xfwd.service xfwd@.service xfwd-monitor.service xfwd-monitor@.service; do
		grep -q "^ExecStart=$sbindir/xfwd " "$dir/$u" ||
			fail "$dir/$u: ExecStart is not $sbindir/xfwd"
		sed "s|^ExecStart=$sbindir/xfwd |ExecStart=$XF_TOP/build/xfwd |" \
			"$dir/$u" >"$tmp/$u"
	done
	cd "$tmp"
	run -0 env MANPATH="$mandir" systemd-analyze verify xfwd.service xfwd@r1.service \
		xfwd-monitor.service xfwd-monitor@r1.service
	assert_output ""
}

# man_pages FORMAT: printf FORMAT for each man page the tree has
# (man/man8/NAME.8.in gives NAME.8), so that a new page needs no edit here.
man_pages() {
	local p
	for p in "$XF_TOP"/man/man8/*.8.in; do
		p=${p##*/}
		printf -- "$1" "${p%.in}"
	done
}

@test "the built units pass systemd-analyze verify, man pages included" {
	local man=$BATS_TEST_TMPDIR/man
	run -0 top_make build/xfwd build/systemd/xfwd.service build/systemd/xfwd@.service \
		build/systemd/xfwd-monitor.service build/systemd/xfwd-monitor@.service build/man/xfwd.8
	mkdir -p "$man/man8"
	cp "$XF_TOP/build/man/xfwd.8" "$man/man8/"
	verify_units "$XF_TOP/build/systemd" \
		"$(make_var SBINDIR)" "$man"
	# And it does fail on what it should: an unknown key, a bad value.
	sed -i 's/^NoNewPrivileges=yes/NoNewPrivilege=yes\nRestrictNamespaces=netns/' \
		"$BATS_TEST_TMPDIR/units/xfwd.service"
	run -0 systemd-analyze verify --man=no xfwd.service
	assert_line --partial "Unknown key 'NoNewPrivilege'"
	assert_line --partial "Failed to parse namespace type string, ignoring: netns"
}

@test "the units' sandbox keeps its exposure at 3.0 or below" {
	local u
	run -0 top_make build/systemd/xfwd.service build/systemd/xfwd@.service \
		build/systemd/xfwd-monitor.service build/systemd/xfwd-monitor@.service
	cd "$XF_TOP/build/systemd"
	for u in xfwd.service xfwd@r1.service xfwd-monitor.service xfwd-monitor@r1.service; do
		# The threshold is in tenths; the table, shown on failure, says
		# which settings cost what.
		run -0 systemd-analyze security --offline=yes --no-pager --threshold=30 "$u"
		assert_line --partial "Overall exposure level for $u:"
	done
}

@test "make install puts the units, tmpfiles.d and /etc/xfwd (0700) under DESTDIR" {
	local d=$BATS_TEST_TMPDIR/inst
	run -0 top_make install DESTDIR="$d"
	run -0 bash -c "cd '$d' && find . -printf '%M %p\n' | sort -k2"
	assert_output "$({
		cat <<-EOF
			drwxr-xr-x .
			drwxr-xr-x ./etc
			drwx------ ./etc/xfwd
			drwxr-xr-x ./lib
			drwxr-xr-x ./lib/systemd
			drwxr-xr-x ./lib/systemd/system
			-rw-r--r-- ./lib/systemd/system/xfwd-monitor.service
			-rw-r--r-- ./lib/systemd/system/xfwd-monitor@.service
			-rw-r--r-- ./lib/systemd/system/xfwd.service
			-rw-r--r-- ./lib/systemd/system/xfwd@.service
			drwxr-xr-x ./usr
			drwxr-xr-x ./usr/lib
			drwxr-xr-x ./usr/lib/tmpfiles.d
			-rw-r--r-- ./usr/lib/tmpfiles.d/xfwd.conf
			drwxr-xr-x ./usr/local
			drwxr-xr-x ./usr/local/sbin
			-rwxr-xr-x ./usr/local/sbin/xfwd
			drwxr-xr-x ./usr/local/share
			drwxr-xr-x ./usr/local/share/bash-completion
			drwxr-xr-x ./usr/local/share/bash-completion/completions
			-rw-r--r-- ./usr/local/share/bash-completion/completions/xfwd
			drwxr-xr-x ./usr/local/share/man
			drwxr-xr-x ./usr/local/share/man/man8
		EOF
		man_pages '-rw-r--r-- ./usr/local/share/man/man8/%s\n'
	} | sort -k2)"
	run -0 grep -h '^ExecStart=' "$d"/lib/systemd/system/*.service
	assert_output "ExecStart=/usr/local/sbin/xfwd monitor
ExecStart=/usr/local/sbin/xfwd -n %i monitor
ExecStart=/usr/local/sbin/xfwd restore file /etc/xfwd/xfwd.json
ExecStart=/usr/local/sbin/xfwd -n %i restore file /etc/xfwd/%i.json"
}

@test "make deb builds without install-deps and without writing outside build/deb" {
	local v a
	need_deb
	run -0 cat "$BATS_FILE_TMPDIR/deb.log"
	# The package build runs plain make, whose config.mk rule runs
	# configure alone: install-deps ("deps: ...") never runs.
	assert_line "./configure --prefix=/usr"
	refute_line --partial "deps:"
	refute_line --partial "install-deps"
	# The unit tests ran in the build, and passed.
	assert_line --regexp '^test_arg: [0-9]+ passed, 0 failed$'
	v=$(make_var VERSION)
	a=$(dpkg --print-architecture)
	run -0 bash -c "cd '$XF_TOP/build/deb' && ls -1 | sort"
	assert_output - <<-EOF
		xfwd-$v
		xfwd_${v}_$a.buildinfo
		xfwd_${v}_$a.changes
		xfwd_${v}_$a.deb
	EOF
	run -0 find "$XF_TOP/.." -maxdepth 1 -name 'xfwd_*'
	assert_output ""
}

@test "the .deb holds exactly the expected files, with their modes" {
	need_deb
	run -0 bash -c "dpkg -c '$DEB' | awk '{ print \$1, \$2, \$6 }' | sort -k3"
	assert_output "$({
		cat <<-EOF
			drwxr-xr-x root/root ./
			drwxr-xr-x root/root ./etc/
			drwx------ root/root ./etc/xfwd/
			drwxr-xr-x root/root ./lib/
			drwxr-xr-x root/root ./lib/systemd/
			drwxr-xr-x root/root ./lib/systemd/system/
			-rw-r--r-- root/root ./lib/systemd/system/xfwd-monitor.service
			-rw-r--r-- root/root ./lib/systemd/system/xfwd-monitor@.service
			-rw-r--r-- root/root ./lib/systemd/system/xfwd.service
			-rw-r--r-- root/root ./lib/systemd/system/xfwd@.service
			drwxr-xr-x root/root ./usr/
			drwxr-xr-x root/root ./usr/lib/
			drwxr-xr-x root/root ./usr/lib/tmpfiles.d/
			-rw-r--r-- root/root ./usr/lib/tmpfiles.d/xfwd.conf
			drwxr-xr-x root/root ./usr/sbin/
			-rwxr-xr-x root/root ./usr/sbin/xfwd
			drwxr-xr-x root/root ./usr/share/
			drwxr-xr-x root/root ./usr/share/bash-completion/
			drwxr-xr-x root/root ./usr/share/bash-completion/completions/
			-rw-r--r-- root/root ./usr/share/bash-completion/completions/xfwd
			drwxr-xr-x root/root ./usr/share/doc/
			drwxr-xr-x root/root ./usr/share/doc/xfwd/
			-rw-r--r-- root/root ./usr/share/doc/xfwd/README.Debian
			-rw-r--r-- root/root ./usr/share/doc/xfwd/changelog.gz
			-rw-r--r-- root/root ./usr/share/doc/xfwd/copyright
			drwxr-xr-x root/root ./usr/share/lintian/
			drwxr-xr-x root/root ./usr/share/lintian/overrides/
			-rw-r--r-- root/root ./usr/share/lintian/overrides/xfwd
			drwxr-xr-x root/root ./usr/share/man/
			drwxr-xr-x root/root ./usr/share/man/man8/
		EOF
		man_pages '-rw-r--r-- root/root ./usr/share/man/man8/%s.gz\n'
	} | sort -k3)"
}

@test "the unpacked binary runs -V and help; its man pages render" {
	local page out
	need_deb
	run -0 --separate-stderr "$ROOT/usr/sbin/xfwd" -V
	assert_output --regexp "^xfwd $(make_var VERSION) "
	run -0 --separate-stderr "$ROOT/usr/sbin/xfwd" help
	assert_output --partial "Usage: xfwd [ OPTIONS ] OBJECT"
	assert_equal "$stderr" ""
	for page in "$ROOT"/usr/share/man/man8/*.8.gz; do
		out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null)
		assert_equal "$out" ""
	done
	run -0 env LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$ROOT/usr/share/man/man8/xfwd.8.gz"
	assert_line --regexp '^NAME$'
	assert_output --partial "xfwd - "
}

@test "the monitors ship disabled: a fresh install enables none, an upgrade keeps the operator's choice" {
	need_deb
	run -0 dpkg-deb -I "$DEB" postinst
	# dh_installsystemd --no-enable: enable only what was enabled before
	# (debian-installed), where the default enables on a fresh install.
	assert_line --partial "deb-systemd-helper debian-installed 'xfwd-monitor.service'"
	refute_line --partial "deb-systemd-helper debian-installed 'xfwd.service'"
}

@test "the packaged units name the packaged binary and pass verify" {
	need_deb
	[[ -x $ROOT/usr/sbin/xfwd ]]
	verify_units "$ROOT/lib/systemd/system" /usr/sbin "$ROOT/usr/share/man"
}

@test "the dependencies come from dh_shlibdeps, libbpf newer than bookworm's" {
	local dep min
	need_deb
	run -0 dpkg-deb -f "$DEB" Depends
	dep=$output
	for lib in libbpf1 libc6 libelf1 libjansson4 libmnl0 libnftnl11; do
		[[ $dep == *"$lib ("* ]] || fail "no $lib in Depends: $dep"
	done
	# bookworm has libbpf1 1:1.1.2, without the calls xfwd makes; the
	# package must need the newer one of bookworm-backports.
	min=$(sed -n 's/.*libbpf1 (>= \([^)]*\)).*/\1/p' <<<"$dep")
	run -0 dpkg --compare-versions 1:1.1.2 lt "$min"
}

@test "lintian: no tag beyond the explained overrides, pedantic and info included" {
	need_deb
	run -0 --separate-stderr lintian --info --pedantic --fail-on error,warning,info,pedantic \
		"$XF_TOP"/build/deb/xfwd_*.changes
	assert_output ""
	# Each override has its reason above it.
	run -0 awk 'NF == 0 { first = ""; next } first == "" { first = $0 }
		/^xfwd:/ && first !~ /^#/ { print NR ": " $0 }' \
		"$XF_TOP/debian/xfwd.lintian-overrides"
	assert_output ""
}
