/* t-profile-perfdata.c - the perf.data reader on a file built here: two
 * events told apart by their sample ids (PERF_SAMPLE_IDENTIFIER), the
 * names of the event descriptions, the command line and a build-id of the
 * features, the non-sample records in time order, an unknown record
 * skipped, and the same file read from a misaligned copy and in pipe mode;
 * opened from a file (the walks read it in windows), with its data section
 * spread over several windows. */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tachy/profile-perfdata.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

struct buf {
	unsigned char b[8192];
	size_t n;
};

static void
put(struct buf *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void
u64(struct buf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void
u32(struct buf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void
attr(struct buf *b, uint64_t config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_HARDWARE;
	a.size = sizeof(a);
	a.config = config;
	a.sample_period = 1000;
	a.sample_type = ST;
	a.sample_id_all = 1;
	a.mmap2 = 1;
	put(b, &a, sizeof(a));
}

static void
header(struct buf *b, uint32_t type, uint16_t misc, uint16_t size)
{
	u32(b, type);
	put(b, &misc, 2);
	put(b, &size, 2);
}

static void
trailer(struct buf *b, uint64_t time, uint64_t id)
{
	u32(b, 7); /* pid, tid */
	u32(b, 7);
	u64(b, time);
	u64(b, id);
}

static void
pstring(struct buf *b, const char *s)
{
	char pad[64] = "";

	u32(b, 64);
	strncpy(pad, s, 63);
	put(b, pad, 64);
}

/* The data section's records. */
static void
records(struct buf *b)
{
	header(b, PERF_RECORD_COMM, 0, 8 + 8 + 8 + 24);
	u32(b, 7);
	u32(b, 7);
	put(b, "prog\0\0\0\0", 8);
	trailer(b, 50, 9);
	header(b, PERF_RECORD_MMAP2, 0, 8 + 8 + 24 + 24 + 8 + 16 + 24);
	u32(b, 7);
	u32(b, 7);
	u64(b, 0x400000);
	u64(b, 0x1000);
	u64(b, 0);
	u64(b, 0), u64(b, 0), u64(b, 0), u64(b, 0); /* maj min, ino, ino_gen, prot flags */
	put(b, "/bin/prog\0\0\0\0\0\0\0", 16);
	trailer(b, 20, 7);
	header(b, 30, 0, 16); /* a record type not known: skipped */
	u64(b, 0);
	header(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 32);
	u64(b, 9);
	u64(b, 0x400100);
	u32(b, 7), u32(b, 7);
	u64(b, 100);
	header(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 32);
	u64(b, 7);
	u64(b, 0x400200);
	u32(b, 7), u32(b, 7);
	u64(b, 110);
}

/* The whole file-mode image into B. */
static void
build(struct buf *b)
{
	struct buf data = {{0}, 0}, cmd = {{0}, 0}, desc = {{0}, 0}, bid = {{0}, 0};
	uint64_t attrs_off = 104, entry = sizeof(struct perf_event_attr) + 16;
	uint64_t ids_off = attrs_off + 2 * entry, data_off = ids_off + 16, feat_off, at;
	unsigned char id[24];
	size_t i;

	records(&data);
	u32(&cmd, 3);
	pstring(&cmd, "perf");
	pstring(&cmd, "record");
	pstring(&cmd, "-e");
	u32(&desc, 2);
	u32(&desc, sizeof(struct perf_event_attr));
	attr(&desc, 0);
	u32(&desc, 1);
	pstring(&desc, "cycles:u");
	u64(&desc, 7);
	attr(&desc, 1);
	u32(&desc, 1);
	pstring(&desc, "instructions:u");
	u64(&desc, 9);
	for (i = 0; i < 24; i++)
		id[i] = i < 20 ? (unsigned char)(i + 1) : 0;
	id[20] = 20;
	header(&bid, 67, PERF_RECORD_MISC_USER | (1u << 15), 8 + 4 + 24 + 16);
	u32(&bid, 7);
	put(&bid, id, 24);
	put(&bid, "/bin/prog\0\0\0\0\0\0\0", 16);

	b->n = 0;
	put(b, TY_PERFDATA_MAGIC, 8);
	u64(b, 104);
	u64(b, entry);
	u64(b, attrs_off), u64(b, 2 * entry);
	u64(b, data_off), u64(b, data.n);
	u64(b, 0), u64(b, 0);
	u64(b, (1ull << 2) | (1ull << 11) | (1ull << 12)), u64(b, 0), u64(b, 0), u64(b, 0);
	attr(b, 0);
	u64(b, ids_off), u64(b, 8);
	attr(b, 1);
	u64(b, ids_off + 8), u64(b, 8);
	u64(b, 7);
	u64(b, 9);
	put(b, data.b, data.n);
	feat_off = b->n;
	at = feat_off + 3 * 16;
	u64(b, at), u64(b, bid.n);
	u64(b, at + bid.n), u64(b, cmd.n);
	u64(b, at + bid.n + cmd.n), u64(b, desc.n);
	put(b, bid.b, bid.n);
	put(b, cmd.b, cmd.n);
	put(b, desc.b, desc.n);
}

struct seen {
	int n;
	int type[8], ev[8];
	uint64_t time[8];
};

static void
take(const struct ty_sampler_rec *r, int ev, void *arg)
{
	struct seen *s = arg;

	if (s->n == 8)
		return;
	s->type[s->n] = (int)r->type;
	s->ev[s->n] = ev;
	s->time[s->n++] = r->time;
}

/* The checks of the file built above, read into PD; UNKNOWN: its records
 * of types not known. */
static void
check_pd(struct ty_perfdata *pd_, uint64_t unknown)
{
#define pd (*pd_)
	struct seen s;

	CHECK_INT(pd.nevents, 2);
	if (pd.nevents == 2) {
		CHECK_STR(pd.events[0].name, "cycles:u");
		CHECK_STR(pd.events[1].name, "instructions:u");
	}
	CHECK_INT(ty_perfdata_find_event(&pd, "instructions"), 1);
	CHECK_INT(ty_perfdata_find_event(&pd, "cycles:u"), 0);
	CHECK_INT(ty_perfdata_find_event(&pd, "cycles:k"), -1);
	CHECK_STR(pd.cmdline, "perf record -e");
	CHECK_INT(pd.nbids, 1);
	if (pd.nbids == 1) {
		CHECK_STR(pd.bids[0].hex, "0102030405060708090a0b0c0d0e0f1011121314");
		CHECK_STR(pd.bids[0].path, "/bin/prog");
	}
	/* the mapping (time 20) before the name (time 50) */
	memset(&s, 0, sizeof(s));
	CHECK_INT(ty_perfdata_each(&pd, 0, take, &s), 2);
	CHECK_INT(s.type[0], TY_SAMPLER_REC_MMAP);
	CHECK_INT(s.type[1], TY_SAMPLER_REC_COMM);
	/* the samples, each of the event its id names */
	memset(&s, 0, sizeof(s));
	CHECK_INT(ty_perfdata_each(&pd, 1, take, &s), 2);
	CHECK_INT(s.ev[0], 1);
	CHECK_INT(s.ev[1], 0);
	CHECK_INT(s.time[1], 110);
	CHECK_INT(pd.unknown_records, 0);
	memset(&s, 0, sizeof(s));
	CHECK_INT(ty_perfdata_each(&pd, -1, take, &s), 4);
	CHECK_INT(pd.unknown_records, unknown);
	CHECK_INT(pd.nwarnings, 0);
#undef pd
}

static void
check_file(const unsigned char *image, size_t len, uint64_t unknown)
{
	struct ty_perfdata pd;
	struct ty_error e;

	memset(&pd, 0, sizeof(pd));
	CHECK_INT(ty_perfdata_parse(image, len, "t", &pd, &e), 0);
	check_pd(&pd, unknown);
	ty_perfdata_release(&pd);
}

/* The image B with a filler record of a type not known (FILL bytes)
 * before each record of its data section, the features moved after: the
 * data section spans several of the reader's windows, its records
 * straddling their ends. */
#define FILL 65528
static unsigned char *
spread(const struct buf *b, size_t *len)
{
	uint64_t data_off, data_len, off, feat[6];
	size_t nrec = 0, at, i;
	unsigned char *out;

	memcpy(&data_off, b->b + 40, 8);
	memcpy(&data_len, b->b + 48, 8);
	for (off = data_off; off < data_off + data_len; nrec++) {
		uint16_t size;
		memcpy(&size, b->b + off + 6, 2);
		off += size;
	}
	*len = b->n + nrec * FILL;
	out = calloc(1, *len);
	memcpy(out, b->b, data_off);
	for (off = data_off, at = data_off; off < data_off + data_len;) {
		uint32_t type = 30;
		uint16_t size, fill = FILL;
		memcpy(out + at, &type, 4);
		memcpy(out + at + 6, &fill, 2);
		at += FILL;
		memcpy(&size, b->b + off + 6, 2);
		memcpy(out + at, b->b + off, size);
		at += size;
		off += size;
	}
	data_len += nrec * FILL;
	memcpy(out + 48, &data_len, 8);
	memcpy(out + at, b->b + off, b->n - off);
	memcpy(feat, out + at, sizeof(feat));
	for (i = 0; i < 6; i += 2)
		feat[i] += nrec * FILL;
	memcpy(out + at, feat, sizeof(feat));
	return out;
}

/* IMAGE written to a file and opened: the walks read it in windows. */
static void
check_opened(const unsigned char *image, size_t len, uint64_t unknown)
{
	char path[] = "/tmp/t-profile-perfdata.XXXXXX";
	struct ty_perfdata pd;
	struct ty_error e;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, image, len) == (ssize_t)len);
	close(fd);
	memset(&pd, 0, sizeof(pd));
	CHECK_INT(ty_perfdata_open(path, &pd, &e), 0);
	check_pd(&pd, unknown);
	ty_perfdata_release(&pd);
	/* cut inside its data section: the records up to there, a warning */
	if (truncate(path, (off_t)(len / 2)) == 0) {
		memset(&pd, 0, sizeof(pd));
		CHECK_INT(ty_perfdata_open(path, &pd, &e), 0);
		CHECK(pd.nwarnings >= 1);
		ty_perfdata_release(&pd);
	}
	unlink(path);
}

int
main(void)
{
	static struct buf b;
	unsigned char *copy;
	size_t len;

	build(&b);
	check_file(b.b, b.n, 1);
	/* the same bytes one byte off their alignment */
	copy = malloc(b.n + 1);
	memcpy(copy + 1, b.b, b.n);
	check_file(copy + 1, b.n, 1);
	free(copy);
	check_opened(b.b, b.n, 1);
	copy = spread(&b, &len);
	check_file(copy, len, 6);
	check_opened(copy, len, 6);
	free(copy);
	return check_done();
}
