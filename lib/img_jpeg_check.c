/*
 * img_jpeg_check.c - libjpeg-turbo's verdict on a JPEG without its
 * pixels: the entropy-coded data decoded MCU by MCU through the
 * library's own Huffman decoder (cinfo->entropy->decode_mcu, as its
 * one-pass coefficient controller calls it), with no inverse DCT, no
 * upsampling and no colour conversion.  The calls, their order and the
 * source manager's buffers are those of a full decode, so every warning
 * and error a full decode gives (premature end of data, a lost restart
 * marker, a bad Huffman code) comes at the same point, in the same
 * words; the caller then reads to the EOI (jpeg_finish_decompress),
 * which gives the extraneous-bytes warnings.
 *
 * Each luma block is also weighed for the GPU's JPEG engines: they equal
 * libjpeg-turbo's integer IDCT for every block a photograph can hold,
 * but a damaged stream can code coefficients whose IDCT leaves the range
 * where libjpeg's range limit clamps (it wraps beyond, the engines
 * saturate).  A block passes when a bound on its IDCT, or the IDCT
 * itself computed here for the few blocks the bound does not settle,
 * stays well inside that range.
 *
 * Apart from img_jpeg.c because it needs libjpeg's internal interfaces
 * (jpegint.h), which nothing else here should see.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JPEG_INTERNALS
#include <jpeglib.h>

#include "img_int.h"

/*
 * The most a centred output sample may reach, in either direction, for
 * the engines to give libjpeg's byte: libjpeg's range limit clamps
 * centred values in [-512, 511] and wraps beyond them; the margin covers
 * the difference between this file's float IDCT and the integer one.
 */
#define CHECK_SAMPLE_MAX 480
/* The most a dequantised coefficient may be (12 bits, as baseline codes them). */
#define CHECK_COEF_MAX 2047

/*
 * Whether the dequantised block f (natural order) gives centred samples
 * within CHECK_SAMPLE_MAX: the separable orthonormal IDCT, in doubles.
 */
static int
check_idct_in_range(const int *f)
{
	static double basis[8][8];      /* basis[x][u] = C(u)/2 cos((2x+1)u pi/16) */
	static int ready;
	double t[8][8];

	if (!ready) {   /* the same values on every thread: a benign first race */
		for (int x = 0; x < 8; x++)
			for (int u = 0; u < 8; u++)
				basis[x][u] = (u == 0 ? sqrt(0.5) : 1.0) / 2 *
				    cos((2 * x + 1) * u * M_PI / 16);
		ready = 1;
	}
	for (int v = 0; v < 8; v++)             /* rows of coefficients, then columns */
		for (int x = 0; x < 8; x++) {
			double s = 0;
			for (int u = 0; u < 8; u++)
				s += basis[x][u] * f[v * 8 + u];
			t[v][x] = s;
		}
	for (int y = 0; y < 8; y++)
		for (int x = 0; x < 8; x++) {
			double s = 0;
			for (int v = 0; v < 8; v++)
				s += basis[y][v] * t[v][x];
			if (fabs(s) > CHECK_SAMPLE_MAX)
				return 0;
		}
	return 1;
}

/*
 * A component's quantisation table as the check uses it: each value as a
 * 16-bit signed number, and the largest coefficient that stays within
 * CHECK_COEF_MAX once dequantised.  usable 0: a value of 0 or above
 * 32767 (a 16-bit table), which the check does not weigh: every block
 * then counts as outside.
 */
struct check_quant {
	short q[DCTSIZE2];
	unsigned short most[DCTSIZE2];
	int usable;
};

static void
check_quant_init(struct check_quant *cq, const UINT16 *q)
{
	cq->usable = 1;
	for (int k = 0; k < DCTSIZE2; k++) {
		cq->usable &= q[k] >= 1 && q[k] <= 32767;
		cq->q[k] = (short)(q[k] <= 32767 ? q[k] : 1);
		cq->most[k] = (unsigned short)(CHECK_COEF_MAX / (q[k] >= 1 ? q[k] : 1));
	}
}

/*
 * Whether the engines decode block b, quantised by cq, as libjpeg does:
 * every dequantised coefficient within CHECK_COEF_MAX, and the block's
 * samples within CHECK_SAMPLE_MAX of the centre, by the bound |DC|/8 +
 * sum |AC|/4 (each basis function is at most 1/8 for DC and 1/4 for AC),
 * else by the IDCT itself.  Plain loops over 16-bit numbers, which the
 * compiler vectorises.
 */
static int
check_block(const JCOEF *b, const struct check_quant *cq)
{
	unsigned short a[DCTSIZE2], over = 0;
	int f[DCTSIZE2], sum = 0;

	for (int k = 0; k < DCTSIZE2; k++) {
		a[k] = (unsigned short)(b[k] < 0 ? -b[k] : b[k]);
		over |= a[k] > cq->most[k] ? a[k] - cq->most[k] : 0;
	}
	if (over)
		return 0;
	/* Each term now at most CHECK_COEF_MAX: no overflow. */
	for (int k = 0; k < DCTSIZE2; k++)
		sum += (short)a[k] * cq->q[k];
	sum = 2 * sum - a[0] * cq->q[0];
	if (sum <= 8 * CHECK_SAMPLE_MAX)
		return 1;
	for (int k = 0; k < DCTSIZE2; k++)
		f[k] = b[k] * cq->q[k];
	return check_idct_in_range(f);
}

/*
 * Decodes the entropy-coded data of ci's one scan, after
 * jpeg_start_decompress, and finishes the input pass, so that
 * jpeg_finish_decompress then reads on to the EOI.  libjpeg's warnings
 * and errors go to ci's error manager as in a full decode.  Returns the
 * number of luma blocks that the engines may not decode as libjpeg does,
 * or -1 when the decoder stopped short (a suspending source, which the
 * readers' never is).
 */
long
img_jpeg_check_scan(j_decompress_ptr ci)
{
	JBLOCK blocks[D_MAX_BLOCKS_IN_MCU];
	JBLOCKROW mcu[D_MAX_BLOCKS_IN_MCU];
	unsigned long long n = (unsigned long long)ci->MCUs_per_row * ci->MCU_rows_in_scan;
	long outside = 0;
	int luma[D_MAX_BLOCKS_IN_MCU];
	struct check_quant cq = {.usable = 0};

	for (int k = 0; k < ci->blocks_in_MCU; k++) {
		const jpeg_component_info *c = ci->cur_comp_info[ci->MCU_membership[k]];
		mcu[k] = &blocks[k];
		luma[k] = c->component_index == 0;
		if (luma[k])
			check_quant_init(&cq, c->quant_table->quantval);
	}
	for (unsigned long long i = 0; i < n; i++) {
		memset(blocks, 0, (size_t)ci->blocks_in_MCU * sizeof(JBLOCK));
		if (!ci->entropy->decode_mcu(ci, mcu))
			return -1;
		for (int k = 0; k < ci->blocks_in_MCU; k++)
			if (luma[k] && (!cq.usable || !check_block(blocks[k], &cq)))
				outside++;
	}
	ci->inputctl->finish_input_pass(ci);
	ci->output_scanline = ci->output_height;
	return outside;
}
