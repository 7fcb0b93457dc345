// SPDX-License-Identifier: GPL-2.0
/*
 * faxtiff: the fax tests' images (tests/line/test_line.py).
 *
 * faxtiff make OUT.tif [PAGES [g3 [ROWS]]]
 *   writes a TIFF/F file: 1728 pixels wide, 204 x 196 dpi, bilevel, T.6
 *   (G4) compressed, PAGES pages (default 2) of different lengths with a
 *   ruler, text-like blocks of glyphs and a checkerboard; every pixel is a
 *   pure function of (page, row, column).  PAGES K/N: page K (from 1) of
 *   the N-page document alone.  g3: T.4 one-dimensional (MH) coding
 *   instead, the only TIFF coding efax reads.  ROWS: every page that many
 *   rows long (at least 64) instead of 640 and 440.
 * faxtiff compare [--skip N] A.tif B.tif [B2.tif ...]
 *   decodes both and compares them page by page, row by row; prints one
 *   JSON object (pages, widths, lengths, rows that differ) and exits 0
 *   when every page and every pixel is the same, 1 otherwise.  B's pages
 *   are those of all the B files in turn (efax writes a file per page).
 *   --skip N: each of B's pages starts with N white rows (efax's header
 *   band) that are not A's; any black pixel in them is a difference.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tiffio.h>

#define WIDTH 1728
#define MAX_PAGES 16

static uint32_t hash(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

/* 1 = black */
static int pixel(int page, int row, int col, int rows)
{
	int line, glyph, gx, gy;

	/* a ruler along the top: a tick every 8 columns, longer every 64 */
	if (row < 24)
		return col % 8 == 0 && (row < 8 || col % 64 == 0);
	/* a checkerboard band at the bottom */
	if (row >= rows - 32)
		return ((col / 16) + (row / 16) + page) & 1;
	/* a margin, then text: lines of 12 x 20 glyph cells */
	if (col < 96 || col >= WIDTH - 96 || row < 48)
		return 0;
	line = (row - 48) / 24;
	gy = (row - 48) % 24;
	glyph = (col - 96) / 12;
	gx = (col - 96) % 12;
	if (gy >= 20 || gx >= 10)
		return 0;
	/* short lines and word gaps, like text */
	if (glyph > 40 + (int)(hash((uint32_t)(page * 1000 + line)) % 90))
		return 0;
	if (hash((uint32_t)(page * 100000 + line * 200 + glyph)) % 7 == 0)
		return 0;
	/* the glyph: 5 x 10 cells of 2 x 2 pixels, from a hash of its code */
	return (hash((uint32_t)(page * 7919 + line * 131 + glyph) * 64u +
		     (uint32_t)(gy / 2 * 5 + gx / 2)) & 3) == 0;
}

static int make(const char *path, int first, int pages, int g3, int length)
{
	/* the same on every page (integer tags) */
	static const struct { uint32_t tag; int value; } tags[] = {
		{ TIFFTAG_SUBFILETYPE, FILETYPE_PAGE }, { TIFFTAG_IMAGEWIDTH, WIDTH },
		{ TIFFTAG_BITSPERSAMPLE, 1 }, { TIFFTAG_SAMPLESPERPIXEL, 1 },
		{ TIFFTAG_COMPRESSION, COMPRESSION_CCITTFAX4 },
		{ TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISWHITE },
		{ TIFFTAG_FILLORDER, FILLORDER_LSB2MSB },
		{ TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG },
		{ TIFFTAG_RESOLUTIONUNIT, RESUNIT_INCH },
	};
	TIFF *tif = TIFFOpen(path, "w");
	uint8_t row[WIDTH / 8];
	size_t k;
	int p, r, c;

	if (!tif)
		return 1;
	for (p = first; p < pages; p++) {
		int rows = length ? length : 640 - 200 * (p % 2);

		for (k = 0; k < sizeof(tags) / sizeof(tags[0]); k++)
			TIFFSetField(tif, tags[k].tag, tags[k].value);
		if (g3) {
			TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_CCITTFAX3);
			TIFFSetField(tif, TIFFTAG_GROUP3OPTIONS, 0);
		}
		TIFFSetField(tif, TIFFTAG_IMAGELENGTH, rows);
		TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rows);
		TIFFSetField(tif, TIFFTAG_XRESOLUTION, 204.0f);
		TIFFSetField(tif, TIFFTAG_YRESOLUTION, 196.0f);
		TIFFSetField(tif, TIFFTAG_PAGENUMBER, p - first, pages - first);
		for (r = 0; r < rows; r++) {
			memset(row, 0, sizeof(row));
			for (c = 0; c < WIDTH; c++)
				if (pixel(p, r, c, rows))
					row[c / 8] |= (uint8_t)(0x80 >> (c % 8));
			if (TIFFWriteScanline(tif, row, (uint32_t)r, 0) < 0) {
				TIFFClose(tif);
				return 1;
			}
		}
		TIFFWriteDirectory(tif);
	}
	TIFFClose(tif);
	return 0;
}

struct page {
	uint32_t width, length;
	uint8_t *rows;		/* length rows of (width + 7) / 8 bytes */
};

/* appends path's pages to pg[*npages...] */
static int load(const char *path, struct page *pg, int *npages)
{
	TIFF *tif = TIFFOpen(path, "r");
	int n = *npages;

	if (!tif)
		return -1;
	do {
		struct page *p = &pg[n];
		size_t stride;
		uint32_t r;

		TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &p->width);
		TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &p->length);
		stride = (p->width + 7) / 8;
		p->rows = calloc(p->length ? p->length : 1, stride);
		if (!p->rows || (size_t)TIFFScanlineSize(tif) != stride)
			break;
		for (r = 0; r < p->length; r++)
			if (TIFFReadScanline(tif, p->rows + r * stride, r, 0) < 0)
				break;
		n++;
	} while (n < MAX_PAGES && TIFFReadDirectory(tif));
	TIFFClose(tif);
	*npages = n;
	return 0;
}

static int compare(const char *a, char **b, int nfiles, uint32_t skip)
{
	struct page pa[MAX_PAGES] = { 0 }, pb[MAX_PAGES] = { 0 };
	int na = 0, nb = 0, p, same, f;
	long diff_rows = 0;

	if (load(a, pa, &na)) {
		printf("{\"error\": \"cannot read\"}\n");
		return 1;
	}
	for (f = 0; f < nfiles; f++)
		if (nb >= MAX_PAGES || load(b[f], pb, &nb)) {
			printf("{\"error\": \"cannot read\"}\n");
			return 1;
		}
	same = na == nb && na > 0;
	for (p = 0; skip && p < nb; p++) {
		struct page *y = &pb[p];
		size_t stride = (y->width + 7) / 8, i;

		if (y->length < skip) {
			same = 0;
			continue;
		}
		for (i = 0; i < skip * stride; i++)
			if (y->rows[i])
				same = 0;
		memmove(y->rows, y->rows + skip * stride, (y->length - skip) * stride);
		y->length -= skip;
	}
	printf("{\"pages\": [%d, %d], \"page\": [", na, nb);
	for (p = 0; p < na || p < nb; p++) {
		const struct page *x = &pa[p], *y = &pb[p];
		long d = -1;

		if (p < na && p < nb && x->width == y->width && x->length == y->length) {
			size_t stride = (x->width + 7) / 8;
			uint32_t r;

			d = 0;
			for (r = 0; r < x->length; r++)
				d += memcmp(x->rows + r * stride, y->rows + r * stride, stride) != 0;
			diff_rows += d;
		} else {
			same = 0;
		}
		if (d)
			same = 0;
		printf("%s{\"width\": [%u, %u], \"length\": [%u, %u], \"diff_rows\": %ld}",
		       p ? ", " : "", p < na ? x->width : 0, p < nb ? y->width : 0,
		       p < na ? x->length : 0, p < nb ? y->length : 0, d);
	}
	printf("], \"diff_rows\": %ld, \"same\": %s}\n", diff_rows, same ? "true" : "false");
	for (p = 0; p < MAX_PAGES; p++) {
		free(pa[p].rows);
		free(pb[p].rows);
	}
	return !same;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && argc <= 6 && !strcmp(argv[1], "make") &&
	    (argc < 5 || !strcmp(argv[4], "g3"))) {
		int k = 0, n = 2, rows = argc == 6 ? atoi(argv[5]) : 0;

		if (argc >= 4 && sscanf(argv[3], "%d/%d", &k, &n) != 2) {
			n = atoi(argv[3]);
			k = 0;
		}
		if (argc == 6 && (rows < 64 || rows > 4096)) {
			fprintf(stderr, "faxtiff: bad row count '%s'\n", argv[5]);
			return 2;
		}
		if (n < 1 || n > MAX_PAGES || k < 0 || k > n) {
			fprintf(stderr, "faxtiff: bad page count '%s'\n", argv[3]);
			return 2;
		}
		return make(argv[2], k ? k - 1 : 0, k ? k : n, argc >= 5, rows);
	}
	if (argc >= 6 && !strcmp(argv[1], "compare") && !strcmp(argv[2], "--skip"))
		return compare(argv[4], argv + 5, argc - 5, (uint32_t)atoi(argv[3]));
	if (argc >= 4 && !strcmp(argv[1], "compare"))
		return compare(argv[2], argv + 3, argc - 3, 0);
	fprintf(stderr, "usage: faxtiff make OUT.tif [PAGES|K/N [g3 [ROWS]]] | compare [--skip N] A.tif B.tif [B2.tif ...]\n");
	return 2;
}
