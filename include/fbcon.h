/* SPDX-License-Identifier: MIT */
/*
 * fbcon.h - a text console on the boot framebuffer.
 *
 * On a UEFI machine without a serial port the framebuffer GRUB sets up is
 * the only output there is. fbcon draws characters from the 8x16 bitmap
 * font (drivers/font8x16.c) into a linear RGB framebuffer of 16, 24 or 32
 * bits per pixel, or writes them into EGA text memory when GRUB left the
 * screen in text mode.
 */
#ifndef FBCON_H
#define FBCON_H

#include "mb2.h"
#include "types.h"

/* Take over the framebuffer fb (NULL: none; bios: may try VGA text at 0xb8000). */
bool fbcon_init(const struct mb2_framebuffer *fb, bool bios);
/*
 * A pixel framebuffer is not drawn on until this call (kernel_main(): once
 * the other CPUs are online; panic_begin(): at once): until then its text
 * goes into the grid only, and this draws the grid in one pass. Linux's
 * fbcon binds at fbmem_init(), a subsys_initcall after smp_init().
 */
void fbcon_start_drawing(void);

struct fbcon_info {
	bool active;
	bool text_mode;         /* EGA text instead of pixels */
	u32 width, height, bpp; /* pixels (characters in text mode) */
	u32 cols, rows;
	u32 row;                /* the cursor's row */
	u32 fg, bg;             /* pixel values of the text and the background */
};

void fbcon_get_info(struct fbcon_info *info);

/*
 * Draw a QR code in the top right corner, 2 to 4 pixels a module, with its
 * quiet zone; text keeps out of it until fbcon_hide_qr(). False in VGA
 * text mode or without a framebuffer (nothing drawn).
 */
struct qr_code;
bool fbcon_draw_qr(const struct qr_code *qr);
void fbcon_hide_qr(void);       /* give its corner back to the text */

/*
 * Scroll-back: show the log delta rows further up (delta > 0) or down,
 * from where the view is (from the bottom if it is not shown); paging
 * down past the bottom returns to the live screen. fbcon_view_live()
 * returns to it at once.
 */
void fbcon_view_scroll(int delta);
void fbcon_view_live(void);
bool fbcon_viewing(void);

/* Draw c in cell (col, row) directly, and read back a pixel: for tests. */
void fbcon_draw_cell(u32 col, u32 row, char c);
u32 fbcon_read_pixel(u32 x, u32 y);
/* Pixels of cell (col, row) that differ from glyph c in the text colours (0: it shows c). */
u32 fbcon_cell_mismatches(u32 col, u32 row, char c);
/* The character the grid holds for cell (col, row); 0 outside the grid. */
char fbcon_cell(u32 col, u32 row);

#endif
