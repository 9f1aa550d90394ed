/*
 * opts_test - the values of --device and --shard (lib/opts.h) and the
 * shards of a batch (batch_shard, lib/batch.h): what is accepted, what
 * is refused and with which words, and that the shards of a list are
 * disjoint and cover it whatever order the list is given in.  Needs no
 * GPU.  Prints "pass NAME" or "fail NAME: why".
 */
#include <string.h>

#include "batch.h"
#include "opts.h"
#include "unit.h"

/* --device values that parse, and the GPU list each gives. */
static void
test_devices_good(void)
{
	static const struct {
		const char *arg;
		int all, n, list[4];
	} cases[] = {
		{"all", 1, 0, {0}},
		{"0", 0, 1, {0}},
		{"7", 0, 1, {7}},
		{"1023", 0, 1, {1023}},
		{"0,2,3", 0, 3, {0, 2, 3}},
		{"3,1", 0, 2, {3, 1}},
		{"007,1", 0, 2, {7, 1}},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gf_opts o;
		struct gf_err e = {{0}};
		char name[64];
		int r, ok;

		gf_opts_init(&o);
		r = gf_parse_devices(cases[i].arg, &o, &e);
		ok = r == 0 && o.all_devices == cases[i].all &&
		    o.ndevices == cases[i].n;
		for (int k = 0; ok && k < cases[i].n; k++)
			ok = o.devices[k] == cases[i].list[k];
		snprintf(name, sizeof(name), "device_good/%s", cases[i].arg);
		result(name, ok, "returned %d (%s), all %d, %d devices", r, e.msg,
		    o.all_devices, o.ndevices);
	}
}

/* --device values that are refused, and a word the message must hold. */
static void
test_devices_bad(void)
{
	static const struct {
		const char *arg, *says;
	} cases[] = {
		{"", "not a GPU number"},
		{"x", "not a GPU number"},
		{"All", "not a GPU number"},
		{"all,1", "not a GPU number"},
		{"0,,2", "not a GPU number"},
		{"0,2,", "not a GPU number"},
		{",1", "not a GPU number"},
		{"-1", "not a GPU number"},
		{"+1", "not a GPU number"},
		{" 1", "not a GPU number"},
		{"1 ", "not a GPU number"},
		{"1.5", "not a GPU number"},
		{"1024", "GPU 1024 is out of range"},
		{"0,99999999999999999999", "out of range"},
		{"0,2,0", "names GPU 0 twice"},
		{"3,3", "names GPU 3 twice"},
	};
	char many[256] = "0";

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gf_opts o;
		struct gf_err e = {{0}};
		char name[64];
		int r;

		gf_opts_init(&o);
		r = gf_parse_devices(cases[i].arg, &o, &e);
		snprintf(name, sizeof(name), "device_bad/'%s'", cases[i].arg);
		result(name, r < 0 && strstr(e.msg, cases[i].says) != NULL &&
		    strstr(e.msg, "--device") != NULL, "returned %d, message '%s'",
		    r, e.msg);
	}
	for (int k = 1; k <= GF_MAX_DEVICES; k++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), ",%d", k);
	struct gf_opts o;
	struct gf_err e = {{0}};
	gf_opts_init(&o);
	int r = gf_parse_devices(many, &o, &e);
	result("device_bad/too-many", r < 0 && strstr(e.msg, "more than") != NULL,
	    "returned %d, message '%s'", r, e.msg);
}

/* --shard: good values and their K and N; bad ones and their words. */
static void
test_shard(void)
{
	static const struct {
		const char *arg;
		int k, n;               /* n 0: refused, with says */
		const char *says;
	} cases[] = {
		{"0/1", 0, 1, NULL},
		{"0/4", 0, 4, NULL},
		{"3/4", 3, 4, NULL},
		{"999999/1000000", 999999, 1000000, NULL},
		{"4/4", 0, 0, "must be 0 to 3"},
		{"0/0", 0, 0, "N must be 1 to"},
		{"0/1000001", 0, 0, "N must be 1 to"},
		{"1", 0, 0, "not of the form K/N"},
		{"1/", 0, 0, "not of the form K/N"},
		{"/2", 0, 0, "not of the form K/N"},
		{"-1/3", 0, 0, "not of the form K/N"},
		{"1/2/3", 0, 0, "not of the form K/N"},
		{"a/b", 0, 0, "not of the form K/N"},
		{"1 /2", 0, 0, "not of the form K/N"},
		{"", 0, 0, "not of the form K/N"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gf_opts o;
		struct gf_err e = {{0}};
		char name[64];
		int r, ok;

		gf_opts_init(&o);
		r = gf_parse_shard(cases[i].arg, &o, &e);
		if (cases[i].n > 0)
			ok = r == 0 && o.shard_k == cases[i].k &&
			    o.shard_n == cases[i].n;
		else
			ok = r < 0 && strstr(e.msg, cases[i].says) != NULL &&
			    o.shard_n == 0;
		snprintf(name, sizeof(name), "shard/'%s'", cases[i].arg);
		result(name, ok, "returned %d, %d/%d, message '%s'", r, o.shard_k,
		    o.shard_n, e.msg);
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
	struct gf_err e = {{0}};

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
	test_devices_good();
	test_devices_bad();
	test_shard();
	test_batch_shard();
	return nfail ? 1 : 0;
}
