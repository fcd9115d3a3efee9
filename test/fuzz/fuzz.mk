# SPDX-License-Identifier: GPL-2.0
# Fuzzing and sanitizer builds (make fuzz, check-asan): see test/fuzz/README.
#
# build/asan/ holds a second build of the same sources with clang, ASan and
# UBSan (and libFuzzer's coverage hooks, which cost little and let the fuzz
# targets share the objects): build/asan/xfwd, the unit tests and the fuzz
# targets. libbpf and the skeletons in build/ are shared with the normal
# build. Nothing here changes build/xfwd.
#
#   make check-asan      unit tests, test/cli.bats and test/json.bats
#                        against build/asan/xfwd; any sanitizer report or
#                        leak fails them
#   make check-fuzz      each libFuzzer target for FUZZ_CHECK_TIME seconds
#                        with a fixed seed, from the seed corpus
#   make check-hostile   test/fuzz/elf.bats (mutated objects into chain add
#                        under ASan) and test/fuzz/valgrind.bats
#   make fuzz            each target for FUZZ_TIME seconds (default 600),
#                        keeping what it finds in build/fuzz/corpus/, then
#                        elf.bats with FUZZ_ELF_SAMPLE objects of each kind

FUZZ_CC ?= $(CLANG)
FUZZ_TIME ?= 600
FUZZ_CHECK_TIME ?= 20
FUZZ_SEED ?= 1
# Mutated objects of each kind per object in make fuzz (0: all, ~6900).
FUZZ_ELF_SAMPLE ?= 30
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -fsanitize=fuzzer-no-link
# clang, unlike gcc, counts libbpf's print callback (a va_list) as a
# non-literal format.
ASAN_CFLAGS := $(filter-out -O2,$(XF_CFLAGS)) -O1 $(SAN_FLAGS) -Wno-format-nonliteral
# What the sanitized runs need: every report and every leak is fatal, with
# exit codes of their own so a test that expects exit 1 cannot mistake one.
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:exitcode=86:abort_on_error=0 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=87 \
	LSAN_OPTIONS=exitcode=88

ASAN_CMD_OBJS := $(CMD_SRCS:%.c=build/asan/%.o)
ASAN_LIB_OBJS := $(LIB_SRCS:%.c=build/asan/%.o)
ASAN_UNIT_BINS := $(UNIT_SRCS:test/unit/%.c=build/asan/test/%)
FUZZ_TARGETS := fuzz_cli fuzz_batch fuzz_elf fuzz_restore
FUZZ_BINS := $(FUZZ_TARGETS:%=build/asan/fuzz/%)
DEPS += $(ASAN_CMD_OBJS:.o=.d) $(ASAN_LIB_OBJS:.o=.d) $(ASAN_UNIT_BINS:=.d) \
	$(FUZZ_BINS:=.d)

# Objects of test/fuzz/progs: the shapes chain add must refuse or take
# that test/progs has not (no program; programs of several types).
FUZZ_PROGS := $(wildcard test/fuzz/progs/*.bpf.c)
FUZZ_PROG_OBJS := $(FUZZ_PROGS:test/fuzz/progs/%.bpf.c=build/test/fuzz/%.bpf.o)
DEPS += $(FUZZ_PROG_OBJS:.o=.d)

build/test/fuzz:
	$(Q)mkdir -p $@

build/test/fuzz/%.bpf.o: test/fuzz/progs/%.bpf.c config.mk | build/test/fuzz
	$(QUIET_CLANG)$(CLANG) $(BPF_CFLAGS) -MMD -MP -c $< -o $@

.PHONY: check-asan check-fuzz check-hostile fuzz fuzz-build
CHECK_EXTRA += check-asan check-fuzz check-hostile
CHECK_BUILD += fuzz-build

build/asan/cmd build/asan/lib build/asan/test build/asan/fuzz:
	$(Q)mkdir -p $@

build/asan/cmd/%.o: cmd/%.c config.mk | build/asan/cmd $(SKELS)
	$(QUIET_CC)$(FUZZ_CC) $(ASAN_CFLAGS) -MMD -MP -c $< -o $@

build/asan/lib/%.o: lib/%.c config.mk | build/asan/lib $(SKELS)
	$(Q)mkdir -p $(@D)
	$(QUIET_CC)$(FUZZ_CC) $(filter-out -Icmd,$(ASAN_CFLAGS)) -MMD -MP -c $< -o $@

build/asan/xfwd: $(ASAN_CMD_OBJS) $(ASAN_LIB_OBJS)
	$(QUIET_LINK)$(FUZZ_CC) $(ASAN_CFLAGS) -o $@ $^ $(LIBS)

build/asan/test/%: test/unit/%.c $(ASAN_LIB_OBJS) build/asan/cmd/arg.o build/asan/cmd/cmd.o | build/asan/test
	$(QUIET_CC)$(FUZZ_CC) $(ASAN_CFLAGS) -Itest/unit -MMD -MP -o $@ $< \
		$(ASAN_LIB_OBJS) build/asan/cmd/arg.o build/asan/cmd/cmd.o $(LIBS)

# The targets include the file whose static functions they reach
# (cmd/xfwd.c, lib/chain/add.c) and so leave that object out.
FUZZ_CMD_OBJS := $(filter-out build/asan/cmd/xfwd.o,$(ASAN_CMD_OBJS))

build/asan/fuzz/fuzz_cli: test/fuzz/fuzz_cli.c $(FUZZ_CMD_OBJS) $(ASAN_LIB_OBJS) | build/asan/fuzz
	$(QUIET_CC)$(FUZZ_CC) $(ASAN_CFLAGS) -fsanitize=fuzzer -MMD -MP -o $@ $< \
		$(FUZZ_CMD_OBJS) $(ASAN_LIB_OBJS) $(LIBS)

build/asan/fuzz/fuzz_batch: test/fuzz/fuzz_cli.c $(FUZZ_CMD_OBJS) $(ASAN_LIB_OBJS) | build/asan/fuzz
	$(QUIET_CC)$(FUZZ_CC) $(ASAN_CFLAGS) -DFUZZ_BATCH -fsanitize=fuzzer -MMD -MP -o $@ $< \
		$(FUZZ_CMD_OBJS) $(ASAN_LIB_OBJS) $(LIBS)

build/asan/fuzz/fuzz_elf: test/fuzz/fuzz_elf.c $(ASAN_LIB_OBJS) build/asan/cmd/arg.o | build/asan/fuzz
	$(QUIET_CC)$(FUZZ_CC) $(ASAN_CFLAGS) -fsanitize=fuzzer -MMD -MP -o $@ $< \
		$(filter-out build/asan/lib/chain/add.o,$(ASAN_LIB_OBJS)) build/asan/cmd/arg.o $(LIBS)

build/asan/fuzz/fuzz_restore: test/fuzz/fuzz_restore.c $(ASAN_LIB_OBJS) build/asan/cmd/arg.o | build/asan/fuzz
	$(QUIET_CC)$(FUZZ_CC) $(ASAN_CFLAGS) -fsanitize=fuzzer -MMD -MP -o $@ $< \
		$(ASAN_LIB_OBJS) build/asan/cmd/arg.o $(LIBS)

fuzz-build: $(FUZZ_BINS) build/asan/xfwd $(ASAN_UNIT_BINS) $(TEST_PROG_OBJS) $(BPF_OBJS) \
	$(FUZZ_PROG_OBJS)

check-asan: build/asan/xfwd $(ASAN_UNIT_BINS)
	$(Q)for t in $(ASAN_UNIT_BINS); do \
		$(SAN_ENV) $$t >/dev/null || { echo "not ok asan $$t"; exit 1; }; \
		echo "ok asan unit $${t##*/}"; done
	$(Q)$(SAN_ENV) XFWD_BIN=$(CURDIR)/build/asan/xfwd $(FUZZ_BATS) test/cli.bats test/json.bats

# bats as test/run-all runs it: the root-only tests left out for others.
FUZZ_BATS = bats --formatter tap $$([ "$$(id -u)" = 0 ] || echo "--filter-tags !root")

# FUZZ_RUN TARGET SECONDS CORPUS: run one target from its seeds (copied
# into CORPUS, so the committed seeds never change), a fixed seed.
FUZZ_RUN = test/fuzz/run-fuzz $(1) $(2) $(3) $(FUZZ_SEED)

check-fuzz: $(FUZZ_BINS) $(TEST_PROG_OBJS) $(BPF_OBJS) $(FUZZ_PROG_OBJS) $(FUZZ_PROG_OBJS)
	$(Q)for t in $(FUZZ_TARGETS); do \
		rm -rf build/asan/fuzz/check-$$t; \
		$(call FUZZ_RUN,$$t,$(FUZZ_CHECK_TIME),build/asan/fuzz/check-$$t) || exit 1; done

fuzz: $(FUZZ_BINS) build/asan/xfwd $(TEST_PROG_OBJS) $(BPF_OBJS) $(FUZZ_PROG_OBJS)
	$(Q)for t in $(FUZZ_TARGETS); do \
		$(call FUZZ_RUN,$$t,$(FUZZ_TIME),build/fuzz/corpus/$$t) || exit 1; done
	$(Q)$(SAN_ENV) XF_ELF_SAMPLE=$(FUZZ_ELF_SAMPLE) $(FUZZ_BATS) test/fuzz/elf.bats

check-hostile: build/asan/xfwd build/xfwd $(TEST_PROG_OBJS) $(FUZZ_PROG_OBJS)
	$(Q)$(SAN_ENV) $(FUZZ_BATS) test/fuzz/elf.bats test/fuzz/valgrind.bats
