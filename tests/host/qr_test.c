// SPDX-License-Identifier: MIT
/*
 * qr_test.c - kernel/qr.c's pieces against known answers from outside it:
 * the Reed-Solomon example every QR tutorial works through ("HELLO WORLD"
 * at 1-M), the 32 format words and version words of the standard's
 * Annexes C and D, the byte capacities of table 7, and the count of data
 * modules each version's function patterns leave. The whole symbol is
 * checked by an independent decoder in tests/qr/qr_check.py.
 */
#include <string.h>

#include "ktest.h"
#include "qr.h"

static struct qr_code qr;

static void gf_multiplies_modulo_0x11d(struct ktest *t)
{
	u8 x = 1;

	EXPECT_EQ(t, qr_gf_mul(0x80, 2), 0x1d);         /* x^8 = x^4 + x^3 + x^2 + 1 */
	EXPECT_EQ(t, qr_gf_mul(0x53, 0xca), qr_gf_mul(0xca, 0x53));
	/* 2 generates the multiplicative group: a^255 = 1 and no earlier power is 1. */
	for (int i = 1; i < 255; i++) {
		x = qr_gf_mul(x, 2);
		EXPECT_NE(t, x, 1);
	}
	EXPECT_EQ(t, qr_gf_mul(x, 2), 1);
}

static void rs_matches_hello_world_1m(struct ktest *t)
{
	static const u8 data[16] = { 32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236,
				     17, 236, 17 };
	static const u8 want[10] = { 196, 35, 39, 119, 235, 215, 231, 226, 93, 23 };
	u8 ec[10];

	qr_rs_encode(data, 16, 10, ec);
	for (int i = 0; i < 10; i++)
		EXPECT_EQ(t, ec[i], want[i]);
}

static void format_bits_match_annex_c(struct ktest *t)
{
	static const char *const l[8] = {
		"111011111000100", "111001011110011", "111110110101010", "111100010011101",
		"110011000101111", "110001100011000", "110110001000001", "110100101110110" };
	static const char *const m[8] = {
		"101010000010010", "101000100100101", "101111001111100", "101101101001011",
		"100010111111001", "100000011001110", "100111110010111", "100101010100000" };

	for (int mask = 0; mask < 8; mask++) {
		u16 want_l = 0, want_m = 0;
		for (int i = 0; i < 15; i++) {
			want_l = (u16)(want_l << 1 | (l[mask][i] == '1'));
			want_m = (u16)(want_m << 1 | (m[mask][i] == '1'));
		}
		EXPECT_EQ(t, qr_format_bits(QR_ECC_L, mask), want_l);
		EXPECT_EQ(t, qr_format_bits(QR_ECC_M, mask), want_m);
	}
}

static void version_bits_match_annex_d(struct ktest *t)
{
	EXPECT_EQ(t, qr_version_bits(7), 0x07c94);      /* 000111 110010010100 */
	EXPECT_EQ(t, qr_version_bits(8), 0x085bc);      /* 001000 010110111100 */
	EXPECT_EQ(t, qr_version_bits(10), 0x0a4d3);     /* 001010 010011010011 */
	EXPECT_EQ(t, qr_version_bits(20), 0x149a6);     /* 010100 100110100110 */
}

static void byte_capacity_matches_table_7(struct ktest *t)
{
	EXPECT_EQ(t, qr_capacity(1, QR_ECC_L), 17);
	EXPECT_EQ(t, qr_capacity(1, QR_ECC_M), 14);
	EXPECT_EQ(t, qr_capacity(7, QR_ECC_L), 154);
	EXPECT_EQ(t, qr_capacity(10, QR_ECC_L), 271);
	EXPECT_EQ(t, qr_capacity(10, QR_ECC_M), 213);
	EXPECT_EQ(t, qr_capacity(15, QR_ECC_M), 412);
	EXPECT_EQ(t, qr_capacity(20, QR_ECC_L), 858);
	EXPECT_EQ(t, qr_capacity(20, QR_ECC_M), 666);
}

/*
 * The data modules the function patterns leave are the codewords of table
 * 9 plus 0, 3 or 7 remainder bits (table 1): a wrong alignment position or
 * a wrong block count shows up here.
 */
static void data_modules_fit_the_codewords(struct ktest *t)
{
	static const int remainder[21] = { 0, 0, 7, 7, 7, 7, 7, 0, 0, 0, 0, 0, 0, 0,
					   3, 3, 3, 3, 3, 3, 3 };
	/* Table 1, total codewords of versions 1..20. */
	static const int total[21] = { 0, 26, 44, 70, 100, 134, 172, 196, 242, 292, 346, 404,
				       466, 532, 581, 655, 733, 815, 901, 991, 1085 };
	u8 text[900];

	memset(text, 'a', sizeof(text));
	for (int v = 1; v <= QR_MAX_VERSION; v++) {
		int data = 0;

		ASSERT_EQ(t, qr_encode(text, (size_t)qr_capacity(v, QR_ECC_L), QR_ECC_L, 0, &qr), 0);
		ASSERT_EQ(t, qr.version, v);
		ASSERT_EQ(t, qr.size, 17 + 4 * v);
		for (int y = 0; y < qr.size; y++)
			for (int x = 0; x < qr.size; x++)
				data += !(qr.module[y][x] & QR_FUNCTION);
		EXPECT_EQ(t, data, total[v] * 8 + remainder[v]);
	}
}

static void auto_mask_has_the_lowest_penalty(struct ktest *t)
{
	static const u8 text[] = "testbed: cpus=2 nodes=1 mem=1024M\nktap: 120 passed";
	int best, penalty[8];

	ASSERT_EQ(t, qr_encode(text, sizeof(text) - 1, QR_ECC_M, -1, &qr), 0);
	best = qr.mask;
	for (int m = 0; m < 8; m++) {
		ASSERT_EQ(t, qr_encode(text, sizeof(text) - 1, QR_ECC_M, m, &qr), 0);
		penalty[m] = qr_penalty(&qr);
	}
	for (int m = 0; m < 8; m++)
		EXPECT_LE(t, penalty[best], penalty[m]);
}

static void too_long_is_refused(struct ktest *t)
{
	static u8 text[1000];

	EXPECT_EQ(t, qr_encode(text, 859, QR_ECC_L, -1, &qr), -1);
	EXPECT_EQ(t, qr_encode(text, 858, QR_ECC_L, -1, &qr), 0);
	EXPECT_EQ(t, qr_encode(text, 0, QR_ECC_L, -1, &qr), 0);
	EXPECT_EQ(t, qr.version, 1);
}

static const struct ktest_case qr_cases[] = {
	KTEST(gf_multiplies_modulo_0x11d),
	KTEST(rs_matches_hello_world_1m),
	KTEST(format_bits_match_annex_c),
	KTEST(version_bits_match_annex_d),
	KTEST(byte_capacity_matches_table_7),
	KTEST(data_modules_fit_the_codewords),
	KTEST(auto_mask_has_the_lowest_penalty),
	KTEST(too_long_is_refused),
	{}
};
KTEST_SUITE(qr, qr_cases);
