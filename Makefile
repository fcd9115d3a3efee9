# SPDX-License-Identifier: GPL-2.0
# xfwd: one non-recursive Makefile. Output goes to build/; V=1 shows commands.

# make never installs anything: a missing config.mk is remade by
# ./configure alone, which names a missing build dependency and stops.
# Goals that need no configuration skip it: cleaning (dh_auto_clean runs
# "make distclean"), and the goals that install their packages first
# (scripts/install-deps) and then build in a sub-make: deps, check, demo,
# bench.
SETUP_GOALS := deps check demo bench
ifneq ($(filter-out clean distclean help $(SETUP_GOALS),$(or $(MAKECMDGOALS),all)),)
-include config.mk
endif

VERSION := 0.1.0
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
BASH_COMPDIR ?= $(PREFIX)/share/bash-completion/completions
# Where systemd looks, whatever PREFIX: units and tmpfiles.d are not found
# under /usr/local. /etc/xfwd is what the units restore from.
SYSTEMDUNITDIR ?= /lib/systemd/system
TMPFILESDIR ?= /usr/lib/tmpfiles.d
SYSCONFDIR ?= /etc
DESTDIR ?=

CC ?= cc
CLANG ?= clang-19
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

ifeq ($(V),1)
  Q =
  QUIET_CC =
  QUIET_CLANG =
  QUIET_GEN =
  QUIET_LINK =
else
  Q = @
  QUIET_CC = @echo '  CC      '$@;
  QUIET_CLANG = @echo '  CLANG   '$@;
  QUIET_GEN = @echo '  GEN     '$@;
  QUIET_LINK = @echo '  LINK    '$@;
endif

WARNINGS := -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes \
	-Wold-style-definition -Wformat=2
CFLAGS ?= -O2 -g
XF_CFLAGS := $(CFLAGS) $(WARNINGS) -std=gnu11 -D_GNU_SOURCE \
	-DXFWD_VERSION='"$(VERSION)"' -Ibuild -Ilib -Icmd -Ibpf \
	$(shell $(PKG_CONFIG) --cflags libbpf libmnl libnftnl jansson 2>/dev/null)
LIBS := $(shell $(PKG_CONFIG) --libs libbpf libmnl libnftnl libcrypto jansson libelf zlib 2>/dev/null)
BPF_CFLAGS := -g -O2 --target=bpf -D__TARGET_ARCH_$(ARCH) -Wall -Wno-unused-value \
	-Ibpf -idirafter /usr/include/$(shell uname -m)-linux-gnu

CMD_SRCS := $(wildcard cmd/*.c)
LIB_SRCS := $(wildcard lib/*.c lib/*/*.c)
BPF_SRCS := $(wildcard bpf/*.bpf.c)
UNIT_SRCS := $(wildcard test/unit/*.c)
TEST_PROGS := $(wildcard test/progs/*.bpf.c)
BENCH_SRCS := $(wildcard bench/*.c)
BENCH_PROGS := $(wildcard bench/progs/*.bpf.c)

CMD_OBJS := $(CMD_SRCS:%.c=build/%.o)
LIB_OBJS := $(LIB_SRCS:%.c=build/%.o)
BPF_OBJS := $(BPF_SRCS:bpf/%.bpf.c=build/%.bpf.o) build/route_kctx.bpf.o
SKELS := $(BPF_OBJS:build/%.bpf.o=build/%.skel.h)
UNIT_BINS := $(UNIT_SRCS:test/unit/%.c=build/test/%)
TEST_PROG_OBJS := $(TEST_PROGS:test/progs/%.bpf.c=build/test/progs/%.bpf.o)
BENCH_BINS := $(BENCH_SRCS:bench/%.c=build/bench/%)
BENCH_PROG_OBJS := $(BENCH_PROGS:bench/progs/%.bpf.c=build/bench/progs/%.bpf.o)
MANS := $(wildcard man/man8/*.8.in)
MAN_OUT := $(MANS:man/man8/%.8.in=build/man/%.8)
UNITS := $(wildcard systemd/*.service.in)
UNIT_OUT := $(UNITS:systemd/%.in=build/systemd/%)
DEPS := $(CMD_OBJS:.o=.d) $(LIB_OBJS:.o=.d) $(BPF_OBJS:.o=.d) \
	$(UNIT_BINS:=.d) $(BENCH_BINS:=.d) $(TEST_PROG_OBJS:.o=.d)

.DELETE_ON_ERROR:
# Generated objects and skeletons are kept: they are what make rebuilds from.
.SECONDARY: $(BPF_OBJS) $(SKELS)
.PHONY: all check check-unit check-bats check-man demo bench bpf-cc bench-publish install clean distclean help deps deb

all: build/xfwd $(MAN_OUT) $(UNIT_OUT)

FORCE:

# Probes only: configure installs nothing (scripts/install-deps does).
config.mk: configure
	$(Q)./configure --prefix=$(PREFIX)

# Every set: what the build, the demo, the tests and the benchmarks need.
deps:
	$(Q)scripts/install-deps

build build/cmd build/lib build/test build/test/progs build/bench build/bench/progs build/man build/systemd:
	$(Q)mkdir -p $@

build/%.bpf.o: bpf/%.bpf.c config.mk | build
	$(QUIET_CLANG)$(CLANG) $(BPF_CFLAGS) -MMD -MP -c $< -o $@

# XDP programs the chain tests link together (no skeletons: loaded by path).
build/test/progs/%.bpf.o: test/progs/%.bpf.c config.mk | build/test/progs
	$(QUIET_CLANG)$(CLANG) $(BPF_CFLAGS) -MMD -MP -c $< -o $@

# BPF programs only the benchmarks load (chainstep's hash-map chain).
build/bench/progs/%.bpf.o: bench/progs/%.bpf.c config.mk | build/bench/progs
	$(QUIET_CLANG)$(CLANG) $(BPF_CFLAGS) -MMD -MP -c $< -o $@

# route.bpf.c once more, reading kernel state for its IPv4 source check
# (bpf/route_kctx.h); xfwd loads it where the kernel allows (rt_elf()).
build/route_kctx.bpf.o: bpf/route.bpf.c config.mk | build
	$(QUIET_CLANG)$(CLANG) $(BPF_CFLAGS) -DXF_KCTX=1 -MMD -MP -c $< -o $@

build/%.skel.h: build/%.bpf.o
	$(QUIET_GEN)$(BPFTOOL) gen skeleton $< > $@

# Skeletons are generated before any C file is compiled; -MMD then records
# which objects really include which skeleton and header.
build/cmd/%.o: cmd/%.c config.mk | build/cmd $(SKELS)
	$(QUIET_CC)$(CC) $(CPPFLAGS) $(XF_CFLAGS) -MMD -MP -c $< -o $@

# lib/ knows no argv: cmd/'s headers are not on its include path.
build/lib/%.o: lib/%.c config.mk | build/lib $(SKELS)
	$(Q)mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(CPPFLAGS) $(filter-out -Icmd,$(XF_CFLAGS)) -MMD -MP -c $< -o $@

build/xfwd: $(CMD_OBJS) $(LIB_OBJS)
	$(QUIET_LINK)$(CC) $(XF_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

# The unit tests and the bench tools link the base and the wings, and of
# cmd/ only the argv cursor and the dispatcher.
CMD_SHARED := build/cmd/arg.o build/cmd/cmd.o

build/test/%: test/unit/%.c $(LIB_OBJS) $(CMD_SHARED) | build/test
	$(QUIET_CC)$(CC) $(XF_CFLAGS) -Itest/unit -MMD -MP -o $@ $< $(LIB_OBJS) $(CMD_SHARED) $(LIBS)

build/bench/%: bench/%.c $(LIB_OBJS) $(CMD_SHARED) | build/bench $(SKELS)
	$(QUIET_CC)$(CC) $(XF_CFLAGS) -MMD -MP -o $@ $< $(LIB_OBJS) $(CMD_SHARED) $(LIBS)

build/man/%.8: man/man8/%.8.in Makefile | build/man
	$(QUIET_GEN)sed -e 's/@VERSION@/$(VERSION)/g' $< > $@

# The units with the binary's installed path and the shared sandbox. The
# stamp holds that path, rewritten when SBINDIR (or PREFIX) changes, so
# "make install PREFIX=/usr" after "make" does not install units that name
# another path.
build/systemd.sbindir: FORCE | build
	$(Q)echo '$(SBINDIR)' | cmp -s - $@ || echo '$(SBINDIR)' > $@

build/systemd/%: systemd/%.in systemd/sandbox.inc build/systemd.sbindir | build/systemd
	$(QUIET_GEN)sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e '/^@SANDBOX@$$/{r systemd/sandbox.inc' \
		-e 'd' -e '}' $< > $@

# Fragments add their own targets (fuzz, check-kernels, ...) and append to
# CHECK_BESIDE what make check runs beside the main suite (test/beside), to
# CHECK_EXTRA what it runs beside it once CHECK_BESIDE is done (the guests
# end minutes before the main suite, and the extras take four), and to
# CHECK_BUILD what it builds before (with every CPU).
CHECK_EXTRA :=
CHECK_BESIDE :=
CHECK_BUILD = all $(UNIT_BINS) $(BENCH_BINS) $(TEST_PROG_OBJS) $(BENCH_PROG_OBJS)
include test/fuzz/fuzz.mk
include test/vm/vm.mk

# make check installs what the build and the tests need (on a fresh
# machine, as root on Debian), then builds with every CPU, whatever -j it
# was given (CI runs a plain "make check"): what the suite and the extras
# need (CHECK_BUILD), then the tests, one at a time, with CHECK_BESIDE and
# then CHECK_EXTRA beside them (-k: the extras run even when a guest
# failed).
NPROC := $(shell nproc 2>/dev/null || echo 1)

check:
	$(Q)scripts/install-deps build test
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) $(CHECK_BUILD)
	$(Q)test/beside '$(if $(strip $(CHECK_BESIDE) $(CHECK_EXTRA)),$(MAKE) --no-print-directory -k $(CHECK_BESIDE) $(CHECK_EXTRA))' test/run-all

check-unit: $(UNIT_BINS)
	$(Q)for t in $(UNIT_BINS); do $$t || exit 1; done

# demo and bench, like check, install their packages, then build.
demo:
	$(Q)scripts/install-deps build demo
	$(Q)$(MAKE) --no-print-directory all $(BENCH_BINS)
	$(Q)scripts/demo

bench:
	$(Q)scripts/install-deps build bench
	$(Q)$(MAKE) --no-print-directory all $(BENCH_BINS) $(TEST_PROG_OBJS) $(BENCH_PROG_OBJS)
	$(Q)bench/run $(if $(FULL),--full)

# The compiler and flags of bpf/ on one line, for the bench tools that
# build variants of a BPF object themselves (bench/bpfcc.bash).
bpf-cc:
	@echo '$(CLANG) $(BPF_CFLAGS)'

# Copies the last run's table, chart and profile to doc/bench/ (committed).
bench-publish:
	$(Q)bench/publish

install: all
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(BASH_COMPDIR)
	install -m 0755 build/xfwd $(DESTDIR)$(SBINDIR)/xfwd
	install -m 0644 $(MAN_OUT) $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 completions/xfwd $(DESTDIR)$(BASH_COMPDIR)/xfwd
	install -d $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(TMPFILESDIR)
	install -m 0644 $(UNIT_OUT) $(DESTDIR)$(SYSTEMDUNITDIR)/
	install -m 0644 systemd/tmpfiles.conf $(DESTDIR)$(TMPFILESDIR)/xfwd.conf
	install -d -m 0700 $(DESTDIR)$(SYSCONFDIR)/xfwd

# dpkg-buildpackage writes the .deb beside the source tree it builds: it
# builds a copy under build/deb/ (the files git knows, as a clone has
# them), so the .deb, .buildinfo and .changes land in build/deb/ and
# nothing outside this tree is written.
DEB_SRC := build/deb/xfwd-$(VERSION)
deb:
	$(Q)test "$$(dpkg-parsechangelog -S Version)" = "$(VERSION)" || \
		{ echo "Error: debian/changelog is not at version $(VERSION)." >&2; exit 1; }
	$(Q)rm -rf build/deb
	$(Q)mkdir -p $(DEB_SRC)
	$(Q)git ls-files -z --cached --others --exclude-standard | \
		tar --null -T - --ignore-failed-read -cf - | tar -xf - -C $(DEB_SRC)
	$(Q)cd $(DEB_SRC) && dpkg-buildpackage -us -uc -b -Jauto
	@echo "deb: $$(ls build/deb/*.deb)"

clean:
	$(Q)rm -rf build

distclean: clean
	$(Q)rm -f config.mk config.mk.tmp

help:
	@echo 'Targets: all check demo bench bench-publish fuzz check-kernels install deb deps clean distclean'
	@echo 'Only deps, check, demo and bench install packages (scripts/install-deps).'
	@echo 'Options: V=1 (show commands) FULL=1 (bench: every suite)'
	@echo '         FUZZ_TIME=600 (fuzz: seconds per target)'
	@echo 'install honours DESTDIR PREFIX SBINDIR MANDIR BASH_COMPDIR SYSTEMDUNITDIR'
	@echo '         TMPFILESDIR SYSCONFDIR'

-include $(DEPS)
