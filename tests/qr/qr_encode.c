// SPDX-License-Identifier: MIT
/*
 * qr_encode.c - build/host/qr_encode: kernel/qr.c on the host, writing PNGs
 * for an independent decoder (zbarimg) to read back: tests/qr/qr_check.py.
 *
 *   qr_encode [-l L|M] [-m MASK] [-s SCALE] OUT.png < BYTES
 *   qr_encode -c [-l L|M]     print "capacity V BYTES" for every version
 *
 * Prints "version V mask M size N" on stdout. The PNG is 8-bit greyscale,
 * SCALE pixels a module (default 4) with the 4-module quiet zone, written
 * without compression: zlib "stored" blocks need only Adler-32, and the
 * PNG chunks CRC-32, both computed here, so no library is needed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qr.h"

static u32 crc_table[256];

static void crc_init(void)
{
	for (u32 n = 0; n < 256; n++) {
		u32 c = n;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[n] = c;
	}
}

static u32 crc32(u32 crc, const u8 *p, size_t n)
{
	crc = ~crc;
	while (n--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static void be32(u8 *p, u32 v)
{
	p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

static void chunk(FILE *f, const char *type, const u8 *data, u32 len)
{
	u8 head[8], tail[4];

	be32(head, len);
	memcpy(head + 4, type, 4);
	u32 crc = crc32(crc32(0, head + 4, 4), data, len);
	be32(tail, crc);
	fwrite(head, 1, 8, f);
	if (len)
		fwrite(data, 1, len, f);
	fwrite(tail, 1, 4, f);
}

/* raw: height rows of (1 filter byte + width pixels). */
static void write_png(FILE *f, const u8 *raw, u32 width, u32 height)
{
	static const u8 signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	u8 ihdr[13];
	size_t n = (size_t)height * (width + 1);
	size_t blocks = (n + 65534) / 65535;
	u8 *z = malloc(2 + n + 5 * blocks + 4), *p = z;
	u32 a = 1, b = 0;

	be32(ihdr, width);
	be32(ihdr + 4, height);
	ihdr[8] = 8;            /* bit depth */
	ihdr[9] = 0;            /* greyscale */
	ihdr[10] = ihdr[11] = ihdr[12] = 0;
	*p++ = 0x78;            /* zlib: deflate, 32 KiB window */
	*p++ = 0x01;            /* no dictionary, fastest; (0x78 << 8 | 1) % 31 == 0 */
	for (size_t done = 0; done < n;) {
		u16 len = (u16)(n - done > 65535 ? 65535 : n - done);
		*p++ = done + len == n;         /* BFINAL, BTYPE 00: stored */
		*p++ = len & 0xff; *p++ = len >> 8;
		*p++ = ~len & 0xff; *p++ = (u8)(~len >> 8);
		memcpy(p, raw + done, len);
		p += len;
		done += len;
	}
	for (size_t i = 0; i < n; i++) {
		a = (a + raw[i]) % 65521;
		b = (b + a) % 65521;
	}
	be32(p, b << 16 | a);
	p += 4;
	fwrite(signature, 1, 8, f);
	chunk(f, "IHDR", ihdr, 13);
	chunk(f, "IDAT", z, (u32)(p - z));
	chunk(f, "IEND", NULL, 0);
	free(z);
}

int main(int argc, char **argv)
{
	static struct qr_code qr;
	static u8 data[4096];
	enum qr_ecc ecc = QR_ECC_L;
	int mask = -1, scale = 4, opt;
	bool capacities = false;

	while ((opt = getopt(argc, argv, "cl:m:s:")) != -1) {
		if (opt == 'l')
			ecc = optarg[0] == 'M' ? QR_ECC_M : QR_ECC_L;
		else if (opt == 'm')
			mask = atoi(optarg);
		else if (opt == 's')
			scale = atoi(optarg);
		else if (opt == 'c')
			capacities = true;
		else
			return 2;
	}
	if (capacities) {
		for (int v = 1; v <= QR_MAX_VERSION; v++)
			printf("capacity %d %d\n", v, qr_capacity(v, ecc));
		return 0;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: qr_encode [-l L|M] [-m MASK] [-s SCALE] OUT.png < BYTES\n");
		return 2;
	}
	size_t len = fread(data, 1, sizeof(data), stdin);
	if (qr_encode(data, len, ecc, mask, &qr)) {
		fprintf(stderr, "qr_encode: %zu bytes do not fit in version %d\n", len,
			QR_MAX_VERSION);
		return 1;
	}
	u32 side = (u32)(qr.size + 2 * QR_QUIET) * (u32)scale;
	u8 *raw = malloc((size_t)side * (side + 1));
	for (u32 y = 0; y < side; y++) {
		u8 *row = raw + (size_t)y * (side + 1);
		row[0] = 0;     /* filter: none */
		for (u32 x = 0; x < side; x++)
			row[1 + x] = qr_dark(&qr, (int)(x / scale) - QR_QUIET,
					     (int)(y / scale) - QR_QUIET) ? 0 : 255;
	}
	crc_init();
	FILE *f = fopen(argv[optind], "wb");
	if (!f) {
		perror(argv[optind]);
		return 1;
	}
	write_png(f, raw, side, side);
	fclose(f);
	free(raw);
	printf("version %d mask %d size %d\n", qr.version, qr.mask, qr.size);
	return 0;
}
