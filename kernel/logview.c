// SPDX-License-Identifier: MIT
/*
 * logview.c - rows of the log for the scroll-back (see logview.h).
 *
 * Both functions walk the text with the same little cursor (row, col), so
 * logview_rows() and logview_render() can never disagree about where a
 * row starts: render keeps the characters that land in rows
 * [top, top + rows), where top = total rows - rows - back.
 */
#include "logview.h"
#include "kstring.h"

struct cursor {
	u32 row, col;
};

/* Move the cursor over c; store c at the cell it lands on through put(). */
static void step(struct cursor *at, char c, u32 cols, void (*put)(void *, u32, u32, char),
		 void *ctx)
{
	switch (c) {
	case '\n':
		at->row++;
		at->col = 0;
		return;
	case '\r':
		at->col = 0;
		return;
	case '\b':
		if (at->col)
			at->col--;
		return;
	case '\t':
		do
			step(at, ' ', cols, put, ctx);
		while (at->col % 8);
		return;
	}
	if (put)
		put(ctx, at->row, at->col, c);
	if (++at->col == cols) {
		at->row++;
		at->col = 0;
	}
}

u32 logview_rows(const char *text, size_t len, u32 cols)
{
	struct cursor at = { 0, 0 };

	if (!cols)
		return 0;
	for (size_t i = 0; i < len; i++)
		step(&at, text[i], cols, NULL, NULL);
	return at.row + 1;      /* the row the cursor is on counts */
}

struct window {
	char *out;
	u32 top, rows, cols;
};

static void put_in_window(void *ctx, u32 row, u32 col, char c)
{
	struct window *w = ctx;

	if (row >= w->top && row < w->top + w->rows)
		w->out[(row - w->top) * w->cols + col] = c;
}

u32 logview_render(const char *text, size_t len, u32 cols, u32 rows, u32 back, char *out)
{
	u32 total = logview_rows(text, len, cols);
	struct cursor at = { 0, 0 };
	struct window w = { out, 0, rows, cols };

	if (!cols || !rows)
		return 0;
	memset(out, ' ', (size_t)rows * cols);
	if (total <= rows)
		back = 0;
	else if (back > total - rows)
		back = total - rows;
	w.top = total > rows ? total - rows - back : 0;
	for (size_t i = 0; i < len && at.row < w.top + rows; i++)
		step(&at, text[i], cols, put_in_window, &w);
	return back;
}
