# SPDX-License-Identifier: GPL-2.0
# The frame of the reliability suites (txn, crash, concurrency, envfault):
# their helpers, and setup_file, setup and teardown. A suite adds to setup
# with suite_setup and to teardown with suite_teardown (run first), when
# it defines them. Load it after "bats_require_minimum_version" and the
# file_tags line, which bats reads from the suite itself.

load "$(dirname "${BASH_SOURCE[0]}")/common"
load "$(dirname "${BASH_SOURCE[0]}")/route"
load "$(dirname "${BASH_SOURCE[0]}")/fault"

setup_file() {
	_need_root
	_need_progs count pass tc_only
}

setup() {
	_common_setup
	fault_setup
	if declare -F suite_setup >/dev/null; then
		suite_setup
	fi
}

teardown() {
	if declare -F suite_teardown >/dev/null; then
		suite_teardown
	fi
	fault_teardown
}
