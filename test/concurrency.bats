#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Concurrency: 20 xfwd processes at once against r1, mixing attach,
# detach, chain changes, rule changes and stats. Each succeeds or fails
# cleanly (exit 0 or 1 with an Error line; a changing command waits for
# /run/xfwd.lock). XFWD_LOCK_LOG records the order the lock was granted;
# the same commands run serially in that order on a fresh topology must
# give the same exit codes and the same final show -j.
bats_require_minimum_version 1.8.2
# bats file_tags=root

load helpers/reliability

suite_setup() {
	xdp_ready
	CMDS=(
		"route attach dev veth1 hook xdp"
		"route attach dev veth2 hook tc"
		"route detach dev veth2"
		"chain add dev veth1 obj $PROGS/count.bpf.o name a"
		"chain add dev veth1 obj $PROGS/pass.bpf.o name b"
		"chain order dev veth1 b a"
		"chain set dev veth1 name a on pass next"
		"chain del dev veth1 name b"
		"chain add dev veth1 obj $PROGS/count.bpf.o name c first"
		"redirect add dev veth2 egress match 198.18.7.0/24 to veth1"
		"redirect add dev veth2 egress match 198.18.8.0/24 to veth1"
		"redirect del dev veth2 egress match 198.18.7.0/24"
		"redirect add dev veth1 egress match 198.18.9.0/24 to veth2 mode mirror"
		"route detach dev veth1"
		"stats reset"
		"stats"
		"stats dev veth1"
		"route show"
		"chain show"
		"redirect show"
	)
}

# all_at_once DIR: every command of CMDS in the background, at once; exit
# code, stdout and stderr of command i in DIR/{rc,out,err}.i.
all_at_once() {
	local dir=$1 i pids=()
	for i in "${!CMDS[@]}"; do
		# shellcheck disable=SC2086
		(
			rc=0
			XFWD_LOCK_LOG=$dir/lock.log xt ${CMDS[i]} >"$dir/out.$i" 2>"$dir/err.$i" ||
				rc=$?
			echo "$rc" >"$dir/rc.$i"
		) 3>&- &
		pids+=($!)
	done
	wait "${pids[@]}"
}

# index CMD: i with CMDS[i] = CMD.
index() {
	local i
	for i in "${!CMDS[@]}"; do
		[[ ${CMDS[i]} == "$1" ]] && { echo "$i"; return; }
	done
	return 1
}

one_round() {
	local dir=$BATS_TEST_TMPDIR/round$1 i rc line cmd locked=0 replayed=0
	mkdir -p "$dir"
	all_at_once "$dir"
	for i in "${!CMDS[@]}"; do
		rc=$(<"$dir/rc.$i")
		case $rc in
		0) ;;
		# 2: a refusal that depends on the state (e.g. an order of
		# members the chain does not have now).
		1 | 2) grep -q '^Error: ' "$dir/err.$i" ||
			fail "\"${CMDS[i]}\" failed without an Error line: $(<"$dir/err.$i")" ;;
		*) fail "\"${CMDS[i]}\" exit $rc: $(<"$dir/err.$i")" ;;
		esac
		[[ ${CMDS[i]} == *show* || ${CMDS[i]} == "stats" ||
		   ${CMDS[i]} == "stats dev veth1" ]] || locked=$((locked + 1))
	done
	# Every changing command took the lock once, stats reset among them.
	assert_equal "$(wc -l <"$dir/lock.log")" "$locked"
	consistent_show >"$dir/concurrent"

	# The same, one after the other in the order of the lock.
	fault_teardown
	fault_setup
	xdp_ready
	while read -r _ line; do
		i=$(index "$line") || fail "lock log line \"$line\" is no command of the test"
		rc=0
		# shellcheck disable=SC2086
		xt $line >/dev/null 2>"$dir/serial.$i" || rc=$?
		[[ $rc == "$(<"$dir/rc.$i")" ]] ||
			fail "\"$line\": exit $(<"$dir/rc.$i") at once, $rc serially: $(<"$dir/err.$i") / $(<"$dir/serial.$i")"
		replayed=$((replayed + 1))
	done <"$dir/lock.log"
	consistent_show >"$dir/serial"
	diff -u "$dir/serial" "$dir/concurrent" >&2 ||
		fail "20 at once did not end as the same commands one by one"
	echo "concurrency: round $1: 20 processes, $replayed changes replayed in lock order, same result" >>"$FAULT_LOG"
}

# show -j of everything without ids and counters, and the pin tree.
consistent_show() {
	snap_norm
}

@test "20 processes at once end as the same commands run serially in lock order (3 rounds)" {
	one_round 1
	fault_teardown
	fault_setup
	xdp_ready
	one_round 2
	fault_teardown
	fault_setup
	xdp_ready
	one_round 3
}

# lock_waiter PID: a process under PID (a child or grandchild) waits in
# flock() for /run/xfwd.lock, as /proc/locks shows it ("->" lines).
lock_waiter() {
	local ino kids p
	ino=$(stat -c %i /run/xfwd.lock) || return
	kids=$(pgrep -P "$1")
	for p in $kids; do
		kids+=" $(pgrep -P "$p")"
	done
	awk -v ino="$ino" -v kids=" ${kids//$'\n'/ } " 'BEGIN { rc = 1 }
		$2 == "->" && $7 ~ (":" ino "$") && index(kids, " " $6 " ") { rc = 0 }
		END { exit rc }' /proc/locks
}

@test "XFWD_LOCK_LOG records each changing command once, after the lock is taken" {
	local log=$BATS_TEST_TMPDIR/lock.log
	XFWD_LOCK_LOG=$log xt route attach dev veth1 hook tc
	XFWD_LOCK_LOG=$log xt route show >/dev/null
	XFWD_LOCK_LOG=$log run -1 xt route attach dev veth1 hook tc
	run -0 cut -d' ' -f2- "$log"
	assert_output "route attach dev veth1 hook tc
route attach dev veth1 hook tc"
	# A second xfwd waits for the lock a first one holds.
	exec {lk}>>/run/xfwd.lock
	flock -x "$lk"
	XFWD_LOCK_LOG=$log xt route detach all 3>&- &
	local bg=$!
	# The kernel lists the second xfwd as a waiter on the lock; until it
	# gets it, it has logged nothing.
	wait_until 5 lock_waiter "$bg"
	assert_equal "$(wc -l <"$log")" 2
	flock -u "$lk"
	exec {lk}>&-
	wait "$bg"
	assert_equal "$(wc -l <"$log")" 3
}
