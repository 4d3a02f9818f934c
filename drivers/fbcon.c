// SPDX-License-Identifier: MIT
/*
 * fbcon.c - the framebuffer console.
 *
 * The screen is a grid of cols x rows character cells. The text lives in a
 * shadow grid in RAM (cells[][]); the framebuffer only ever gets written,
 * never read, because reads from video memory are painfully slow on real
 * hardware. Scrolling moves the shadow grid up by a quarter of the screen
 * and draws the cells whose character changed, once per rows/4 lines. At
 * 32 bits per pixel a glyph row is four 64-bit stores (pixel_pairs[]).
 *
 * Pixel formats come from the multiboot2 tag: for each of red, green and
 * blue a bit position and a width; pack() puts an 8-bit-per-channel color
 * into that layout.
 *
 * A QR code (fbcon_draw_qr) is drawn over the top right corner: black
 * modules on white, QR_QUIET white modules around, each module a square
 * of 2 to 4 pixels. While it is shown, cells under it are not drawn (their
 * text stays in cells[][]), through scrolls too, until fbcon_hide_qr()
 * (the shell calls it on the next key) redraws them.
 *
 * A line longer than the screen wraps at its last blank, and goes on on
 * the next row indented past the timestamp (WRAP_INDENT), so the long
 * key=value lines (storm:, bench:) stay readable; serial gets them as
 * they are.
 *
 * Drawing starts late. fbcon_init() registers the console (replaying the
 * log into cells[][]) but draws nothing on a pixel framebuffer until
 * fbcon_start_drawing(), which kernel_main() calls once the other CPUs are
 * online and panic_begin() calls at once; that one pass clears GRUB's
 * screen and draws the text. Before it, each line costs a few stores into
 * cells[][] instead of 64 stores a character and a scroll of the screen
 * every rows/4 lines. Linux likewise keeps the boot's text in the VT's
 * buffer and draws it when fbcon binds, from fbmem_init(), a
 * subsys_initcall that runs after smp_init() (init/main.c,
 * kernel_init_freeable()). VGA text mode is drawn from the start: a store
 * per character; so is everything with fbcon.defer=off (for a machine
 * that hangs before its CPUs are up and has no serial port; Linux's
 * fbcon=nodefer turns off its own deferred takeover).
 *
 * Scroll-back: fbcon_view_scroll() shows a window over the whole log
 * (printk's ring, cut into rows by kernel/logview.c) instead of the live
 * grid, with a status line at the bottom; while it shows, new text goes
 * into cells[][] without being drawn, and fbcon_view_live() draws the live
 * grid again.
 *
 * Invariant: 0 <= cur_col < cols and 0 <= cur_row < rows between calls;
 * once drawing has started, cells[][] holds what the screen shows, except
 * under the QR code and while the scroll-back is shown.
 */
#include "fbcon.h"
#include "cmdline.h"
#include "font.h"
#include "format.h"
#include "io.h"
#include "kstring.h"
#include "logview.h"
#include "param.h"
#include "printk.h"
#include "qr.h"
#include "vm.h"

#define MAX_COLS 256
#define MAX_ROWS 160
#define FG_RGB 0xc0c0c0         /* light grey */
#define BG_RGB 0x000020         /* very dark blue: shows the console is alive */
#define VGA_TEXT_ATTR 0x07      /* light grey on black */
#define WRAP_INDENT 17          /* a wrapped line goes on past its timestamp, two further in */

static struct mb2_framebuffer fb;
static u8 __iomem *vram;        /* the framebuffer: device memory, as Linux's screen_base */
static u32 bytes_pp;
static u32 cols, rows, cur_col, cur_row;
static u32 fg, bg;
static bool text_mode, active;
static char cells[MAX_ROWS][MAX_COLS];
static bool viewing;                    /* the scroll-back is on the screen */
static bool held;                       /* a framebuffer not drawn on yet: fbcon_start_drawing() */

/* fbcon.defer=on|off: off draws every line as it comes from fbcon_init() on (Linux: fbcon=nodefer). */
static int defer_off;
PARAM_CHOICE("fbcon.defer", defer_off, "on", "off");
static u32 view_back;                   /* its rows above the bottom of the log */
static char view_text[LOG_BUF_SIZE];    /* the log, copied for the view */
static char view_cells[MAX_ROWS * MAX_COLS];
static u32 qr_left = ~0u, qr_bottom;
/*
 * 32 bpp with 8-byte aligned rows: pixel_pairs[i] is two pixels as one
 * store, the left one fg if bit 1 of i is set, the right one if bit 0 is
 * (the font's bit 7 is its leftmost pixel; x86 stores the low half first).
 */
static u64 pixel_pairs[4];
static bool pixel_pairs_ok;
static bool wrap_pending;       /* the row is full: the next character goes on a new row */    /* pixels covered by the QR code: x >= qr_left, y < qr_bottom */

static u32 pack(u32 rgb)
{
	u32 r = (rgb >> 16) & 0xff, g = (rgb >> 8) & 0xff, b = rgb & 0xff;

	return (r >> (8 - fb.red_size)) << fb.red_pos |
	       (g >> (8 - fb.green_size)) << fb.green_pos |
	       (b >> (8 - fb.blue_size)) << fb.blue_pos;
}

static void put_pixel(u8 __iomem *p, u32 value)
{
	switch (bytes_pp) {
	case 4: writel(value, p); break;
	case 3:
		writeb((u8)value, p);
		writeb((u8)(value >> 8), p + 1);
		writeb((u8)(value >> 16), p + 2);
		break;
	case 2: writew((u16)value, p); break;
	}
}

void fbcon_draw_cell(u32 col, u32 row, char c)
{
	if (!active || col >= cols || row >= rows)
		return;
	if (text_mode) {
		u16 __iomem *cell = (u16 __iomem *)(vram + row * fb.pitch) + col;
		writew((u16)VGA_TEXT_ATTR << 8 | (u8)c, cell);
		return;
	}
	if ((col + 1) * FONT_WIDTH > qr_left && row * FONT_HEIGHT < qr_bottom)
		return;         /* under the QR code */
	const u8 *glyph = font_glyph((unsigned char)c);
	u8 __iomem *line = vram + (u64)row * FONT_HEIGHT * fb.pitch + (u64)col * FONT_WIDTH * bytes_pp;
	if (pixel_pairs_ok) {   /* 32 bpp: two pixels a store, four stores a glyph row */
		for (u32 y = 0; y < FONT_HEIGHT; y++, line += fb.pitch) {
			u64 __iomem *p = (u64 __iomem *)line;
			u32 bits = glyph[y];

			writeq(pixel_pairs[bits >> 6 & 3], &p[0]);
			writeq(pixel_pairs[bits >> 4 & 3], &p[1]);
			writeq(pixel_pairs[bits >> 2 & 3], &p[2]);
			writeq(pixel_pairs[bits & 3], &p[3]);
		}
		return;
	}
	for (u32 y = 0; y < FONT_HEIGHT; y++, line += fb.pitch)
		for (u32 x = 0; x < FONT_WIDTH; x++)
			put_pixel(line + x * bytes_pp, (glyph[y] & (0x80 >> x)) ? fg : bg);
}

u32 fbcon_read_pixel(u32 x, u32 y)
{
	u8 __iomem *p;

	if (!active || text_mode || x >= fb.width || y >= fb.height)
		return 0;
	p = vram + (u64)y * fb.pitch + (u64)x * bytes_pp;
	switch (bytes_pp) {
	case 4: return readl(p);
	case 3: return readb(p) | readb(p + 1) << 8 | readb(p + 2) << 16;
	default: return readw(p);
	}
}

u32 fbcon_cell_mismatches(u32 col, u32 row, char c)
{
	const u8 *glyph = font_glyph((unsigned char)c);
	u32 wrong = 0;

	for (u32 y = 0; y < FONT_HEIGHT; y++)
		for (u32 x = 0; x < FONT_WIDTH; x++)
			wrong += fbcon_read_pixel(col * FONT_WIDTH + x, row * FONT_HEIGHT + y) !=
				 ((glyph[y] & (0x80 >> x)) ? fg : bg);
	return wrong;
}

/* Is the live grid on the screen? Not under the scroll-back, not while held. */
static bool drawing(void)
{
	return !viewing && !held;
}

char fbcon_cell(u32 col, u32 row)
{
	return active && col < cols && row < rows ? cells[row][col] : 0;
}

static void redraw(void)
{
	if (!drawing())
		return;         /* cells[][] is drawn when the view goes, or drawing starts */
	for (u32 r = 0; r < rows; r++)
		for (u32 c = 0; c < cols; c++)
			fbcon_draw_cell(c, r, cells[r][c]);
}

/*
 * Move the grid up by a quarter of the screen. cells[][] is what the
 * screen shows, so only the cells whose character changes are drawn: a
 * blank staying blank, or the same character in the same place (the
 * timestamps' "[    0."), costs nothing. Rows are moved top down, so
 * row r + by is still the old one when row r takes it.
 */
static void scroll(void)
{
	u32 by = rows >= 8 ? rows / 4 : 1;

	for (u32 r = 0; r < rows; r++) {
		for (u32 c = 0; c < cols; c++) {
			char now = r + by < rows ? cells[r + by][c] : ' ';

			if (cells[r][c] == now)
				continue;
			cells[r][c] = now;
			if (drawing())
				fbcon_draw_cell(c, r, now);
		}
	}
	cur_row -= by;
}

static void newline(void)
{
	cur_col = 0;
	if (++cur_row == rows)
		scroll();
}

static void set_cell(u32 col, u32 row, char c)
{
	cells[row][col] = c;
	if (drawing())
		fbcon_draw_cell(col, row, c);
}

/* Where a wrapped line goes on: under the text after "[    1.234567] ". */
static u32 wrap_indent(void)
{
	return cols > 2 * WRAP_INDENT ? WRAP_INDENT : 0;
}

/*
 * The row is full and a character continues it: carry the last word
 * (after the row's last blank past the indent) to a new row, indented;
 * a row without such a blank is cut where it is full.
 */
static void wrap(void)
{
	char word[MAX_COLS];
	u32 start = cols;

	while (start > wrap_indent() + 1 && cells[cur_row][start - 1] != ' ')
		start--;
	if (start <= wrap_indent() + 1)
		start = cols;
	u32 n = cols - start;
	memcpy(word, &cells[cur_row][start], n);
	for (u32 c = start; c < cols; c++)
		set_cell(c, cur_row, ' ');
	newline();
	cur_col = wrap_indent();
	for (u32 i = 0; i < n; i++)
		set_cell(cur_col++, cur_row, word[i]);
}

static void putc(char c)
{
	bool full = wrap_pending;

	wrap_pending = false;
	switch (c) {
	case '\n':
		newline();
		return;
	case '\r':
		cur_col = 0;
		return;
	case '\t':
		wrap_pending = full;
		do
			putc(' ');
		while (cur_col % 8 && !wrap_pending);
		return;
	case '\b':
		if (cur_col && !full)
			cur_col--;
		return;
	}
	if (full && c == ' ') {         /* the break falls here: nothing to carry */
		newline();
		cur_col = wrap_indent();
		return;
	}
	if (full)
		wrap();
	set_cell(cur_col, cur_row, c);
	if (cur_col + 1 == cols)
		wrap_pending = true;    /* the cursor stays on the last column */
	else
		cur_col++;
}

/* The progress line, if one is shown: its row and length in cells[][]. */
static u32 progress_row, progress_len;

static void clear_progress(void)
{
	for (u32 c = 0; c < progress_len; c++) {
		cells[progress_row][c] = ' ';
		if (drawing())
			fbcon_draw_cell(c, progress_row, ' ');
	}
	progress_len = 0;
}

static void fbcon_write(struct console *con, const char *s, size_t n)
{
	(void)con;
	clear_progress();
	for (size_t i = 0; i < n; i++)
		putc(s[i]);
}

/* Show s on the cursor's row, if the row is empty so far; the next write clears it. */
static void fbcon_progress(struct console *con, const char *s)
{
	(void)con;
	clear_progress();
	if (cur_col != 0)
		return;         /* a line is being written: no room */
	u32 n = MIN((u32)strlen(s), cols - 1);
	memcpy(cells[cur_row], s, n);
	for (u32 c = 0; c < n && drawing(); c++)
		fbcon_draw_cell(c, cur_row, s[c]);
	progress_row = cur_row;
	progress_len = n;
}

static struct console fb_console = {
	.name = "fb",
	.write = fbcon_write,
	.progress = fbcon_progress,
};

/* Can we draw into this framebuffer? Says why not. */
static const char *unsupported(const struct mb2_framebuffer *f)
{
	if (f->type == MB2_FB_EGA_TEXT)
		return NULL;
	if (f->type != MB2_FB_RGB)
		return "indexed-color framebuffers are not supported";
	if (f->bpp != 16 && f->bpp != 24 && f->bpp != 32)
		return "only 16, 24 and 32 bits per pixel are supported";
	if (!f->red_size || f->red_size > 8 || !f->green_size || f->green_size > 8 ||
	    !f->blue_size || f->blue_size > 8)
		return "odd color channel sizes";
	if (f->width < FONT_WIDTH || f->height < FONT_HEIGHT)
		return "smaller than one character";
	return NULL;
}

bool fbcon_init(const struct mb2_framebuffer *f, bool bios)
{
	static const struct mb2_framebuffer vga_text = {
		.addr = 0xb8000, .pitch = 160, .width = 80, .height = 25, .bpp = 16,
		.type = MB2_FB_EGA_TEXT,
	};
	const char *why;

	if (!f && bios)
		f = &vga_text;  /* no tag on a BIOS machine: GRUB left VGA text mode on */
	if (!f) {
		pr_info("fbcon: no framebuffer\n");
		return false;
	}
	if ((why = unsupported(f))) {
		pr_warn("fbcon: framebuffer %ux%u %u bpp type %u: %s\n", f->width, f->height,
			f->bpp, f->type, why);
		return false;
	}
	fb = *f;
	text_mode = fb.type == MB2_FB_EGA_TEXT;
	bytes_pp = text_mode ? 2 : (fb.bpp + 7) / 8;
	vram = ioremap(fb.addr, (u64)fb.pitch * fb.height, text_mode ? VM_UC : VM_WC);
	if (!vram)
		return false;
	cols = MIN(text_mode ? fb.width : fb.width / FONT_WIDTH, (u32)MAX_COLS);
	rows = MIN(text_mode ? fb.height : fb.height / FONT_HEIGHT, (u32)MAX_ROWS);
	fg = text_mode ? 0 : pack(FG_RGB);
	bg = text_mode ? 0 : pack(BG_RGB);
	pixel_pairs_ok = !text_mode && bytes_pp == 4 && fb.pitch % 8 == 0 && fb.addr % 8 == 0;
	for (u32 i = 0; i < 4; i++)
		pixel_pairs[i] = (u64)(i & 2 ? fg : bg) | (u64)(i & 1 ? fg : bg) << 32;
	memset(cells, ' ', sizeof(cells));
	active = true;
	/*
	 * The log so far, and what the boot prints until
	 * fbcon_start_drawing(), go into cells[][] undrawn; then one pass
	 * draws every cell, the clear of GRUB's screen and the text at once.
	 * VGA text mode is a store per cell: drawn from the start.
	 */
	held = !text_mode && !defer_off;
	console_register(&fb_console, true);
	redraw();
	pr_info("fbcon: %s %ux%u at 0x%llx, %u bpp, %ux%u characters\n",
		text_mode ? "VGA text" : "framebuffer", fb.width, fb.height,
		fb.addr, fb.bpp, cols, rows);
	return true;
}

bool fbcon_draw_qr(const struct qr_code *qr)
{
	u32 modules = (u32)qr->size + 2 * QR_QUIET;
	u32 scale = MIN(4u, MIN(fb.height / modules, fb.width / 2 / modules));
	u32 white = pack(0xffffff), black = pack(0);

	if (!active || text_mode || scale < 2)
		return false;
	u32 x0 = fb.width - modules * scale;
	qr_left = x0;           /* first: text printed from now on keeps out */
	qr_bottom = modules * scale;
	for (u32 y = 0; y < modules * scale; y++) {
		u8 __iomem *line = vram + (u64)y * fb.pitch + (u64)x0 * bytes_pp;
		for (u32 x = 0; x < modules * scale; x++)
			put_pixel(line + x * bytes_pp,
				  qr_dark(qr, (int)(x / scale) - QR_QUIET, (int)(y / scale) - QR_QUIET)
					  ? black : white);
	}
	return true;
}

void fbcon_start_drawing(void)
{
	if (!held)
		return;
	held = false;
	redraw();
}

void fbcon_view_scroll(int delta)
{
	char status[MAX_COLS + 1];
	s64 back = (s64)view_back + delta;
	size_t n;
	u32 total;

	if (!active || held || rows < 2 || (!viewing && delta <= 0))
		return;         /* nothing below the live screen */
	if (back <= 0 && delta < 0) {
		fbcon_view_live();      /* paged down past the bottom */
		return;
	}
	viewing = true;
	n = printk_log_copy(view_text, sizeof(view_text));
	total = logview_rows(view_text, n, cols);
	view_back = logview_render(view_text, n, cols, rows - 1, back < 0 ? 0 : (u32)back,
				   view_cells);
	for (u32 r = 0; r + 1 < rows; r++)
		for (u32 c = 0; c < cols; c++)
			fbcon_draw_cell(c, r, view_cells[r * cols + c]);
	snprintf(status, sizeof(status),
		 "-- log: rows %u-%u of %u; PgUp/PgDn scroll, any other key returns --",
		 total > rows - 1 + view_back ? total - (rows - 1) - view_back + 1 : 1,
		 total - view_back, total);
	for (u32 c = 0; c < cols; c++)
		fbcon_draw_cell(c, rows - 1, c < strlen(status) ? status[c] : ' ');
}

void fbcon_view_live(void)
{
	if (!viewing)
		return;
	viewing = false;
	view_back = 0;
	redraw();
}

bool fbcon_viewing(void)
{
	return viewing;
}

void fbcon_hide_qr(void)
{
	if (qr_left == ~0u)
		return;
	qr_left = ~0u;
	qr_bottom = 0;
	redraw();
}

void fbcon_get_info(struct fbcon_info *info)
{
	*info = (struct fbcon_info){
		.active = active, .text_mode = text_mode, .width = fb.width,
		.height = fb.height, .bpp = fb.bpp, .cols = cols, .rows = rows, .row = cur_row,
		.fg = fg, .bg = bg,
	};
}
