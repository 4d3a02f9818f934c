/* SPDX-License-Identifier: MIT */
/*
 * qr.h - a QR Code encoder (ISO/IEC 18004:2015), for the results a user
 * takes home: the kernel draws the test and story results as a QR code on
 * the framebuffer, and a phone reads them off the screen.
 *
 * What it makes: byte mode only (any bytes, shown as text by readers),
 * error correction level L (about 7% of the codewords can be restored) or
 * M (about 15%), versions 1 to QR_MAX_VERSION (21x21 to 97x97 modules; at
 * level L version 20 holds 858 bytes), the mask with the lowest penalty
 * or a forced one. No numeric, alphanumeric or kanji mode, no
 * Structured Append, no Micro QR. docs/qr.md draws the layout.
 *
 * Pure logic: no allocation, no printing; built for the host too and
 * checked there against an independent decoder (zbarimg).
 */
#ifndef QR_H
#define QR_H

#include "types.h"

#define QR_MAX_VERSION 20
#define QR_MAX_SIZE (17 + 4 * QR_MAX_VERSION)   /* modules per side of version 20 */
#define QR_MAX_CODEWORDS 1085                   /* data + EC codewords of version 20 */
#define QR_QUIET 4                              /* light modules around the symbol */

enum qr_ecc { QR_ECC_L, QR_ECC_M };

/* module[y][x] bits: */
#define QR_DARK     0x01
#define QR_FUNCTION 0x02        /* finder, timing, alignment, format, version */

struct qr_code {
	int version;            /* 1..QR_MAX_VERSION */
	int size;               /* 17 + 4 * version modules per side */
	enum qr_ecc ecc;
	int mask;               /* 0..7 */
	u8 module[QR_MAX_SIZE][QR_MAX_SIZE];
	u8 codewords[QR_MAX_CODEWORDS];         /* scratch: the interleaved stream */
	u8 blocks[QR_MAX_CODEWORDS + 32];       /* scratch: data and EC per block, the short
						 * blocks padded to the long ones (<= 16 blocks) */
};

/*
 * Encode len bytes in the smallest version that holds them at level ecc.
 * mask is 0..7 to force one, or -1 to pick the lowest penalty.
 * Returns 0, or -1 if the bytes do not fit in QR_MAX_VERSION.
 */
int qr_encode(const u8 *data, size_t len, enum qr_ecc ecc, int mask, struct qr_code *qr);

/* Is the module at column x, row y dark? Outside the symbol: light. */
static inline bool qr_dark(const struct qr_code *qr, int x, int y)
{
	return x >= 0 && y >= 0 && x < qr->size && y < qr->size && (qr->module[y][x] & QR_DARK);
}

/* The most bytes a version holds at level ecc in byte mode. */
int qr_capacity(int version, enum qr_ecc ecc);

/* The pieces, exposed for the host tests: */

/* Multiply in GF(256) with the polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11d). */
u8 qr_gf_mul(u8 a, u8 b);
/* The n Reed-Solomon EC codewords of data[0..len) into ec[0..n). */
void qr_rs_encode(const u8 *data, int len, int n, u8 *ec);
/* The 15 format bits (level, mask, BCH(15,5), XOR 0x5412). */
u16 qr_format_bits(enum qr_ecc ecc, int mask);
/* The 18 version bits (version, BCH(18,6)); for version >= 7. */
u32 qr_version_bits(int version);
/* The penalty of the symbol as it is (the four rules of 7.8.3). */
int qr_penalty(const struct qr_code *qr);

#endif
