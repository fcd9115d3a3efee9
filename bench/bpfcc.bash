# SPDX-License-Identifier: GPL-2.0
# bench/bpfcc.bash, sourced by the bench tools that build variants of a BPF
# object themselves (bench/stages, bench/vlan-ratio).
#
# bpf_cc SRC OUT [FLAG...]: SRC compiled for BPF with the Makefile's
# BPF_CFLAGS and FLAGs (the variant's -D switches) after them.
bpf_cc() {
	local src=$1 out=$2

	shift 2
	clang-19 -g -O2 --target=bpf -D__TARGET_ARCH_x86 -Wall -Wno-unused-value -Ibpf \
		-idirafter "/usr/include/$(uname -m)-linux-gnu" "$@" -c "$src" -o "$out"
}
