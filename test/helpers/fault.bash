# SPDX-License-Identifier: GPL-2.0
# Helpers of the reliability suites (txn, concurrency, crash, envfault):
# r1's whole state as xfwd, the kernel and the pin tree see it, and the
# XFWD_FAULT loops (vlan.bats kills a detach with kill_loop too). Needs
# helpers/common and helpers/route.

PROGS="$BATS_TEST_DIRNAME/../build/test/progs"
# Every xfwd of these suites is bounded: a hang fails the test.
XF_TIMEOUT=${XF_TIMEOUT:-20}
# Figures for the closing report: one line per command, appended.
FAULT_LOG=${FAULT_LOG:-$BATS_RUN_TMPDIR/fault-figures}

# xt ARGS...: xfwd in r1, bounded in time.
xt() { timeout -k 2 "$XF_TIMEOUT" xfwd -n "$XF_NS_R1" "$@"; }

# fault_setup: topology and the paths of r1's pins and object copies.
fault_setup() {
	topo_create
	PIN_DIR=$(pin_dir)
	RUN_DIR=/run/xfwd/${PIN_DIR##*/}
	ping4 1 "$XF_H2_IP4" -q >/dev/null
}

# fault_teardown: everything xfwd made in r1, then the namespaces. Pins
# left behind are removed and fail the test.
fault_teardown() {
	local left=0 d
	[[ -n ${XF_NS_R1:-} ]] || return 0
	xt route detach all >/dev/null 2>&1 || true
	for d in veth1 veth2; do
		xt redirect del dev "$d" all >/dev/null 2>&1 || true
		xt chain del dev "$d" all >/dev/null 2>&1 || true
	done
	left_behind "${PIN_DIR:-}" "${RUN_DIR:-}" || left=1
	topo_destroy
	((!left))
}

# sed: xfwd's show -j output without counters (they move with the
# namespace's own traffic: neighbour discovery, MLD). sed, not jq: this
# runs once per injected fault, and jq's start costs ten times more.
# route show's row "*" is counters only (what ran the program outside the
# set, which a rolled-back detach may add to): the last of its list.
_SED_CTRS='s/,?\{"dev":"\*".*\}\]\}$/]}/; s/"(aborted|drop|pass|tx|redirect|other|packets|bytes|forwarded|forwarded_bytes|passed|passed_bytes)":[0-9]+,?//g; s/"pass_reasons":\[[^]]*\],?//g; s/,}/}/g'
# ... and without what changes whenever an object is made again.
_SED_IDS='s/"[a-z_]*id":[0-9]+,?//g; s/,}/}/g'

# _shows [SED]: xfwd's route, chain and redirect show -j in r1, without
# counters (and SED's edits). Here-strings, not printf pipes: the state
# functions run after every injected fault, and each process they start
# costs about as much as what it does.
_shows() {
	xt -j -b - <<<$'route show\nchain show\nredirect show' | sed -E "$_SED_CTRS${1:+; $1}"
}

# in_r1_net CMD...: CMD in r1's network namespace only (nsenter): for the
# state functions, several times cheaper than ip netns exec or ip -n and
# tc -n, which also make a mount namespace and mount r1's /sys there.
in_r1_net() { nsenter --net="/run/netns/$XF_NS_R1" "$@"; }

# _snap [SED]: snap's text, with SED's edits: one pipeline into one sed.
# Few commands as well as few processes: under bats every shell command
# costs as much as a small process (its debug trap), so no shell loops.
_snap() {
	{
		xt -j -b - <<<$'route show\nchain show\nredirect show'
		in_r1_net ip -d link show
		in_r1_net bpftool net show
		in_r1_net tc -b - <<-EOT
			qdisc show dev veth1
			filter show dev veth1 ingress
			filter show dev veth1 egress
			qdisc show dev veth2
			filter show dev veth2 ingress
			filter show dev veth2 egress
		EOT
		# The set's membership as the maps hold it: an entry a
		# rolled-back attach left has no pin to show it.
		bpftool batch file - <<-EOT 2>/dev/null || true
			map dump pinned $PIN_DIR/route/xf_rt_ifcfg
			map dump pinned $PIN_DIR/route/xf_tx_ports
		EOT
		find "$PIN_DIR" "$RUN_DIR" -printf '%p %y %m %s\n' \
			\( -type f -path "$RUN_DIR/*" -exec md5sum {} + \) 2>/dev/null | sort
	} | sed -E "$_SED_CTRS${1:+; $1}"
}

# snap: r1's state, one text a diff can compare: xfwd's view without
# counters, the kernel's (links with their XDP program ids, bpftool net
# with tc and tcx program ids, tc's qdiscs and filters), the pin tree and
# the object copies with their checksums. Ids are kept: a command that
# failed must not have replaced anything.
snap() { _snap; }

# snap_rebuilt: snap with the kernel's ids left out, for a command whose
# rollback builds again what it had taken apart (FAULT_SNAP=snap_rebuilt):
# the same programs, maps, links and pins, under new ids.
snap_rebuilt() {
	_snap 's/\b(prog_id|link_id|map_id|btf_id|load_time|id)(": ?| )[0-9]+/\1\2N/g'
}

# The same without ids: for comparing two runs that both succeeded.
# Relative paths: concurrency.bats compares two namespaces' trees.
snap_norm() {
	_shows "$_SED_IDS"
	find "$PIN_DIR" "$RUN_DIR" \( -path "$RUN_DIR" -o -path "$RUN_DIR/*" \) -printf 'run %P\n' \
		-o -printf 'pin %P\n' 2>/dev/null | sort
}

# The programs xfwd's show reports on r1 equal those the kernel runs there.
# One jq for both sides: it costs more to start than to run.
consistent() {
	local r
	r=$({
		xt -j -b - <<<$'route show\nchain show\nredirect show'
		in_r1_net bpftool -j net show
	} | jq -rs '
		([(.[0].interfaces[] | select(.ifindex != 0) | .prog_id), .[1].interfaces[].prog_id,
		  .[2].rules[].prog_id] |
		 map(select(. != null)) | unique) as $s |
		([.[3][0].xdp[].id, .[3][0].tc[].prog_id] | unique) as $k |
		if $s == $k then "same" else "show says \($s | tojson), the kernel runs \($k | tojson)" end')
	[[ $r == same ]] || {
		echo "${r:-show or bpftool gave no answer}" >&2
		return 1
	}
}

# fault_loop UNDO -- CMD...: run xfwd CMD in r1 with XFWD_FAULT=fail:N for
# N = 1, 2, ... until it succeeds without reaching N (it fails the test
# when it injected no fault, or reached its bound of FAULT_MAX tries,
# default 4000, without that clean success). After every failure
# r1's state must equal the state before (snap, ids and all); a run that
# succeeded although call N failed (a failure xfwd may ignore) must equal
# a clean run, and is undone with UNDO (a command line, for xt). Leaves the
# command done, and the count of faults injected in FAULTS. FAULT_SNAP
# names the state function (snap, or snap_rebuilt). FAULT_STRIDE=K tries
# N = 1, 1 + K, 1 + 2K, ...: for commands of a thousand kernel calls
# (restore), whose every call would take the suite tens of minutes;
# FAULT_FIRST=N starts at N instead of 1.
fault_loop() {
	local undo=$1 n rc out tol=0
	shift 2
	local before after want state=${FAULT_SNAP:-snap}
	# The clean run first, for what success looks like.
	xt "$@" || fail "clean run of \"$*\" failed"
	want=$(snap_norm)
	# shellcheck disable=SC2086
	xt $undo || fail "undo \"$undo\" failed"
	before=$($state)
	local stride=${FAULT_STRIDE:-1} tried=0 clean=0 max=${FAULT_MAX:-4000}
	for ((n = ${FAULT_FIRST:-1}; n <= max; n += stride)); do
		rc=0
		out=$(XFWD_FAULT=fail:$n xt "$@" 2>&1) || rc=$?
		if [[ $out != *"fault: failing kernel call $n "* ]]; then
			((rc == 0)) || fail "\"$*\" failed with no fault at $n: $out"
			clean=1
			break
		fi
		tried=$((tried + 1))
		((rc != 124 && rc < 128)) || fail "\"$*\" hung or crashed at fault $n (rc $rc): $out"
		if ((rc == 0)); then
			tol=$((tol + 1))
			after=$(snap_norm)
			[[ $after == "$want" ]] || {
				_diff "$want" "$after"
				fail "\"$*\" succeeded past fault $n but not as a clean run: $out"
			}
			# shellcheck disable=SC2086
			xt $undo >/dev/null || fail "undo \"$undo\" after fault $n failed"
			before=$($state)
			continue
		fi
		[[ $out == *Error:* ]] || fail "\"$*\" failed at fault $n without an Error line: $out"
		after=$($state)
		[[ $after == "$before" ]] || {
			_diff "$before" "$after"
			fail "\"$*\" failed at fault $n (rc $rc) and changed r1: $out"
		}
	done
	# The guards of the loop itself: a run that injected nothing, or
	# stopped at its bound before the command got through, proved nothing.
	((clean)) || fail "\"$*\" still met a fault at $((n - stride)) after $tried tries (FAULT_MAX $max)"
	((tried > 0)) || fail "\"$*\": no fault injected (its first kernel call was never reached)"
	FAULTS=$tried
	echo "txn: $* : $FAULTS faults injected ($tol tolerated), all rolled back" >>"$FAULT_LOG"
	echo "# $*: $FAULTS faults injected, $tol tolerated" >&3
}

# _diff A B: the difference of texts A and B, on stderr; never fails, so
# that the fail after it names the fault (diff's status 1 would end the
# test first, under errexit). The loops compare in bash and start diff
# only for what they report.
_diff() { diff -u <(printf '%s\n' "$1") <(printf '%s\n' "$2") >&2 || true; }

# calls CMD...: how many kernel calls CMD makes (it is run).
calls() {
	local out
	out=$(XFWD_FAULT=count xt "$@" 2>&1) || { echo "$out" >&2; return 1; }
	[[ $out =~ fault:\ ([0-9]+)\ kernel\ calls ]] && echo "${BASH_REMATCH[1]}"
}

# after_kill WHAT: the checks after xfwd died.
after_kill() {
	consistent || fail "$1: show and the kernel disagree"
	nsenter --net="/run/netns/$XF_NS_H1" ping -c 1 -W 2 -q "$XF_H2_IP4" >/dev/null ||
		fail "$1: h1 cannot reach h2"
}

# kill_loop KILLS UNDO AGAIN -- CMD...: KILLS kills of xfwd CMD at calls
# spread from the first to the last it makes. After each: the check, CMD
# again (exit 0, or 1 or 2 with an error matching AGAIN, "work done"),
# the check, UNDO (exit 0), the check. KILL_CHECK names the check, a
# function of a message that fails or returns non-zero (default
# after_kill). KILL_STRIDE=K kills at calls 1, 1 + K, 1 + 2K, ... up to
# the last instead, KILLS ignored: for a window of K calls that some
# kill must hit. Fails the test unless every planned kill killed xfwd, and
# when it planned none (KILLS under 2 without a stride, a command that
# makes no kernel call).
kill_loop() {
	local kills=$1 undo=$2 again=$3 k n j rc out killed=0
	shift 4
	local k2 check=${KILL_CHECK:-after_kill} stride=${KILL_STRIDE:-0}
	((stride > 0 || kills > 1)) || fail "kill_loop: $kills kills without a stride (2 or more)"
	# Twice: the first run after a fresh start may make more calls.
	k=$(calls "$@") || fail "clean run of $* failed"
	# shellcheck disable=SC2086
	xt $undo || fail "undo $undo failed"
	k2=$(calls "$@") || fail "clean run of $* failed"
	# shellcheck disable=SC2086
	xt $undo || fail "undo $undo failed"
	((k2 > k)) || k=$k2
	((k > 0)) || fail "$*: no kernel call to kill at"
	((stride == 0)) || kills=$(((k - 1) / stride + 1))
	for ((j = 0; j < kills; j++)); do
		if ((stride)); then n=$((1 + j * stride)); else n=$((1 + j * (k - 1) / (kills - 1))); fi
		rc=0
		out=$(XFWD_FAULT=kill:$n xt "$@" 2>&1) || rc=$?
		if ((rc == 0)) && [[ $out =~ fault:\ ([0-9]+)\ kernel\ calls ]]; then
			# Fewer calls this time (state left by an earlier kill
			# is reused): kill it at its last.
			# shellcheck disable=SC2086
			xt $undo >/dev/null || fail "undo $undo failed"
			n=${BASH_REMATCH[1]}
			rc=0
			out=$(XFWD_FAULT=kill:$n xt "$@" 2>&1) || rc=$?
		fi
		((rc == 137)) || fail "$* at kill:$n: exit $rc, not killed: $out"
		killed=$((killed + 1))
		"$check" "$* killed at call $n" || fail "$* killed at call $n"
		rc=0
		out=$(xt "$@" 2>&1) || rc=$?
		((rc == 0)) || [[ $rc -lt 3 && -n $again && $out =~ $again ]] ||
			fail "$* again after kill:$n: exit $rc: $out"
		"$check" "$* again after kill:$n" || fail "$* again after kill:$n"
		# shellcheck disable=SC2086
		out=$(xt $undo 2>&1) || fail "undo $undo after kill:$n: $out"
		"$check" "undo after kill:$n" || fail "undo after kill:$n"
	done
	((killed > 0 && killed == kills)) || fail "$*: $killed kills of $kills planned"
	echo "crash: $* : $killed kills survived (of $k calls)" >>"$FAULT_LOG"
	echo "# $*: $killed kills at calls 1..$k survived" >&3
}
