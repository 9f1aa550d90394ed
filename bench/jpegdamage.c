/*
 * jpegdamage - damaged JPEGs from good ones, for the differential test of
 * the JPEG decoders (tests/t_jpeg_damage.sh: the GPU's engines against
 * libjpeg-turbo) and the check that stands before the engines.  Each file
 * is one good JPEG (taken in turn) with one kind of damage at positions
 * drawn from a seeded generator, so the same arguments give the same
 * files anywhere:
 *
 *   flip     1-4 bits flipped in the entropy-coded data
 *   trunc    the entropy-coded data cut short, an EOI appended
 *   cut      a run of 1-150 bytes cut out of the entropy-coded data
 *   zero     a run of 1-64 bytes of it zeroed
 *   marker   a marker in the wrong place: a restart marker out of turn,
 *            or EOI, SOI, SOS, DHT, DQT or an APP marker, in the data
 *   huff     a Huffman table's counts or symbols changed
 *   dri      a restart interval that lies: changed, added or zeroed
 *   app      an APP1 (EXIF) segment's bytes or length damaged
 *   quant    a quantisation table's values changed (still a valid file,
 *            with coefficients the encoder never meant)
 *
 *   jpegdamage [-S SEED] [-k KIND] N DIR good.jpg ...
 *
 * writes N files DIR/dNNNNN_KIND_GOOD.jpg (GOOD: the good file's name
 * without its directory and extension), the kinds in turn unless -k names
 * one, and lists them on stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { FLIP, TRUNC, CUT, ZERO, MARKER, HUFF, DRI, APP, QUANT, NKINDS };
static const char *const kind_names[NKINDS] = {"flip", "trunc", "cut", "zero",
    "marker", "huff", "dri", "app", "quant"};

/* A JPEG's bytes, and where its parts lie. */
struct jpeg {
	unsigned char *p;
	size_t n;
	size_t data, end;       /* the first scan's coded data: [data, end) */
	size_t dht, dqt, dri, app1, sof; /* a segment's marker, 0: none */
	char name[64];
};

static unsigned rng;

static unsigned
draw(unsigned n)
{
	rng = rng * 1103515245u + 12345u;
	return n == 0 ? 0 : (rng >> 8) % n;
}

static unsigned
be16(const unsigned char *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* Reads path into j and finds its segments; -1 if it is not a JPEG we can damage. */
static int
jpeg_load(const char *path, struct jpeg *j)
{
	FILE *f = fopen(path, "rb");
	const char *base = strrchr(path, '/');
	size_t i;
	long len;

	memset(j, 0, sizeof(*j));
	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 4 ||
	    fseek(f, 0, SEEK_SET) != 0 || (j->p = malloc((size_t)len + 16)) == NULL ||
	    fread(j->p, 1, (size_t)len, f) != (size_t)len) {
		if (f != NULL)
			fclose(f);
		return -1;
	}
	fclose(f);
	j->n = (size_t)len;
	snprintf(j->name, sizeof(j->name), "%s", base != NULL ? base + 1 : path);
	if (strchr(j->name, '.') != NULL)
		*strchr(j->name, '.') = '\0';
	for (i = 2; i + 4 <= j->n && j->p[i] == 0xff;) {
		unsigned m = j->p[i + 1], l = be16(j->p + i + 2);
		if (m == 0xc4 && j->dht == 0)
			j->dht = i;
		else if (m == 0xdb && j->dqt == 0)
			j->dqt = i;
		else if (m == 0xdd)
			j->dri = i;
		else if (m == 0xe1 && j->app1 == 0)
			j->app1 = i;
		else if (m >= 0xc0 && m <= 0xc2)
			j->sof = i;
		if (m == 0xda) {
			j->data = i + 2 + l;
			break;
		}
		i += 2 + l;
	}
	j->end = j->n >= 2 && j->p[j->n - 2] == 0xff && j->p[j->n - 1] == 0xd9 ?
	    j->n - 2 : j->n;
	return j->data > 0 && j->end > j->data + 16 ? 0 : -1;
}

/* A copy of g to damage, with room for 64 bytes more. */
static unsigned char *
copy_of(const struct jpeg *g, size_t *n)
{
	unsigned char *p = malloc(g->n + 64);

	if (p != NULL)
		memcpy(p, g->p, g->n);
	*n = g->n;
	return p;
}

/* Inserts the k bytes b at offset at of p (n bytes, room for k more: 64 at most). */
static void
insert(unsigned char *p, size_t *n, size_t at, const unsigned char *b, size_t k)
{
	memmove(p + at + k, p + at, *n - at);
	memcpy(p + at, b, k);
	*n += k;
}

/* An offset in the coded data of g. */
static size_t
in_data(const struct jpeg *g)
{
	return g->data + draw((unsigned)(g->end - g->data));
}

static void
damage_marker(const struct jpeg *g, unsigned char *p, size_t *n)
{
	static const unsigned char kinds[] = {0xd0, 0xd3, 0xd7, 0xd9, 0xd8, 0xda,
	    0xc4, 0xdb, 0xe1, 0xfe};
	unsigned char m = kinds[draw(sizeof(kinds))];
	unsigned char seg[8] = {0xff, m, 0x00, 0x04, 0x00, 0x00};
	size_t at = in_data(g);

	/* A restart marker (or EOI/SOI) alone; a segment with a length. */
	insert(p, n, at, seg, (m >= 0xd0 && m <= 0xd9) ? 2 : 6);
}

static void
damage_huff(const struct jpeg *g, unsigned char *p)
{
	size_t l = be16(p + g->dht + 2), at;

	/* Past marker, length and the class byte: counts, then symbols. */
	at = g->dht + 5 + draw((unsigned)(l > 3 ? l - 3 : 1));
	if (draw(2) == 0)
		p[at] ^= (unsigned char)(1u << draw(8));
	else
		p[at] = (unsigned char)draw(256);
}

static void
damage_dri(const struct jpeg *g, unsigned char *p, size_t *n)
{
	unsigned char seg[6] = {0xff, 0xdd, 0x00, 0x04, 0x00, 0x00};
	unsigned v = 1 + draw(64);

	if (g->dri != 0 && draw(3) != 0) {
		v = draw(3) == 0 ? 0 : be16(p + g->dri + 4) + 1 + draw(5);
		p[g->dri + 4] = (unsigned char)(v >> 8);
		p[g->dri + 5] = (unsigned char)v;
		return;
	}
	seg[4] = (unsigned char)(v >> 8);
	seg[5] = (unsigned char)v;
	insert(p, n, g->sof != 0 ? g->sof : 2, seg, sizeof(seg));
}

static void
damage_app(const struct jpeg *g, unsigned char *p, size_t *n)
{
	static const unsigned char exif[] = {0xff, 0xe1, 0x00, 0x22, 'E', 'x', 'i',
	    'f', 0, 0, 'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0,
	    1, 0, 6, 0, 0, 0, 0, 0, 0};
	size_t at;

	if (g->app1 == 0) {
		insert(p, n, 2, exif, sizeof(exif));
		at = 2;
	} else {
		at = g->app1;
	}
	switch (draw(3)) {
	case 0:         /* a byte of its payload */
		p[at + 4 + draw(be16(p + at + 2) - 2)] = (unsigned char)draw(256);
		break;
	case 1:         /* its length, a little off */
		p[at + 3] = (unsigned char)(p[at + 3] + 1 + draw(4));
		break;
	default:        /* its orientation value, out of range */
		if (be16(p + at + 2) >= 0x22)
			p[at + 29] = (unsigned char)draw(256);
	}
}

static void
damage_quant(const struct jpeg *g, unsigned char *p)
{
	size_t l = be16(p + g->dqt + 2);
	int k = 1 + (int)draw(8);

	while (k-- > 0) {
		size_t at = g->dqt + 5 + draw((unsigned)(l > 3 ? l - 3 : 1));
		p[at] = draw(2) == 0 ? (unsigned char)(1 + draw(255)) : 0xff;
	}
}

/* One damaged copy of g of the given kind, into *n bytes. */
static unsigned char *
damage(const struct jpeg *g, int kind, size_t *n)
{
	unsigned char *p = copy_of(g, n);
	size_t at, k;

	if (p == NULL)
		return NULL;
	switch (kind) {
	case FLIP:
		for (k = 1 + draw(4); k > 0; k--)
			p[in_data(g)] ^= (unsigned char)(1u << draw(8));
		break;
	case TRUNC:
		at = in_data(g);
		p[at] = 0xff;
		p[at + 1] = 0xd9;
		*n = at + 2;
		break;
	case CUT:
		at = in_data(g);
		k = 1 + draw(150);
		if (at + k > g->end)
			k = g->end - at;
		memmove(p + at, p + at + k, *n - at - k);
		*n -= k;
		break;
	case ZERO:
		at = in_data(g);
		k = 1 + draw(64);
		memset(p + at, 0, at + k > g->end ? g->end - at : k);
		break;
	case MARKER:
		damage_marker(g, p, n);
		break;
	case HUFF:
		damage_huff(g, p);
		break;
	case DRI:
		damage_dri(g, p, n);
		break;
	case APP:
		damage_app(g, p, n);
		break;
	default:
		damage_quant(g, p);
	}
	return p;
}

static int
usage(void)
{
	fprintf(stderr, "usage: jpegdamage [-S SEED] [-k KIND] N DIR good.jpg ...\n");
	return 2;
}

int
main(int argc, char **argv)
{
	struct jpeg *good;
	int c, count, ngood, only = -1;

	rng = 1;
	while ((c = getopt(argc, argv, "S:k:")) != -1) {
		if (c == 'S')
			rng = (unsigned)strtoul(optarg, NULL, 10);
		else if (c == 'k') {
			for (only = 0; only < NKINDS && strcmp(optarg, kind_names[only]) != 0;)
				only++;
			if (only == NKINDS)
				return usage();
		} else
			return usage();
	}
	argc -= optind;
	argv += optind;
	if (argc < 3 || (count = atoi(argv[0])) < 1)
		return usage();
	ngood = argc - 2;
	if ((good = calloc((size_t)ngood, sizeof(*good))) == NULL)
		return 1;
	for (int i = 0; i < ngood; i++)
		if (jpeg_load(argv[2 + i], &good[i]) < 0 || good[i].dht == 0 ||
		    good[i].dqt == 0) {
			fprintf(stderr, "jpegdamage: %s: not a baseline JPEG with "
			    "its tables\n", argv[2 + i]);
			return 1;
		}
	for (int i = 0; i < count; i++) {
		const struct jpeg *g = &good[i % ngood];
		int kind = only >= 0 ? only : (i / ngood) % NKINDS;
		char path[4096];
		size_t n;
		unsigned char *p = damage(g, kind, &n);
		FILE *f;

		snprintf(path, sizeof(path), "%s/d%05d_%s_%s.jpg", argv[1], i,
		    kind_names[kind], g->name);
		if (p == NULL || (f = fopen(path, "wb")) == NULL ||
		    fwrite(p, 1, n, f) != n || fclose(f) != 0) {
			fprintf(stderr, "jpegdamage: cannot write %s\n", path);
			return 1;
		}
		free(p);
		printf("%s\n", path);
	}
	return 0;
}
