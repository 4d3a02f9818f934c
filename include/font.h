/* SPDX-License-Identifier: MIT */
/* font.h - the 8x16 bitmap font used by the framebuffer console (drivers/font8x16.c). */
#ifndef FONT_H
#define FONT_H
#include <stdint.h>
#define FONT_WIDTH 8
#define FONT_HEIGHT 16
#define FONT_FIRST 0x20   /* first glyph: ' ' */
#define FONT_GLYPHS 95    /* printable ASCII 0x20..0x7e */
extern const uint8_t font8x16[FONT_GLYPHS][FONT_HEIGHT];
extern const uint8_t font_unknown[FONT_HEIGHT];
/* The glyph for character c: printable ASCII or the box. */
static inline const uint8_t *font_glyph(unsigned char c)
{
	if (c >= FONT_FIRST && c < FONT_FIRST + FONT_GLYPHS)
		return font8x16[c - FONT_FIRST];
	return font_unknown;
}
#endif
