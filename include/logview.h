/* SPDX-License-Identifier: MIT */
/*
 * logview.h - a window of screen rows over the log text: what the
 * framebuffer's scroll-back shows.
 *
 * The log text is cut into screen rows as the console would show it: a
 * '\n' ends a row, a line longer than cols wraps onto the next row, a tab
 * goes to the next multiple of 8, '\b' steps back one column, '\r' goes
 * back to column 0 (what the shell's line editor leaves in the log).
 * Rows are counted from the bottom: back = 0 shows the last `rows` rows
 * (the live screen, when the text ends with a '\n' the empty row after
 * the last line counts as the last row), back = k shows them k rows higher.
 *
 * Pure logic; host-tested.
 */
#ifndef LOGVIEW_H
#define LOGVIEW_H

#include "types.h"

/* How many screen rows text[0..len) takes at cols columns. */
u32 logview_rows(const char *text, size_t len, u32 cols);

/*
 * Fill out[rows * cols] (row by row, blank = ' ') with the window `back`
 * rows above the bottom; back is first clamped to what the text has
 * (0..logview_rows - rows), and the clamped value returned.
 */
u32 logview_render(const char *text, size_t len, u32 cols, u32 rows, u32 back, char *out);

#endif
