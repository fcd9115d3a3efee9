// SPDX-License-Identifier: GPL-2.0
/* A full-screen view on a terminal: see screen.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "screen.h"

#define SCREEN_ALT_ON "\033[?1049h"
#define SCREEN_ALT_OFF "\033[?1049l"
#define SCREEN_CURSOR_OFF "\033[?25l"
#define SCREEN_CURSOR_ON "\033[?25h"
#define SCREEN_HOME "\033[H"
#define SCREEN_EOL "\033[K"	/* clear to the end of the line */
#define SCREEN_EOS "\033[J"	/* clear to the end of the screen */

/* Set by SIGWINCH. The one global, as a signal handler cannot be given
 * the screen: a sig_atomic_t flag, read and cleared by screen_resized(). */
static volatile sig_atomic_t screen_winch;

static void screen_on_winch(int sig)
{
	(void)sig;
	screen_winch = 1;
}

/* The terminal's size; 24 x 80 where it does not say. */
static void screen_size(struct screen *scr)
{
	struct winsize ws;

	scr->rows = 24;
	scr->cols = 80;
	if (!ioctl(fileno(scr->f), TIOCGWINSZ, &ws)) {
		if (ws.ws_row)
			scr->rows = ws.ws_row;
		if (ws.ws_col)
			scr->cols = ws.ws_col;
	}
}

int screen_open(struct screen *scr, FILE *f)
{
	struct sigaction sa = { .sa_handler = screen_on_winch };

	memset(scr, 0, sizeof(*scr));
	scr->f = f;
	if (!isatty(fileno(f)))
		return -ENOTTY;
	if (isatty(STDERR_FILENO)) {
		char path[] = "/tmp/xfwd-screen-XXXXXX";

		fflush(stderr);
		scr->held_err = mkostemp(path, O_CLOEXEC);
		if (scr->held_err >= 0) {
			unlink(path);
			scr->saved_err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
			if (scr->saved_err >= 0 && dup2(scr->held_err, STDERR_FILENO) >= 0) {
				scr->err_held = true;
			} else {
				if (scr->saved_err >= 0)
					close(scr->saved_err);
				close(scr->held_err);
			}
		}
	}
	/* SA_RESTART: a resize must not cut anything short but the sleep. */
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGWINCH, &sa, NULL);
	screen_winch = 0;
	screen_size(scr);
	fputs(SCREEN_ALT_ON SCREEN_CURSOR_OFF SCREEN_HOME SCREEN_EOS, f);
	fflush(f);
	scr->active = true;
	return 0;
}

void screen_lines_free(struct screen_lines *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		free(l->s[i]);
	free(l->s);
	memset(l, 0, sizeof(*l));
}

/* stderr back, and what waited of it printed there. */
static void screen_release_err(struct screen *scr)
{
	char buf[4096];
	ssize_t n;

	if (!scr->err_held)
		return;
	fflush(stderr);
	dup2(scr->saved_err, STDERR_FILENO);
	close(scr->saved_err);
	if (lseek(scr->held_err, 0, SEEK_SET) == 0)
		while ((n = read(scr->held_err, buf, sizeof(buf))) > 0)
			if (write(STDERR_FILENO, buf, n) != n)
				break;
	close(scr->held_err);
	scr->err_held = false;
}

void screen_close(struct screen *scr)
{
	if (scr->active) {
		signal(SIGWINCH, SIG_DFL);
		fputs(SCREEN_CURSOR_ON SCREEN_ALT_OFF, scr->f);
		fflush(scr->f);
		scr->active = false;
	}
	screen_release_err(scr);
	screen_lines_free(&scr->head);
	screen_lines_free(&scr->body);
	screen_lines_free(&scr->tail);
}

int screen_add(struct screen_lines *l, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 32;
		char **ns = realloc(l->s, cap * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		l->s = ns;
		l->cap = cap;
	}
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	l->s[l->n++] = s;
	return 0;
}

/* Line number *y of the screen, cut to its width. The cursor stays on
 * the last line (no newline after it, which would scroll). */
static void screen_line(struct screen *scr, int *y, const char *s)
{
	int n = strlen(s);

	if (*y >= scr->rows)
		return;
	if (*y)
		fputs("\r\n", scr->f);
	if (n > scr->cols)
		n = scr->cols;
	fwrite(s, 1, n, scr->f);
	/* A full line needs no clearing, and the cursor then waits past its
	 * end, where a clear would take the last character. */
	if (n < scr->cols)
		fputs(SCREEN_EOL, scr->f);
	(*y)++;
}

static void screen_frame(struct screen *scr)
{
	int y = 0, room, shown, i;
	char more[48];

	fputs(SCREEN_HOME, scr->f);
	for (i = 0; i < scr->head.n; i++)
		screen_line(scr, &y, scr->head.s[i]);
	room = scr->rows - y - scr->tail.n;
	shown = scr->body.n <= room ? scr->body.n : room - 1;
	if (shown < 0)
		shown = 0;
	for (i = 0; i < shown; i++)
		screen_line(scr, &y, scr->body.s[i]);
	if (shown < scr->body.n) {
		snprintf(more, sizeof(more), "... %d more", scr->body.n - shown);
		screen_line(scr, &y, more);
	}
	for (i = 0; i < scr->tail.n; i++)
		screen_line(scr, &y, scr->tail.s[i]);
	if (y < scr->rows)
		fputs(SCREEN_EOS, scr->f);
	fflush(scr->f);
}

static void screen_take(struct screen_lines *dst, struct screen_lines *src)
{
	screen_lines_free(dst);
	*dst = *src;
	memset(src, 0, sizeof(*src));
}

void screen_draw(struct screen *scr, struct screen_lines *head, struct screen_lines *body,
		 struct screen_lines *tail)
{
	screen_take(&scr->head, head);
	screen_take(&scr->body, body);
	screen_take(&scr->tail, tail);
	if (!scr->active)
		return;
	/* A resize while the frame was being built. */
	if (screen_winch) {
		screen_winch = 0;
		screen_size(scr);
	}
	screen_frame(scr);
}

bool screen_resized(struct screen *scr)
{
	if (!scr->active || !screen_winch)
		return false;
	screen_winch = 0;
	screen_size(scr);
	screen_frame(scr);
	return true;
}
