/*
 * img_jpeg_check.c - whether the GPU's JPEG engines give libjpeg-turbo's
 * bytes for a JPEG, decided on the CPU without decoding its pixels: a
 * walk over the entropy-coded data of its one scan that decodes every
 * Huffman code, as libjpeg's decoder would, and says "clean" only when
 * libjpeg-turbo would decode the scan without an error or a warning and
 * the stream holds nothing that decoders may read otherwise:
 *
 *   - every code valid, every needed bit before the marker that ends its
 *     segment (libjpeg: "premature end of data segment"), no whole byte
 *     left over before it ("extraneous bytes before marker");
 *   - each restart marker the next in turn, where the header says; EOI
 *     right after the last segment;
 *   - DC differences of at most 11 bits and AC values of at most 10 (the
 *     baseline's), no AC run past the 63rd coefficient (libjpeg puts the
 *     value in the last one, the engines do not), no zero run other than
 *     end-of-block and the 16-zero run, DC predictors within 16 bits;
 *   - each luma block's dequantised coefficients within 12 bits, and its
 *     samples within the range where libjpeg's range limit clamps (it
 *     wraps beyond, the engines saturate): by a bound on the IDCT, or the
 *     IDCT itself for the few blocks the bound does not settle.
 *
 * Anything else is "unsure", and the file is decoded on the CPU, whose
 * verdict and bytes the user then gets.  The walk is stricter than
 * libjpeg-turbo, never laxer: libjpeg's fast Huffman path decodes a bad
 * code as a zero without a word, and the engines decode it otherwise.
 * tests/fuzz/fuzz_jpegcheck.c holds it to libjpeg's full decode.
 *
 * Apart from img_jpeg.c because it reads libjpeg's internal interfaces
 * (jpegint.h: the scan's MCU layout), which nothing else here should see.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JPEG_INTERNALS
#include <jpeglib.h>

#include "img_int.h"
#include "jpeg_walk.h"

/*
 * The most a centred output sample may reach, in either direction, for
 * the engines to give libjpeg's byte: libjpeg's range limit clamps
 * centred values in [-512, 511] and wraps beyond them; the margin covers
 * the difference between this file's float IDCT and the integer one.
 * The walk on the GPU (jpeg_walk.h) holds to the same.
 */
#define CHECK_SAMPLE_MAX JW_SAMPLE_MAX
/* The most a dequantised coefficient may be (12 bits, as baseline codes them). */
#define CHECK_COEF_MAX 2047

/* The orthonormal IDCT's basis: basis[x][u] = C(u)/2 cos((2x+1)u pi/16). */
static const double check_basis[8][8] = {
	{0.35355339059327379, 0.49039264020161522, 0.46193976625564337, 0.41573480615127262,
	    0.35355339059327379, 0.27778511650980114, 0.19134171618254492, 0.097545161008064166},
	{0.35355339059327379, 0.41573480615127262, 0.19134171618254492, -0.097545161008064096,
	    -0.35355339059327373, -0.49039264020161522, -0.46193976625564342, -0.27778511650980109},
	{0.35355339059327379, 0.27778511650980114, -0.19134171618254486, -0.49039264020161522,
	    -0.35355339059327384, 0.097545161008064152, 0.46193976625564326, 0.41573480615127273},
	{0.35355339059327379, 0.097545161008064166, -0.46193976625564337, -0.27778511650980109,
	    0.35355339059327368, 0.41573480615127273, -0.19134171618254495, -0.49039264020161533},
	{0.35355339059327379, -0.097545161008064096, -0.46193976625564342, 0.27778511650980092,
	    0.35355339059327384, -0.41573480615127256, -0.19134171618254528, 0.49039264020161522},
	{0.35355339059327379, -0.27778511650980098, -0.19134171618254517, 0.49039264020161522,
	    -0.35355339059327334, -0.097545161008064013, 0.46193976625564337, -0.41573480615127251},
	{0.35355339059327379, -0.41573480615127267, 0.191341716182545, 0.097545161008064388,
	    -0.35355339059327356, 0.49039264020161533, -0.4619397662556432, 0.27778511650980076},
	{0.35355339059327379, -0.49039264020161522, 0.46193976625564326, -0.41573480615127256,
	    0.35355339059327329, -0.27778511650980076, 0.19134171618254478, -0.097545161008064291},
};

/*
 * Whether block b, dequantised by q (natural order), gives centred
 * samples within CHECK_SAMPLE_MAX: the separable orthonormal IDCT, in
 * doubles, for the few blocks whose bound does not settle it.
 */
static int
check_idct_in_range(const JCOEF *b, const short *q)
{
	double t[8][8];

	for (int v = 0; v < 8; v++)             /* rows of coefficients, then columns */
		for (int x = 0; x < 8; x++) {
			double s = 0;
			for (int u = 0; u < 8; u++)
				s += check_basis[x][u] * b[v * 8 + u] * q[v * 8 + u];
			t[v][x] = s;
		}
	for (int y = 0; y < 8; y++)
		for (int x = 0; x < 8; x++) {
			double s = 0;
			for (int v = 0; v < 8; v++)
				s += check_basis[y][v] * t[v][x];
			if (fabs(s) > CHECK_SAMPLE_MAX)
				return 0;
		}
	return 1;
}

/*
 * A component's quantisation table as the check uses it: each value as a
 * 16-bit signed number (q, natural order, for the IDCT; qz, zigzag
 * order, as the walk meets the coefficients), and the largest
 * coefficient that stays within CHECK_COEF_MAX once dequantised (zigzag
 * order).  usable 0: a value of 0 or above 32767 (a 16-bit table), which
 * the check does not weigh: every block then counts as outside.
 */
struct check_quant {
	short q[DCTSIZE2];
	short qz[DCTSIZE2];
	unsigned short mostz[DCTSIZE2];
	int usable;
};

static void
check_quant_init(struct check_quant *cq, const UINT16 *q)
{
	cq->usable = 1;
	for (int k = 0; k < DCTSIZE2; k++) {
		cq->usable &= q[k] >= 1 && q[k] <= 32767;
		cq->q[k] = (short)(q[k] <= 32767 ? q[k] : 1);
	}
	for (int k = 0; k < DCTSIZE2; k++) {
		unsigned v = q[jpeg_natural_order[k]];
		cq->qz[k] = cq->q[jpeg_natural_order[k]];
		cq->mostz[k] = (unsigned short)(CHECK_COEF_MAX / (v >= 1 ? v : 1));
	}
}

/*
 * A luma block's AC coefficients as the walk met them: n of them, each
 * its zigzag index and value (the block is built only for the IDCT).
 */
struct walk_coefs {
	int n;
	unsigned char k[DCTSIZE2];
	JCOEF v[DCTSIZE2];
};

/* check_idct_in_range of the block of DC dc and AC coefficients c. */
static int
check_coefs_in_range(int dc, const struct walk_coefs *c, const short *q)
{
	JCOEF blk[DCTSIZE2] = {0};

	blk[0] = (JCOEF)dc;
	for (int i = 0; i < c->n; i++)
		blk[jpeg_natural_order[c->k[i]]] = c->v[i];
	return check_idct_in_range(blk, q);
}

/*
 * The bits of one segment of coded data, read as libjpeg reads them: a
 * 0xff byte followed by 0x00 is a 0xff of data, fill bytes of 0xff come
 * before a marker, and any other byte after 0xff is the marker that ends
 * the segment.  Past the marker the buffer holds zeros (pad of them), as
 * libjpeg supplies; a segment whose decode used any of them is cut short.
 */
struct walk_bits {
	const unsigned char *p;
	size_t n, pos;          /* the stream, and the next byte to read */
	unsigned long long buf; /* nbits bits not yet used, the oldest highest */
	int nbits;
	int marker;             /* the segment's end was reached: its marker */
	size_t marker_at;       /* the marker's 0xff (the first fill byte) */
	long long pad;          /* zero bits put in past the marker */
};

/*
 * A Huffman table: codes of up to 9 bits by lookup, longer ones by
 * length.  An AC table also decodes, by one lookup, a coefficient whose
 * code and value bits fit in those 9 (most of a photo's): fast holds
 * value << 16 | run << 8 | the bits both take, 0 for any other.
 */
struct walk_huff {
	unsigned short look[512];       /* (length << 8 | symbol), 0: longer */
	int fast[512];
	int maxcode[18];                /* largest code of each length, -1: none */
	int valoff[18];                 /* symbol index of a code of each length */
	unsigned char val[256];
};

enum { WALK_CLEAN, WALK_UNSURE };

/* Whether any byte of w is 0xff. */
static inline int
walk_has_ff(unsigned long long w)
{
	unsigned long long v = ~w;

	return ((v - 0x0101010101010101ULL) & ~v & 0x8080808080808080ULL) != 0;
}

/* The next byte of the segment into the buffer, or its marker found. */
static void
walk_fill_byte(struct walk_bits *b)
{
	size_t at = b->pos;
	unsigned c;

	if (b->pos >= b->n) {   /* the stream ends with no marker: as if one */
		b->marker = 0x100;
		b->marker_at = b->pos;
		return;
	}
	c = b->p[b->pos++];
	if (c == 0xff) {
		while (b->pos < b->n && b->p[b->pos] == 0xff)
			b->pos++;
		if (b->pos >= b->n || b->p[b->pos] != 0x00) {
			b->marker = b->pos < b->n ? b->p[b->pos] : 0x100;
			b->marker_at = at;
			b->pos = at;
			return;
		}
		b->pos++;
	}
	b->buf |= (unsigned long long)c << (56 - b->nbits);
	b->nbits += 8;
}

/* Tops the buffer up past 56 bits: eight bytes at a time where no 0xff is. */
static inline void
walk_fill(struct walk_bits *b)
{
	while (b->nbits <= 56) {
		unsigned long long w;
		if (b->marker) {
			b->pad += 64 - b->nbits;
			b->nbits = 64;
			return;
		}
		if (b->pos + 8 <= b->n) {
			memcpy(&w, b->p + b->pos, 8);
			w = __builtin_bswap64(w);
			if (!walk_has_ff(w)) {
				int k = (64 - b->nbits) >> 3;
				b->buf |= (w & (~0ULL << (64 - 8 * k))) >> b->nbits;
				b->nbits += 8 * k;
				b->pos += (size_t)k;
				continue;
			}
		}
		walk_fill_byte(b);
	}
}

/* n bits (1-16), from a buffer filled to at least that many. */
static inline int
walk_bits_take(struct walk_bits *b, int n)
{
	int v = (int)(b->buf >> (64 - n));

	b->buf <<= n;
	b->nbits -= n;
	return v;
}

/* Builds h from libjpeg's table t (already checked by libjpeg); -1 if none. */
static int
walk_huff_init(struct walk_huff *h, const JHUFF_TBL *t)
{
	int code = 0, k = 0;

	if (t == NULL)
		return -1;
	memset(h->look, 0, sizeof(h->look));
	memcpy(h->val, t->huffval, sizeof(h->val));
	for (int len = 1; len <= 16; len++) {
		h->valoff[len] = k - code;
		for (int i = 0; i < t->bits[len]; i++, k++, code++)
			if (len <= 9)
				for (int f = 0; f < 1 << (9 - len); f++)
					h->look[(code << (9 - len)) | f] =
					    (unsigned short)(len << 8 | t->huffval[k]);
		h->maxcode[len] = t->bits[len] > 0 ? code - 1 : -1;
		if (k > 256)
			return -1;
		code <<= 1;
	}
	for (int i = 0; i < 512; i++) {
		int len = h->look[i] >> 8, s = h->look[i] & 15, r, v;
		h->fast[i] = 0;
		if (len == 0 || s == 0 || len + s > 9)
			continue;
		r = (i >> (9 - len - s)) & ((1 << s) - 1);
		v = r < 1 << (s - 1) ? r - (1 << s) + 1 : r;     /* walk_value's */
		h->fast[i] = (int)((unsigned)v << 16) | (h->look[i] & 0xf0) << 4 |
		    (len + s);
	}
	return 0;
}

/* A code longer than 9 bits (16 bits in the buffer); -1: a bad code. */
static int
walk_decode_long(struct walk_bits *b, const struct walk_huff *h)
{
	int code = walk_bits_take(b, 9), len = 9;

	while (code > h->maxcode[len]) {
		if (len == 16)
			return -1;
		code = code << 1 | walk_bits_take(b, 1);
		len++;
	}
	return h->val[(code + h->valoff[len]) & 0xff];
}

/* The next symbol (the buffer filled to 32 bits or more), or -1: a bad code. */
static inline int
walk_decode(struct walk_bits *b, const struct walk_huff *h)
{
	unsigned e = h->look[b->buf >> 55];

	if (e == 0)
		return walk_decode_long(b, h);
	b->buf <<= e >> 8;
	b->nbits -= (int)(e >> 8);
	return (int)(e & 0xff);
}

/* A value of s bits (1-15) in JPEG's coding (libjpeg's HUFF_EXTEND, branch-free). */
static inline int
walk_value(struct walk_bits *b, int s)
{
	int r = walk_bits_take(b, s);

	return r + (((r - (1 << (s - 1))) >> 31) & ((int)(~0U << s) + 1));
}

/*
 * One block: its DC difference added to *pred.  With cq (a luma block),
 * its AC coefficients into c (emptied by the caller) and
 * into *inside whether the engines decode it as libjpeg does: every
 * dequantised coefficient within CHECK_COEF_MAX, and the samples within
 * CHECK_SAMPLE_MAX of the centre, by the bound |DC|/8 + sum |AC|/4 (each
 * basis function is at most 1/8 for DC and 1/4 for AC), summed as the
 * values come, else by the IDCT itself.  WALK_CLEAN or WALK_UNSURE.  A code and its value take at most 16 + 11 bits: the
 * buffer is kept above 32.
 */
static int
walk_block(struct walk_bits *b, const struct walk_huff *dc,
    const struct walk_huff *ac, int *pred, const struct check_quant *cq,
    struct walk_coefs *c, int *inside)
{
	long long sum = 0;
	int s, over = 0;

	walk_fill(b);
	s = walk_decode(b, dc);
	if (s < 0 || s > 11)
		return WALK_UNSURE;
	if (s > 0)
		*pred += walk_value(b, s);
	if (*pred > 32767 || *pred < -32767)
		return WALK_UNSURE;
	for (int k = 1; k < DCTSIZE2; k++) {
		int rs, r, f;
		if (b->nbits < 32)
			walk_fill(b);
		if ((f = ac->fast[b->buf >> 55]) != 0) {
			/* A code and its value of 9 bits at most: walk_value's s <= 8. */
			k += (f >> 8) & 15;
			if (k > DCTSIZE2 - 1)
				return WALK_UNSURE;
			b->buf <<= f & 0xff;
			b->nbits -= f & 0xff;
			if (cq != NULL) {
				int v = f >> 16, a = v < 0 ? -v : v;
				c->k[c->n] = (unsigned char)k;
				c->v[c->n++] = (JCOEF)v;
				over |= a > cq->mostz[k];
				sum += (long long)a * cq->qz[k];
			}
			continue;
		}
		rs = walk_decode(b, ac);
		r = rs >> 4;
		s = rs & 15;
		if (rs < 0)
			return WALK_UNSURE;
		if (s == 0) {
			if (r == 0)
				break;                  /* end of block */
			if (r != 15 || k + 15 > DCTSIZE2 - 1)
				return WALK_UNSURE;     /* a run libjpeg reads otherwise */
			k += 15;
			continue;
		}
		k += r;
		if (s > 10 || k > DCTSIZE2 - 1)
			return WALK_UNSURE;
		if (cq != NULL) {
			int v = walk_value(b, s);
			int a = v < 0 ? -v : v;
			c->k[c->n] = (unsigned char)k;
			c->v[c->n++] = (JCOEF)v;
			over |= a > cq->mostz[k];
			sum += (long long)a * cq->qz[k];
		} else {
			b->buf <<= s;
			b->nbits -= s;
		}
	}
	/* Bits used past the segment's marker: libjpeg warns, cut short. */
	if (b->nbits < b->pad)
		return WALK_UNSURE;
	if (cq != NULL) {
		int a = *pred < 0 ? -*pred : *pred;
		over |= a > cq->mostz[0];         /* zigzag 0 is the DC */
		*inside = cq->usable && !over && (2 * sum + (long long)a * cq->q[0] <=
		    8 * CHECK_SAMPLE_MAX || check_coefs_in_range(*pred, c, cq->q));
	}
	return WALK_CLEAN;
}

/*
 * The end of a segment, after its MCUs: fewer than 8 of its bits unused
 * (else libjpeg warns of extraneous bytes), then its marker, which must
 * be m (0xd0-0xd7; EOI, 0xd9, at the stream's end).  Skips the marker
 * and starts the next segment.
 */
static int
walk_segment_end(struct walk_bits *b, int m)
{
	if (b->nbits - b->pad >= 8)
		return WALK_UNSURE;
	if (!b->marker) {
		walk_fill(b);
		if (!b->marker || b->nbits - b->pad >= 8)
			return WALK_UNSURE;
	}
	if (b->marker != m)
		return WALK_UNSURE;
	b->pos = b->marker_at;
	while (b->pos < b->n && b->p[b->pos] == 0xff)
		b->pos++;
	b->pos++;                       /* past the marker's code */
	if (m == 0xd9 && b->pos != b->n)
		return WALK_UNSURE;
	b->buf = 0;
	b->nbits = b->marker = 0;
	b->pad = 0;
	return WALK_CLEAN;
}

long
img_jpeg_check_scan(j_decompress_ptr ci, const unsigned char *p, size_t n)
{
	struct walk_huff *h = malloc(2 * MAX_COMPS_IN_SCAN * sizeof(*h));
	struct walk_bits b = {.p = p, .n = n};
	const struct walk_huff *dc[D_MAX_BLOCKS_IN_MCU], *ac[D_MAX_BLOCKS_IN_MCU];
	int comp[D_MAX_BLOCKS_IN_MCU], pred[MAX_COMPS_IN_SCAN] = {0};
	unsigned long long mcus = (unsigned long long)ci->MCUs_per_row *
	    ci->MCU_rows_in_scan, left = ci->restart_interval;
	struct check_quant cq = {.usable = 0};
	struct walk_coefs coefs;
	long outside = 0;
	int rst = 0, st = WALK_CLEAN;

	/*
	 * Huffman-coded scans only: an arithmetic-coded one (SOF9 and on)
	 * names conditioning tables 0 to 15 where there are four Huffman ones.
	 */
	if (h == NULL || ci->arith_code) {
		free(h);
		return -1;
	}
	for (int i = 0; i < ci->comps_in_scan && st == WALK_CLEAN; i++) {
		const jpeg_component_info *c = ci->cur_comp_info[i];
		if (walk_huff_init(&h[2 * i], ci->dc_huff_tbl_ptrs[c->dc_tbl_no]) < 0 ||
		    walk_huff_init(&h[2 * i + 1], ci->ac_huff_tbl_ptrs[c->ac_tbl_no]) < 0)
			st = WALK_UNSURE;
		if (c->component_index == 0)
			check_quant_init(&cq, c->quant_table->quantval);
	}
	for (int k = 0; k < ci->blocks_in_MCU; k++) {
		comp[k] = ci->MCU_membership[k];
		dc[k] = &h[2 * comp[k]];
		ac[k] = &h[2 * comp[k] + 1];
	}
	for (unsigned long long i = 0; i < mcus && st == WALK_CLEAN; i++) {
		if (ci->restart_interval > 0 && left == 0) {
			st = walk_segment_end(&b, 0xd0 + rst);
			rst = (rst + 1) & 7;
			left = ci->restart_interval;
			memset(pred, 0, sizeof(pred));
		}
		for (int k = 0; k < ci->blocks_in_MCU && st == WALK_CLEAN; k++) {
			int luma = ci->cur_comp_info[comp[k]]->component_index == 0;
			int inside = 1;
			coefs.n = 0;
			st = walk_block(&b, dc[k], ac[k], &pred[comp[k]], luma ? &cq : NULL,
			    &coefs, &inside);
			outside += !inside;
		}
		left--;
	}
	if (st == WALK_CLEAN)
		st = walk_segment_end(&b, 0xd9);
	free(h);
	return st == WALK_CLEAN ? outside : -1;
}

/*
 * The coded data of the scan from p (n bytes) into data, its stuffing
 * taken out (a 0xff byte of data is coded 0xff 0x00; fill bytes of 0xff
 * may come before a marker), as walk_fill_byte reads it: the count, or
 * -1 when the data does not end at the file's last bytes, an EOI (what
 * walk_segment_end asks of a scan without restarts).
 */
static long long
plan_unstuff(const unsigned char *p, size_t n, unsigned char *data, size_t cap)
{
	size_t i = 0, o = 0;

	while (i < n) {
		const unsigned char *ff = memchr(p + i, 0xff, n - i);
		size_t run = ff != NULL ? (size_t)(ff - (p + i)) : n - i;
		if (o + run + 1 > cap)
			return -1;
		memcpy(data + o, p + i, run);
		o += run;
		i += run + 1;
		if (ff == NULL)
			return -1;      /* no marker at all */
		while (i < n && p[i] == 0xff)
			i++;
		if (i < n && p[i] == 0x00) {
			data[o++] = 0xff;
			i++;
			continue;
		}
		return i < n && i + 1 == n && p[i] == 0xd9 ? (long long)o : -1;
	}
	return -1;
}

int
img_jpeg_walk_plan(j_decompress_ptr ci, const unsigned char *p, size_t n,
    struct jw_plan *pl, unsigned char *data, size_t cap, size_t *len)
{
	struct walk_huff *h = calloc(1, sizeof(*h));
	struct check_quant cq = {.usable = 0};
	long long got;
	int rc = 0;

	if (h == NULL || ci->arith_code || ci->restart_interval > 0 ||
	    ci->comps_in_scan > JW_COMPS || ci->blocks_in_MCU > JW_BLOCKS) {
		free(h);
		return -1;
	}
	memset(pl, 0, sizeof(*pl));
	for (int i = 0; i < ci->comps_in_scan && rc == 0; i++) {
		const jpeg_component_info *c = ci->cur_comp_info[i];
		for (int t = 0; t < 2 && rc == 0; t++) {
			struct jw_huff *o = &pl->huff[2 * i + t];
			rc = walk_huff_init(h, t == 0 ? ci->dc_huff_tbl_ptrs[c->dc_tbl_no] :
			    ci->ac_huff_tbl_ptrs[c->ac_tbl_no]);
			memcpy(o->look, h->look, sizeof(o->look));
			for (int k = 0; k < 18; k++) {
				o->maxcode[k] = h->maxcode[k];
				o->valoff[k] = h->valoff[k];
			}
			memcpy(o->val, h->val, sizeof(o->val));
		}
		if (c->component_index == 0)
			check_quant_init(&cq, c->quant_table->quantval);
	}
	free(h);
	if (rc < 0)
		return -1;
	memcpy(pl->basis, check_basis, sizeof(pl->basis));
	memcpy(pl->q, cq.q, sizeof(pl->q));
	memcpy(pl->qz, cq.qz, sizeof(pl->qz));
	memcpy(pl->mostz, cq.mostz, sizeof(pl->mostz));
	for (int k = 0; k < DCTSIZE2; k++)
		pl->natural[k] = (uint8_t)jpeg_natural_order[k];
	pl->usable = cq.usable;
	pl->nblocks = ci->blocks_in_MCU;
	for (int k = 0; k < ci->blocks_in_MCU; k++) {
		pl->comp[k] = (uint8_t)ci->MCU_membership[k];
		pl->luma[k] = ci->cur_comp_info[ci->MCU_membership[k]]->component_index == 0;
	}
	pl->blocks = (uint64_t)ci->MCUs_per_row * ci->MCU_rows_in_scan *
	    (uint64_t)ci->blocks_in_MCU;
	if ((got = plan_unstuff(p, n, data, cap)) < 0)
		return -1;
	pl->bits = (uint64_t)got * 8;
	*len = (size_t)got;
	return 0;
}
