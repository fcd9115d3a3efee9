# SPDX-License-Identifier: GPL-2.0
# The peer, xdp-forward of xdp-tools 1.5 (Debian trixie), on r1's veth1
# and veth2, for bench/run and bench/ab: fetched by scripts/fetch-peer
# into the cache and run through its own loader (scripts/peer-run). Needs
# scripts/topo.bash sourced; the caller's cleanup calls peer_unload.

# peer_root: the extracted tree, empty when the peer is missing, and then
# peer_why says why. peer_loaded: xdp-forward is on r1's veths.
peer_root='' peer_why='' peer_ver='' peer_loaded=''
peer() { ip netns exec "$XF_NS_R1" scripts/peer-run "$peer_root" xdp-forward "$@"; }

# peer_unload: off r1's veths, if it is on (it pins nothing: inside ip
# netns exec, /sys/fs/bpf is not a bpffs and libxdp runs without one).
peer_unload() {
	[[ -n $peer_loaded ]] || return 0
	peer unload veth1 veth2 >/dev/null 2>&1 || true
	peer_loaded=
}

# peer_load MODE ERRFILE: on r1's veths in fib mode MODE (full, direct),
# its errors in ERRFILE.
peer_load() {
	peer load --fib-mode "$1" veth1 veth2 >/dev/null 2>"$2" || return 1
	peer_loaded=1
}

# peer_find ERRFILE: fetch the peer and check that it runs; peer_root
# set, or empty with peer_why.
peer_find() {
	if peer_root=$(scripts/fetch-peer 2>"$1"); then
		# "load --version" prints the version and exits 1.
		peer_ver=$(scripts/peer-run "$peer_root" xdp-forward load --version 2>&1 || true)
		if [[ $peer_ver != *"xdp-forward version"* ]]; then
			peer_why="xdp-forward does not run: $(head -n 1 <<<"$peer_ver")"
			peer_root=
		fi
	else
		peer_why=$(grep -m 1 '^Error' "$1" || tail -n 1 "$1")
		peer_why="scripts/fetch-peer failed: ${peer_why:-no reason given}"
		peer_root=
	fi
}
