# SPDX-License-Identifier: GPL-2.0
# bench/bpfcc.bash, sourced by the bench tools that build variants of a BPF
# object themselves (bench/stages, bench/vlan-ratio), from the project's
# top directory.
#
# bpf_cc SRC OUT [FLAG...]: SRC compiled for BPF as the Makefile compiles
# bpf/ (make bpf-cc: CLANG and BPF_CFLAGS), with FLAGs (the variant's -D
# switches) after them.
# bpf_cc_route SRC OUT [FLAG...]: bpf/route.bpf.c (or a copy of it, SRC)
# the same way with the bench switches force-included: the route_prof.h
# beside SRC when there is one (a revision's, copied there), else
# bench/progs/route_prof.h; FLAGs give XF_PROF_OFF.
# The last line: in a tree never built, make configures first and says so.
read -ra bpf_cc_cmd <<<"$(make -s --no-print-directory bpf-cc | tail -n 1)"
((${#bpf_cc_cmd[@]})) || { echo "Error: make bpf-cc gave no compiler." >&2; exit 1; }
bpf_cc() {
	local src=$1 out=$2

	shift 2
	"${bpf_cc_cmd[@]}" "$@" -c "$src" -o "$out"
}
bpf_cc_route() {
	local src=$1 out=$2 prof=bench/progs/route_prof.h

	shift 2
	[[ -f ${src%/*}/route_prof.h ]] && prof=${src%/*}/route_prof.h
	bpf_cc "$src" "$out" -include "$prof" "$@"
}
