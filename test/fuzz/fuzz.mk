# SPDX-License-Identifier: GPL-2.0
# Fuzzing and sanitizer builds (make fuzz, check-asan): see test/fuzz/.
