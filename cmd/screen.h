/* SPDX-License-Identifier: GPL-2.0 */
/* A full-screen view on a terminal: the alternate screen, redrawn in
 * place (cursor home, each line cleared to its end, no full clear),
 * fitted to the terminal's size and restored on the way out. */
#ifndef XF_SCREEN_H
#define XF_SCREEN_H

#include <stdbool.h>
#include <stdio.h>

/* Lines of text, built with screen_add() and owned by the struct. */
struct screen_lines {
	char **s;
	int n, cap;
};

struct screen {
	FILE *f;
	int rows, cols;
	bool active;		/* on the alternate screen */
	/* stderr, a terminal too, kept aside while the screen is up: what
	 * goes to fd 2 meanwhile waits in a temporary file, printed once the
	 * terminal is back (an Error line must not vanish with the screen). */
	bool err_held;
	int saved_err, held_err;
	/* The last frame, kept for a redraw after a resize. */
	struct screen_lines head, body, tail;
};

/* Take over the terminal f is: the alternate screen, no cursor, SIGWINCH
 * noted. -ENOTTY when f is no terminal (nothing is changed), 0 else. */
int screen_open(struct screen *scr, FILE *f);
/* Leave the alternate screen and give the cursor back, then print what
 * was written to stderr meanwhile; frees the frame. Safe to call on a
 * screen not opened. */
void screen_close(struct screen *scr);
/* Append a line (printf format) to l. 0/-ENOMEM. */
int screen_add(struct screen_lines *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void screen_lines_free(struct screen_lines *l);
/* Draw a frame: every line of head, as many of body as fit, then
 * "... N more" for those that do not, then tail; never more lines than
 * the terminal has, each cut to its width. The screen takes the three
 * lists (they are empty on return). */
void screen_draw(struct screen *scr, struct screen_lines *head, struct screen_lines *body,
		 struct screen_lines *tail);
/* The terminal was resized since the last call: its new size is read and
 * the last frame drawn again. True when that happened. */
bool screen_resized(struct screen *scr);

#endif
