// SPDX-License-Identifier: GPL-2.0
/* Dispatch by exact name or unique prefix, and usage from the same tables. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "caps.h"
#include "cmd.h"

int cmd_match(const char *what, const char *name, const char *const *names, int n)
{
	size_t len = strlen(name);
	int i, found = -1, count = 0;

	for (i = 0; i < n; i++) {
		if (!strcmp(names[i], name))
			return i;
		if (len && !strncmp(names[i], name, len)) {
			found = i;
			count++;
		}
	}
	if (count == 1)
		return found;
	if (count == 0)
		return -ENOENT;
	fprintf(stderr, "Error: %s \"%s\" is ambiguous:", what, name);
	for (i = 0; i < n; i++)
		if (!strncmp(names[i], name, len))
			fprintf(stderr, " %s", names[i]);
	fprintf(stderr, ".\n");
	return -EEXIST;
}

/* Print "Usage: xfwd OBJ VERB GRAMMAR" for each verb to stdout. */
static void cmd_usage(const struct object *obj)
{
	const struct cmd *c;
	int w = 0;

	if (obj->command) {
		printf("Usage: xfwd %s%s%s\n", obj->name, *obj->cmds->help ? " " : "",
		       obj->cmds->help);
		printf("%*s xfwd %s help\n", 6, "", obj->name);
		return;
	}
	for (c = obj->cmds; c->name; c++)
		if ((int)strlen(c->name) > w)
			w = strlen(c->name);
	for (c = obj->cmds; c->name; c++)
		printf("%s xfwd %s %-*s %s\n", c == obj->cmds ? "Usage:" : "      ",
		       obj->name, w, c->name, c->help);
	printf("%*s xfwd %s help\n", 6, "", obj->name);
}

/* Run verb i of obj on the words left in a. */
static int cmd_run(struct xfwd *x, const struct object *obj, struct xf_args *a, int i)
{
	a->verb = obj->cmds[i].name;
	x->object = obj->name;
	x->changing = obj->cmds[i].flags & XF_CMD_CHANGES ? &obj->cmds[i] : NULL;
	if (obj->cmds[i].flags & XF_CMD_READS)
		xf_pins_readable();
	return obj->cmds[i].fn(x, a);
}

int cmd_dispatch(struct xfwd *x, const struct object *obj, struct xf_args *a)
{
	const char *names[32];
	const char *verb;
	int n = 0, i;

	for (; obj->cmds[n].name && n < 32; n++)
		names[n] = obj->cmds[n].name;
	if (obj->command) {
		if (arg_more(a) && !strcmp(arg_peek(a), "help")) {
			cmd_usage(obj);
			return 0;
		}
		return cmd_run(x, obj, a, 0);
	}
	verb = arg_more(a) ? arg_peek(a) : obj->dflt;
	if (!strcmp(verb, "help") || !strcmp(verb, "-help") || !strcmp(verb, "--help")) {
		cmd_usage(obj);
		return 0;
	}
	if (obj->dflt_args && arg_more(a)) {
		/* A verb there, abbreviated to 3 letters at least: "re" is
		 * more likely "redirect" than "reset". */
		for (i = 0; i < n && strcmp(names[i], verb) &&
			    (strlen(verb) < 3 || strncmp(names[i], verb, strlen(verb))); i++)
			;
		if (i == n)
			verb = obj->dflt;	/* no verb: the word is dflt's */
		else
			arg_next(a);
	} else if (arg_more(a)) {
		arg_next(a);
	}
	i = cmd_match("command", verb, names, n);
	if (i == -ENOENT) {
		fprintf(stderr, "Error: unknown command \"%s\"; try \"xfwd %s help\".\n",
			verb, obj->name);
		return -XF_EUSAGE;
	}
	if (i < 0)
		return -XF_EUSAGE;
	/* "help" after the verb prints that object's usage, as iproute2 does. */
	if (arg_more(a) && !strcmp(arg_peek(a), "help")) {
		cmd_usage(obj);
		return 0;
	}
	return cmd_run(x, obj, a, i);
}
