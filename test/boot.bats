#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# xfwd@.service's ExecStart, run in its sandbox, restores a saved state;
# xfwd-monitor@.service's follows the namespace from inside it.
# This machine's PID 1 is not systemd, so the sandbox is rebuilt from the
# built unit's own settings: a private mount namespace with every mount
# read-only but ReadWritePaths=, RuntimeDirectory= and StateDirectory=
# (ProtectSystem=strict), the capability bounding set of
# CapabilityBoundingSet=, no new privileges. What strace sees is checked
# against SystemCallFilter=, RestrictAddressFamilies= and
# RestrictNamespaces=. Not rebuilt: seccomp itself, PrivateTmp and the
# Protect* settings of /proc, /sys and /dev.
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/common
load helpers/route

PROGS="$BATS_TEST_DIRNAME/../build/test/progs"

setup_file() {
	_need_root
	_need_progs pass
}

setup() {
	route_setup
	UNIT=$XF_TOP/build/systemd/xfwd@.service
	run -0 make -C "$XF_TOP" -s "build/systemd/xfwd@.service"
	run -0 xfwd help
	assert_line --regexp '^ *xfwd \[ OPTIONS \] restore '
}

teardown() {
	local p
	# A monitor left running by a failed test (its pid, from strace).
	[[ -z ${MON_PID:-} ]] || kill "$MON_PID" 2>/dev/null || true
	xr chain del dev veth1 all >/dev/null 2>&1 || true
	xr redirect del dev veth2 all >/dev/null 2>&1 || true
	# The state directory this test made for the sandbox, if still empty.
	while read -r p; do
		[[ $p != /var/lib/* ]] || rmdir "$p" 2>/dev/null || true
	done <"$BATS_TEST_TMPDIR/made" 2>/dev/null || true
	route_teardown
}

# unit_get KEY: the values of KEY= in the unit, space-separated.
unit_get() {
	sed -n "s/^$1=//p" "$UNIT" | paste -sd ' '
}

# What restore must bring back, without ids and counters.
shape() {
	xr -j route | jq -c '[.interfaces[] | {dev, hook, mode}]'
	xr -j chain | jq -c '[.interfaces[] | {dev, members: [.chain[].name]}]'
	xr -j redirect | jq -c '[.rules[] | {dev, dir, mode, to}]'
}

# in_sandbox BOUNDING CMD...: CMD as the unit would run it, its bounding
# set BOUNDING (setpriv's syntax), under strace -f into $BATS_TEST_TMPDIR/st.
in_sandbox() {
	local bounding=$1 rw=() p
	shift
	# ProtectSystem=strict leaves these writable; the directories are
	# made by systemd (RuntimeDirectory=, StateDirectory=, 0700) and the
	# lock by tmpfiles.d before the unit starts.
	read -ra rw <<<"$(unit_get ReadWritePaths)"
	rw+=("/run/$(unit_get RuntimeDirectory)" "/var/lib/$(unit_get StateDirectory)")
	for p in "${rw[@]}"; do
		[[ ! -e $p ]] || continue
		if [[ $p == /run/xfwd.lock ]]; then
			: >"$p"
		else
			mkdir -m 0700 "$p"
			echo "$p" >>"$BATS_TEST_TMPDIR/made"
		fi
	done
	strace -f -qq -o "$BATS_TEST_TMPDIR/st" unshare -m --propagation slave \
		bash -c '
		rw=$1 bounding=$2; shift 2
		for p in $rw; do mount --bind "$p" "$p" || exit 97; done
		awk "{ print \$5 }" /proc/self/mountinfo | sort -u | while read -r m; do
			case " $rw " in *" $m "*) continue ;; esac
			case $m in /proc | /proc/* | /dev | /dev/*) continue ;; esac
			mount -o remount,bind,ro "$m" 2>/dev/null || true
		done
		# The sandbox is read-only where it should be.
		: >/var/lib/xfwd-probe 2>/dev/null && exit 98
		mkdir /sys/fs/bpf/xfwd-probe && rmdir /sys/fs/bpf/xfwd-probe || exit 99
		exec setpriv --no-new-privs --inh-caps=-all --ambient-caps=-all \
			--bounding-set="$bounding" "$@"' sandbox "${rw[*]}" "$bounding" "$@"
}

# The system calls of the xfwd process in $BATS_TEST_TMPDIR/st (from its
# execve on), one a line.
xfwd_syscalls() {
	local pid
	pid=$(awk '/execve\("[^"]*\/xfwd", .* = 0$/ { print $1; exit }' "$BATS_TEST_TMPDIR/st")
	awk -v pid="$pid" '$1 == pid && /execve\("[^"]*\/xfwd", .* = 0$/ { on = 1 }
		on && $1 == pid' "$BATS_TEST_TMPDIR/st" |
		sed -nE 's/^[0-9]+ +([a-z0-9_]+)\(.*/\1/p' | sort -u
}

# xfwd_calls NAME: the first argument of each call NAME of the xfwd
# process, one a line (socket families, setns namespace types).
xfwd_calls() {
	local pid
	pid=$(awk '/execve\("[^"]*\/xfwd", .* = 0$/ { print $1; exit }' "$BATS_TEST_TMPDIR/st")
	awk -v pid="$pid" '$1 == pid' "$BATS_TEST_TMPDIR/st" |
		sed -nE "s/^[0-9]+ +$1\(([^,]*), ?([A-Z_]*).*/\1 \2/p" | sort -u
}

# The system calls SystemCallFilter= allows: its groups expanded.
allowed_syscalls() {
	local w
	for w in $(unit_get SystemCallFilter); do
		if [[ $w == @* ]]; then
			systemd-analyze syscall-filter "$w" 2>/dev/null |
				awk '/^ +@/ { system("systemd-analyze syscall-filter " $1 " 2>/dev/null") }
				{ print }'
		else
			echo "$w"
		fi
	done | awk '/^ +[a-z0-9_]+$/ { print $1 } /^[a-z0-9_]+$/ { print $1 }' | sort -u
}

@test "xfwd@.service's restore works in the unit's sandbox, within its system calls" {
	local caps bounding exec want
	warm_up
	cp "$PROGS/pass.bpf.o" "$BATS_TEST_TMPDIR/pass.bpf.o"
	run -0 xr route attach dev veth1 dev veth2 hook tc
	run -0 xr chain add dev veth1 obj "$BATS_TEST_TMPDIR/pass.bpf.o"
	run -0 xr redirect add dev veth2 to veth1
	want=$(shape)
	mkdir "$BATS_TEST_TMPDIR/etc"
	run -0 xr save file "$BATS_TEST_TMPDIR/etc/$XF_NS_R1.json"
	run -0 xr chain del dev veth1 all
	run -0 xr redirect del dev veth2 all
	run -0 xr route detach all

	# The unit's command for this namespace, on the xfwd under test and
	# this file.
	exec=$(unit_get ExecStart)
	exec=${exec//%i/$XF_NS_R1}
	exec=${exec/#*\/xfwd /$(command -v xfwd) }
	exec=${exec//\/etc\/xfwd\//$BATS_TEST_TMPDIR/etc/}
	caps=$(unit_get CapabilityBoundingSet)
	bounding=-all$(for c in $caps; do c=${c#CAP_}; printf ',+%s' "${c,,}"; done)
	grep -qx 'NoNewPrivileges=yes' "$UNIT"

	# Without CAP_NET_ADMIN it fails and changes nothing: the sandbox bites.
	run -1 in_sandbox "${bounding/,+net_admin/}" $exec
	assert_equal "$(shape)" $'[]\n[]\n[]'

	run -0 in_sandbox "$bounding" $exec
	assert_equal "$(shape)" "$want"
	run -0 comm -23 <(xfwd_syscalls) <(allowed_syscalls)
	assert_output ""
	# strace saw the calls that matter.
	run -0 xfwd_syscalls
	assert_line bpf
	assert_line setns
	# Sockets of RestrictAddressFamilies=, setns() of RestrictNamespaces=.
	run -0 comm -23 <(xfwd_calls socket | awk '{ print $1 }' | sort -u) \
		<(unit_get RestrictAddressFamilies | tr ' ' '\n' | sort -u)
	assert_output ""
	run -0 xfwd_calls setns
	assert_output --regexp '^[0-9]+ CLONE_NEWNET$'
	assert_equal "$(unit_get RestrictNamespaces)" net
}

@test "xfwd-monitor@.service's monitor works in the unit's sandbox, within its system calls" {
	local exec caps bounding out=$BATS_TEST_TMPDIR/monitor.out bg pid src=198.18.2.203
	UNIT=$XF_TOP/build/systemd/xfwd-monitor@.service
	run -0 make -C "$XF_TOP" -s "build/systemd/xfwd-monitor@.service"
	run -0 xr route attach dev veth1 dev veth2 hook "$ANY_HOOK"
	exec=$(unit_get ExecStart)
	exec=${exec//%i/$XF_NS_R1}
	exec=${exec/#*\/xfwd /$(command -v xfwd) }
	caps=$(unit_get CapabilityBoundingSet)
	bounding=-all$(for c in $caps; do c=${c#CAP_}; printf ',+%s' "${c,,}"; done)
	in_sandbox "$bounding" $exec >"$out" 2>&1 3>&- &
	bg=$!
	wait_until 10 grep -q '^refresh start ' "$out"
	MON_PID=$(awk '/execve\("[^"]*\/xfwd", .* = 0$/ { print $1; exit }' "$BATS_TEST_TMPDIR/st")
	# It follows the namespace from inside the sandbox: r1 gains an
	# address, and the monitor's refresh puts it in the table.
	in_r1 ip addr add "$src/32" dev lo
	wait_until 5 grep -qE '^refresh ([a-z]+,)*address[ ,]' "$out" || { cat "$out"; false; }
	assert_equal "$(source_check "$src")" "$(table_check)"
	# SIGTERM to the monitor itself (strace, unshare and setpriv stand
	# between it and this shell): it stops with status 0.
	pid=$MON_PID
	[[ -n $pid ]]
	kill -TERM "$pid"
	wait "$bg"
	MON_PID=
	grep -qE "^$pid +exit_group\(0\)" "$BATS_TEST_TMPDIR/st"
	run -0 comm -23 <(xfwd_syscalls) <(allowed_syscalls)
	assert_output ""
	run -0 xfwd_syscalls
	assert_line signalfd4
	run -0 comm -23 <(xfwd_calls socket | awk '{ print $1 }' | sort -u) \
		<(unit_get RestrictAddressFamilies | tr ' ' '\n' | sort -u)
	assert_output ""
}
