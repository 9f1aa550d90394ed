/*
 * opts_test - the values of --device and --shard (lib/tool/opts.h) and the
 * shards of a batch (batch_shard, lib/io/batch.h): what is accepted, what
 * is refused and with which words, and that the shards of a list are
 * disjoint and cover it whatever order the list is given in.  Needs no
 * GPU.  Prints "pass NAME" or "fail NAME: why".
 */
#include <string.h>

#include "batch.h"
#include "opts.h"
#include "unit.h"

/*
 * Parses arg with parse into fresh options: 1 when it was taken (with
 * says NULL) or refused with a message holding says; else 0, with why.
 */
static int
parse_case(int (*parse)(const char *, struct gf_opts *, struct gf_err *),
    const char *arg, const char *says, struct gf_opts *o, char *why,
    size_t whylen)
{
	struct gf_err e = {0};
	int r;

	gf_opts_init(o);
	r = parse(arg, o, &e);
	snprintf(why, whylen, "returned %d, message '%s'", r, e.msg);
	if (says == NULL)
		return r == 0;
	return r < 0 && strstr(e.msg, says) != NULL;
}

/* --device: values taken (says NULL) and their GPUs; values refused, and a word of why. */
static void
test_devices(void)
{
	static const struct {
		const char *arg, *says;
		int all, n, list[4];
	} cases[] = {
		{"all", NULL, 1, 0, {0}},
		{"0", NULL, 0, 1, {0}},
		{"1023", NULL, 0, 1, {1023}},
		{"0,2,3", NULL, 0, 3, {0, 2, 3}},
		{"3,1", NULL, 0, 2, {3, 1}},
		{"007,1", NULL, 0, 2, {7, 1}},
		{"", "not a GPU number", 0, 0, {0}},
		{"x", "not a GPU number", 0, 0, {0}},
		{"All", "not a GPU number", 0, 0, {0}},
		{"all,1", "not a GPU number", 0, 0, {0}},
		{"0,,2", "not a GPU number", 0, 0, {0}},
		{"0,2,", "not a GPU number", 0, 0, {0}},
		{",1", "not a GPU number", 0, 0, {0}},
		{"-1", "not a GPU number", 0, 0, {0}},
		{"+1", "not a GPU number", 0, 0, {0}},
		{" 1", "not a GPU number", 0, 0, {0}},
		{"1 ", "not a GPU number", 0, 0, {0}},
		{"1.5", "not a GPU number", 0, 0, {0}},
		{"1024", "GPU 1024 is out of range", 0, 0, {0}},
		{"0,99999999999999999999", "out of range", 0, 0, {0}},
		{"0,2,0", "names GPU 0 twice", 0, 0, {0}},
		{"3,3", "names GPU 3 twice", 0, 0, {0}},
	};
	char many[256] = "0", why[600], name[64];
	struct gf_opts o;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ok = parse_case(gf_parse_devices, cases[i].arg, cases[i].says,
		    &o, why, sizeof(why)) && o.all_devices == cases[i].all &&
		    o.ndevices == cases[i].n;
		for (int k = 0; ok && k < cases[i].n; k++)
			ok = o.devices[k] == cases[i].list[k];
		snprintf(name, sizeof(name), "device/'%s'", cases[i].arg);
		result(name, ok, "%s; all %d, %d GPUs", why, o.all_devices,
		    o.ndevices);
	}
	for (int k = 1; k <= GF_MAX_DEVICES; k++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), ",%d", k);
	result("device/too-many", parse_case(gf_parse_devices, many, "more than",
	    &o, why, sizeof(why)), "%s", why);
}

/* --shard: values taken with their K and N, values refused with their words. */
static void
test_shard(void)
{
	static const struct {
		const char *arg, *says;
		int k, n;
	} cases[] = {
		{"0/1", NULL, 0, 1},
		{"0/4", NULL, 0, 4},
		{"3/4", NULL, 3, 4},
		{"999999/1000000", NULL, 999999, 1000000},
		{"4/4", "must be 0 to 3", 0, 0},
		{"0/0", "N must be 1 to", 0, 0},
		{"0/1000001", "N must be 1 to", 0, 0},
		/* K past 1000000 is K's fault, not N's (issue 45). */
		{"2000000/3", "K counts from 0, so for 3 shards it must be 0 to 2", 0, 0},
		{"1000000/1000000", "for 1000000 shards it must be 0 to 999999", 0, 0},
		{"2000000/1000001", "N must be 1 to 1000000", 0, 0},
		{"1", "not of the form K/N", 0, 0},
		{"1/", "not of the form K/N", 0, 0},
		{"/2", "not of the form K/N", 0, 0},
		{"-1/3", "not of the form K/N", 0, 0},
		{"1/2/3", "not of the form K/N", 0, 0},
		{"a/b", "not of the form K/N", 0, 0},
		{"1 /2", "not of the form K/N", 0, 0},
		{"", "not of the form K/N", 0, 0},
	};
	char why[600], name[64];
	struct gf_opts o;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ok = parse_case(gf_parse_shard, cases[i].arg, cases[i].says, &o,
		    why, sizeof(why)) && o.shard_k == cases[i].k &&
		    o.shard_n == cases[i].n;
		snprintf(name, sizeof(name), "shard/'%s'", cases[i].arg);
		result(name, ok, "%s; %d/%d", why, o.shard_k, o.shard_n);
	}
}

/*
 * batch_shard over a list given in two orders: each shard keeps the
 * order given, the shards are disjoint, cover the list, and pick the
 * same names whatever the order; the first by byte order is in shard 0.
 */
static void
test_batch_shard(void)
{
	char *a[] = {"b.png", "a.png", "B.png", "./a.png", "c/d.pgm", "ab.jpg",
	    "a.png2"};
	char *b[] = {"a.png2", "ab.jpg", "c/d.pgm", "./a.png", "B.png", "a.png",
	    "b.png"};
	const int n = 7;
	struct gf_err e = {0};

	for (int of = 1; of <= 9; of++) {
		int seen[7] = {0}, ok = 1, total = 0, last;
		char name[64];

		for (int k = 0; k < of && ok; k++) {
			char *outa[7], *outb[7];
			int ma = batch_shard(a, n, k, of, outa, &e);
			int mb = batch_shard(b, n, k, of, outb, &e);
			ok = ma >= 0 && ma == mb;
			last = -1;
			for (int i = 0; ok && i < ma; i++) {
				int j = 0, pos = -1;
				while (j < n && a[j] != outa[i])
					j++;
				ok = j < n && !seen[j]++ && j > last;  /* a's order */
				last = j;
				/* outb holds the same names: in b's order */
				for (int t = 0; ok && t < mb; t++)
					if (strcmp(outb[t], a[j]) == 0)
						pos = t;
				ok = ok && pos >= 0;
			}
			total += ok ? ma : 0;
		}
		snprintf(name, sizeof(name), "batch_shard/of-%d", of);
		result(name, ok && total == n, "shards overlap, differ between "
		    "orders or miss names (%d of %d)", total, n);
	}
	/* Byte order: "./a.png" < "B.png" < "a.png" < ...: shard 0 of 7 is "./a.png". */
	char *out[7];
	int m = batch_shard(a, n, 0, n, out, &e);
	result("batch_shard/byte-order", m == 1 && strcmp(out[0], "./a.png") == 0,
	    "shard 0/7 is %d names, the first '%s'", m, m > 0 ? out[0] : "");
	/* In place, the order given is kept. */
	char *c[] = {"z", "y", "x", "w"};
	m = batch_shard(c, 4, 1, 2, c, &e);
	result("batch_shard/in-place", m == 2 && strcmp(c[0], "z") == 0 &&
	    strcmp(c[1], "x") == 0, "got %d: %s %s", m, c[0], c[1]);
}

int
main(void)
{
	test_devices();
	test_shard();
	test_batch_shard();
	return nfail ? 1 : 0;
}
