// SPDX-License-Identifier: MIT
/*
 * qr.c - a QR Code encoder, written from ISO/IEC 18004:2015 (see qr.h).
 *
 * The way from bytes to modules, in the order of the standard's 7.1:
 *
 *   bytes --(7.4: mode 0100, count, data, terminator, pad EC 11 EC ..)--> data codewords
 *         --(7.5: split into blocks, Reed-Solomon per block)----------> + EC codewords
 *         --(7.6: interleave: data column by column, then EC)---------> the codeword stream
 *         --(7.7: finders, timing, alignment; zigzag placement)-------> the matrix
 *         --(7.8: XOR each mask, keep the lowest penalty)------------> masked matrix
 *         --(7.9: format bits, BCH(15,5); 7.10: version bits, BCH(18,6))> the symbol
 *
 * (Section numbers of the 2015 edition; the 2006 edition's are 6.x.)
 *
 * The matrix of a version v is 17 + 4v modules square. Module (x, y) is
 * column x, row y, (0, 0) top left. A module is dark or light, and is a
 * function module (a pattern, or format/version information: never
 * masked, never data) or a data module.
 *
 * Reed-Solomon works in GF(256) built on x^8 + x^4 + x^3 + x^2 + 1 (0x11d)
 * with the generator alpha = 2; the generator polynomial of n EC codewords
 * is (x - a^0)(x - a^1)...(x - a^(n-1)) (7.5.2), and the EC codewords are
 * the remainder of data(x) * x^n divided by it.
 *
 * Invariants: qr->size == 17 + 4 * qr->version; after qr_encode() every
 * data module has been written exactly once, the remainder bits (0 to 7 of
 * them) are light, and the format bits say the mask that was applied.
 */
#include "qr.h"
#include "kstring.h"

/*
 * Table 9 of the standard, levels L and M: the EC codewords of each block,
 * and the blocks as (count, data codewords) in two groups; group 2 blocks
 * have one data codeword more. Versions 1..20.
 */
struct qr_blocks {
	u8 ec_per_block;
	u8 count1, data1;
	u8 count2, data2;
};

static const struct qr_blocks block_table[QR_MAX_VERSION + 1][2] = {
	/*       level L                 level M */
	[1]  = { { 7, 1, 19, 0, 0 },    { 10, 1, 16, 0, 0 } },
	[2]  = { { 10, 1, 34, 0, 0 },   { 16, 1, 28, 0, 0 } },
	[3]  = { { 15, 1, 55, 0, 0 },   { 26, 1, 44, 0, 0 } },
	[4]  = { { 20, 1, 80, 0, 0 },   { 18, 2, 32, 0, 0 } },
	[5]  = { { 26, 1, 108, 0, 0 },  { 24, 2, 43, 0, 0 } },
	[6]  = { { 18, 2, 68, 0, 0 },   { 16, 4, 27, 0, 0 } },
	[7]  = { { 20, 2, 78, 0, 0 },   { 18, 4, 31, 0, 0 } },
	[8]  = { { 24, 2, 97, 0, 0 },   { 22, 2, 38, 2, 39 } },
	[9]  = { { 30, 2, 116, 0, 0 },  { 22, 3, 36, 2, 37 } },
	[10] = { { 18, 2, 68, 2, 69 },  { 26, 4, 43, 1, 44 } },
	[11] = { { 20, 4, 81, 0, 0 },   { 30, 1, 50, 4, 51 } },
	[12] = { { 24, 2, 92, 2, 93 },  { 22, 6, 36, 2, 37 } },
	[13] = { { 26, 4, 107, 0, 0 },  { 22, 8, 37, 1, 38 } },
	[14] = { { 30, 3, 115, 1, 116 }, { 24, 4, 40, 5, 41 } },
	[15] = { { 22, 5, 87, 1, 88 },  { 24, 5, 41, 5, 42 } },
	[16] = { { 24, 5, 98, 1, 99 },  { 28, 7, 45, 3, 46 } },
	[17] = { { 28, 1, 107, 5, 108 }, { 28, 10, 46, 1, 47 } },
	[18] = { { 30, 5, 120, 1, 121 }, { 26, 9, 43, 4, 44 } },
	[19] = { { 28, 3, 113, 4, 114 }, { 26, 3, 44, 11, 45 } },
	[20] = { { 28, 3, 107, 5, 108 }, { 26, 3, 41, 13, 42 } },
};

/* Annex E, table E.1: centre rows/columns of the alignment patterns. */
static const u8 align_table[QR_MAX_VERSION + 1][4] = {
	[2] = { 6, 18 },         [3] = { 6, 22 },         [4] = { 6, 26 },
	[5] = { 6, 30 },         [6] = { 6, 34 },         [7] = { 6, 22, 38 },
	[8] = { 6, 24, 42 },     [9] = { 6, 26, 46 },     [10] = { 6, 28, 50 },
	[11] = { 6, 30, 54 },    [12] = { 6, 32, 58 },    [13] = { 6, 34, 62 },
	[14] = { 6, 26, 46, 66 }, [15] = { 6, 26, 48, 70 }, [16] = { 6, 26, 50, 74 },
	[17] = { 6, 30, 54, 78 }, [18] = { 6, 30, 56, 82 }, [19] = { 6, 30, 58, 86 },
	[20] = { 6, 34, 62, 90 },
};

/* --- GF(256) and Reed-Solomon (7.5.2) ------------------------------------------ */

u8 qr_gf_mul(u8 a, u8 b)
{
	u8 product = 0;

	/* Russian peasant: add a * x^i for each bit i of b, reducing by 0x11d. */
	for (int i = 0; i < 8; i++) {
		if (b & 1)
			product ^= a;
		b >>= 1;
		a = (u8)((a << 1) ^ ((a & 0x80) ? 0x1d : 0));
	}
	return product;
}

/* gen[0..n): the generator polynomial's coefficients below x^n, highest first. */
static void rs_generator(int n, u8 *gen)
{
	u8 root = 1;    /* a^i */

	memset(gen, 0, (size_t)n);
	gen[n - 1] = 1;         /* the polynomial 1 */
	for (int i = 0; i < n; i++) {
		/* Multiply by (x - a^i), i.e. (x + a^i) in GF(2^8). */
		for (int j = 0; j < n; j++) {
			gen[j] = qr_gf_mul(gen[j], root);
			if (j + 1 < n)
				gen[j] ^= gen[j + 1];
		}
		root = qr_gf_mul(root, 2);
	}
}

void qr_rs_encode(const u8 *data, int len, int n, u8 *ec)
{
	u8 gen[32];

	rs_generator(n, gen);
	memset(ec, 0, (size_t)n);
	/* Long division of data(x) * x^n by gen(x), remainder in ec. */
	for (int i = 0; i < len; i++) {
		u8 factor = data[i] ^ ec[0];

		memmove(ec, ec + 1, (size_t)n - 1);
		ec[n - 1] = 0;
		for (int j = 0; j < n; j++)
			ec[j] ^= qr_gf_mul(gen[j], factor);
	}
}

/* --- BCH codes of the format and version information (7.9, 7.10, Annexes C, D) --- */

/* The remainder of value * x^(degree of poly) divided by poly, over GF(2). */
static u32 bch_remainder(u32 value, u32 poly, int degree)
{
	u32 rem = value << degree;

	for (int bit = 31; bit >= degree; bit--)
		if (rem & (1u << bit))
			rem ^= poly << (bit - degree);
	return rem;
}

u16 qr_format_bits(enum qr_ecc ecc, int mask)
{
	/* Table 12: L is 01, M is 00 (Q 11, H 10). */
	u32 data = (ecc == QR_ECC_L ? 1u : 0u) << 3 | (u32)mask;

	return (u16)(((data << 10) | bch_remainder(data, 0x537, 10)) ^ 0x5412);
}

u32 qr_version_bits(int version)
{
	return (u32)version << 12 | bch_remainder((u32)version, 0x1f25, 12);
}

/* --- sizes ---------------------------------------------------------------------- */

static const struct qr_blocks *blocks_of(int version, enum qr_ecc ecc)
{
	return &block_table[version][ecc == QR_ECC_L ? 0 : 1];
}

static int data_codewords(int version, enum qr_ecc ecc)
{
	const struct qr_blocks *b = blocks_of(version, ecc);

	return b->count1 * b->data1 + b->count2 * b->data2;
}

/* Byte mode: 4 bits of mode, then 8 (versions 1-9) or 16 bits of count (table 3). */
static int count_bits(int version)
{
	return version <= 9 ? 8 : 16;
}

int qr_capacity(int version, enum qr_ecc ecc)
{
	int bytes = (data_codewords(version, ecc) * 8 - 4 - count_bits(version)) / 8;

	return version <= 9 ? MIN(bytes, 255) : bytes;
}

/* --- function patterns (6.3) ---------------------------------------------------- */

static void set_function(struct qr_code *qr, int x, int y, bool dark)
{
	qr->module[y][x] = QR_FUNCTION | (dark ? QR_DARK : 0);
}

/* A finder: 7x7 dark ring, 3x3 dark centre, with its light separator around. */
static void draw_finder(struct qr_code *qr, int cx, int cy)
{
	for (int dy = -4; dy <= 4; dy++)
		for (int dx = -4; dx <= 4; dx++) {
			int x = cx + dx, y = cy + dy;
			int ring = MAX(dx < 0 ? -dx : dx, dy < 0 ? -dy : dy);

			if (x >= 0 && y >= 0 && x < qr->size && y < qr->size)
				set_function(qr, x, y, ring != 2 && ring != 4);
		}
}

/* An alignment pattern: 5x5 dark ring around a light ring around one dark module. */
static void draw_alignment(struct qr_code *qr, int cx, int cy)
{
	for (int dy = -2; dy <= 2; dy++)
		for (int dx = -2; dx <= 2; dx++)
			set_function(qr, cx + dx, cy + dy,
				     MAX(dx < 0 ? -dx : dx, dy < 0 ? -dy : dy) != 1);
}

/* Format bits: 0..14, bit 14 first in the reading order of figure 25. */
static void draw_format(struct qr_code *qr)
{
	u16 bits = qr_format_bits(qr->ecc, qr->mask);
	int n = qr->size;

	for (int i = 0; i < 15; i++) {
		bool dark = (bits >> i) & 1;

		/* Around the top-left finder: down column 8, then left along row 8. */
		if (i < 6)
			set_function(qr, 8, i, dark);
		else if (i < 8)
			set_function(qr, 8, i + 1, dark);       /* skips the timing row 6 */
		else if (i == 8)
			set_function(qr, 7, 8, dark);
		else
			set_function(qr, 14 - i, 8, dark);      /* skips the timing column 6 */
		/* The copy: along row 8 at the right, then up column 8 at the bottom. */
		if (i < 8)
			set_function(qr, n - 1 - i, 8, dark);
		else
			set_function(qr, 8, n - 15 + i, dark);
	}
	set_function(qr, 8, n - 8, true);       /* the dark module, always dark */
}

/* Version bits (version >= 7): 6x3 blocks beside the top-right and bottom-left finders. */
static void draw_version(struct qr_code *qr)
{
	u32 bits = qr_version_bits(qr->version);

	for (int i = 0; i < 18; i++) {
		bool dark = (bits >> i) & 1;
		int a = qr->size - 11 + i % 3, b = i / 3;

		set_function(qr, a, b, dark);
		set_function(qr, b, a, dark);
	}
}

static void draw_function_patterns(struct qr_code *qr)
{
	int n = qr->size;
	const u8 *align = align_table[qr->version];
	int nalign = 0;

	while (nalign < 4 && align[nalign])
		nalign++;
	for (int i = 0; i < n; i++) {           /* timing: alternating, dark on even */
		set_function(qr, 6, i, i % 2 == 0);
		set_function(qr, i, 6, i % 2 == 0);
	}
	draw_finder(qr, 3, 3);
	draw_finder(qr, n - 4, 3);
	draw_finder(qr, 3, n - 4);
	for (int i = 0; i < nalign; i++)
		for (int j = 0; j < nalign; j++) {
			/* Not on the three finders. */
			if ((i == 0 && j == 0) || (i == 0 && j == nalign - 1) ||
			    (i == nalign - 1 && j == 0))
				continue;
			draw_alignment(qr, align[i], align[j]);
		}
	draw_format(qr);        /* reserves the modules; written again after masking */
	if (qr->version >= 7)
		draw_version(qr);
}

/* --- data (7.4, 7.6, 7.7.3) ---------------------------------------------------- */

static void put_bits(u8 *buf, int *bitpos, u32 value, int nbits)
{
	for (int i = nbits - 1; i >= 0; i--, (*bitpos)++)
		if ((value >> i) & 1)
			buf[*bitpos >> 3] |= (u8)(0x80 >> (*bitpos & 7));
}

/* Mode, count, bytes, terminator, padding: capacity data codewords into out. */
static void make_data_codewords(const u8 *data, size_t len, int version, int capacity,
				u8 *out)
{
	int bit = 0;

	memset(out, 0, (size_t)capacity);
	put_bits(out, &bit, 0x4, 4);                    /* byte mode */
	put_bits(out, &bit, (u32)len, count_bits(version));
	for (size_t i = 0; i < len; i++)
		put_bits(out, &bit, data[i], 8);
	bit += MIN(4, capacity * 8 - bit);              /* terminator: up to four 0s */
	bit = ALIGN_UP(bit, 8);
	for (int i = bit / 8, pad = 0; i < capacity; i++, pad ^= 1)
		out[i] = pad ? 0x11 : 0xec;
}

/*
 * Split the data codewords into blocks, append each block's EC codewords,
 * and interleave: the i-th data codeword of every block in turn, then the
 * i-th EC codeword of every block. Returns the stream's length.
 */
static int make_stream(struct qr_code *qr, const u8 *data_cw)
{
	const struct qr_blocks *b = blocks_of(qr->version, qr->ecc);
	int nblocks = b->count1 + b->count2, ec = b->ec_per_block;
	int longest = b->count2 ? b->data2 : b->data1;
	int stride = longest + ec;          /* each block's room in qr->blocks */
	int out = 0;

	for (int k = 0, offset = 0; k < nblocks; k++) {
		int len = k < b->count1 ? b->data1 : b->data2;
		u8 *block = qr->blocks + k * stride;

		memcpy(block, data_cw + offset, (size_t)len);
		qr_rs_encode(block, len, ec, block + longest);
		offset += len;
	}
	for (int i = 0; i < longest; i++)
		for (int k = 0; k < nblocks; k++)
			if (i < (k < b->count1 ? b->data1 : b->data2))
				qr->codewords[out++] = qr->blocks[k * stride + i];
	for (int i = 0; i < ec; i++)
		for (int k = 0; k < nblocks; k++)
			qr->codewords[out++] = qr->blocks[k * stride + longest + i];
	return out;
}

/*
 * Place the stream, most significant bit first, in two-module columns from
 * the bottom right: up, then down, then up..., right module before left,
 * skipping function modules and the vertical timing column 6.
 */
static void place_stream(struct qr_code *qr, int len)
{
	int n = qr->size, bit = 0;

	for (int right = n - 1; right >= 1; right -= 2) {
		if (right == 6)
			right = 5;
		bool upward = ((right + 1) & 2) == 0;
		for (int step = 0; step < n; step++) {
			int y = upward ? n - 1 - step : step;

			for (int x = right; x >= right - 1; x--) {
				if (qr->module[y][x] & QR_FUNCTION)
					continue;
				bool dark = bit < len * 8 &&
					    ((qr->codewords[bit >> 3] >> (7 - (bit & 7))) & 1);
				qr->module[y][x] = dark ? QR_DARK : 0;
				bit++;
			}
		}
	}
}

/* --- masking (7.8) -------------------------------------------------------------- */

/* Table 10: the condition under which mask m inverts data module (x, y) = (j, i). */
static bool mask_bit(int mask, int x, int y)
{
	switch (mask) {
	case 0: return (x + y) % 2 == 0;
	case 1: return y % 2 == 0;
	case 2: return x % 3 == 0;
	case 3: return (x + y) % 3 == 0;
	case 4: return (y / 2 + x / 3) % 2 == 0;
	case 5: return (x * y) % 2 + (x * y) % 3 == 0;
	case 6: return ((x * y) % 2 + (x * y) % 3) % 2 == 0;
	default: return ((x + y) % 2 + (x * y) % 3) % 2 == 0;
	}
}

/* XOR the mask into every data module; applying it twice undoes it. */
static void apply_mask(struct qr_code *qr, int mask)
{
	for (int y = 0; y < qr->size; y++)
		for (int x = 0; x < qr->size; x++)
			if (!(qr->module[y][x] & QR_FUNCTION) && mask_bit(mask, x, y))
				qr->module[y][x] ^= QR_DARK;
}

/* Module i of row (vertical false) or column (vertical true) `line`. */
static bool at(const struct qr_code *qr, bool vertical, int line, int i)
{
	return vertical ? qr_dark(qr, line, i) : qr_dark(qr, i, line);
}

/* Rules 1 and 3 along one row or column. */
static int line_penalty(const struct qr_code *qr, bool vertical, int line)
{
	static const bool finder_like[11] = { 1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0 };
	int n = qr->size, penalty = 0, run = 1;

	for (int i = 1; i <= n; i++) {
		if (i < n && at(qr, vertical, line, i) == at(qr, vertical, line, i - 1)) {
			run++;
			continue;
		}
		if (run >= 5)
			penalty += 3 + (run - 5);       /* rule 1: N1 + (run - 5) */
		run = 1;
	}
	/* Rule 3: 1:1:3:1:1 dark-light-dark-light-dark with four light on one side. */
	for (int i = 0; i + 11 <= n; i++) {
		bool ahead = true, behind = true;

		for (int k = 0; k < 11; k++) {
			bool dark = at(qr, vertical, line, i + k);
			ahead &= dark == finder_like[k];
			behind &= dark == finder_like[10 - k];
		}
		penalty += 40 * (ahead + behind);
	}
	return penalty;
}

int qr_penalty(const struct qr_code *qr)
{
	int n = qr->size, penalty = 0, dark = 0;

	for (int i = 0; i < n; i++)
		penalty += line_penalty(qr, false, i) + line_penalty(qr, true, i);
	for (int y = 0; y < n; y++)
		for (int x = 0; x < n; x++) {
			bool c = qr_dark(qr, x, y);

			dark += c;
			/* Rule 2: each 2x2 block of one color, N2 = 3. */
			if (x + 1 < n && y + 1 < n && c == qr_dark(qr, x + 1, y) &&
			    c == qr_dark(qr, x, y + 1) && c == qr_dark(qr, x + 1, y + 1))
				penalty += 3;
		}
	/* Rule 4: 10 points for each whole 5% the dark share is away from 50%. */
	int total = n * n, off = dark * 20 - total * 10;
	if (off < 0)
		off = -off;
	return penalty + 10 * (off / total);
}

/* --- the whole ------------------------------------------------------------------ */

int qr_encode(const u8 *data, size_t len, enum qr_ecc ecc, int mask, struct qr_code *qr)
{
	int version = 1;

	while (version <= QR_MAX_VERSION && (size_t)qr_capacity(version, ecc) < len)
		version++;
	if (version > QR_MAX_VERSION)
		return -1;
	qr->version = version;
	qr->size = 17 + 4 * version;
	qr->ecc = ecc;
	qr->mask = 0;
	memset(qr->module, 0, sizeof(qr->module));
	draw_function_patterns(qr);

	/* The data codewords go into qr->codewords; make_stream() copies them into
	 * blocks before it writes the interleaved stream over them. */
	make_data_codewords(data, len, version, data_codewords(version, ecc), qr->codewords);
	place_stream(qr, make_stream(qr, qr->codewords));

	if (mask < 0) {                 /* try each; the format bits take part in the penalty */
		int best = 0, best_penalty = -1;
		for (int m = 0; m < 8; m++) {
			qr->mask = m;
			apply_mask(qr, m);
			draw_format(qr);
			int p = qr_penalty(qr);
			if (best_penalty < 0 || p < best_penalty)
				best = m, best_penalty = p;
			apply_mask(qr, m);
		}
		mask = best;
	}
	qr->mask = mask;
	apply_mask(qr, mask);
	draw_format(qr);
	return 0;
}
