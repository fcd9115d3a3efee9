// SPDX-License-Identifier: GPL-2.0
/* Unit tests for cmd/cmd.c: exact and prefix matching, ambiguity. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "check.h"
#include "cmd.h"

int main(void)
{
	static const char *const names[] = { "attach", "detach", "show", "get", "set" };
	struct check c = { 0 };
	FILE *tmp = tmpfile();
	char buf[256];
	size_t n;

	if (!tmp || dup2(fileno(tmp), STDERR_FILENO) < 0)
		return 1;
	setvbuf(stderr, NULL, _IONBF, 0);
	check_true(&c, cmd_match("command", "show", names, 5) == 2, "exact", __LINE__);
	check_true(&c, cmd_match("command", "sh", names, 5) == 2, "prefix", __LINE__);
	check_true(&c, cmd_match("command", "a", names, 5) == 0, "one letter", __LINE__);
	check_true(&c, cmd_match("command", "frob", names, 5) == -ENOENT, "none", __LINE__);
	check_true(&c, cmd_match("command", "", names, 5) == -ENOENT, "empty", __LINE__);
	check_true(&c, cmd_match("command", "showx", names, 5) == -ENOENT, "longer", __LINE__);
	check_true(&c, cmd_match("command", "s", names, 5) == -EEXIST, "ambiguous", __LINE__);
	rewind(tmp);
	n = fread(buf, 1, sizeof(buf) - 1, tmp);
	buf[n] = '\0';
	check_str(&c, buf, "Error: command \"s\" is ambiguous: show set.\n", __LINE__);
	return check_done(&c, "test_cmd");
}
