/* profile-perfdata.c - the reader of perf.data files: header, events,
 * features, and the data section's records through sampler-decode.c
 * (profile-perfdata.h). */
#include "tachy/profile-perfdata.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tachy/array.h"
#include "tachy/safefile.h"

/* perf's own record types (tools/perf/util/event.h), after the kernel's. */
enum {
	REC_USER_START = 64,
	REC_HEADER_ATTR = 64,
	REC_HEADER_TRACING_DATA = 66, /* its data follows the record */
	REC_HEADER_BUILD_ID = 67,
	REC_AUXTRACE = 71,
	REC_HEADER_FEATURE = 80,
	REC_COMPRESSED = 81,
	REC_COMPRESSED2 = 83,
	REC_KERNEL_MAX = 22, /* the kernel's types below this one are known */
};

/* The feature bits tachy reads (tools/perf/util/header.h). */
enum {
	FEAT_TRACING_DATA = 1,
	FEAT_BUILD_ID = 2,
	FEAT_HOSTNAME = 3,
	FEAT_OSRELEASE = 4,
	FEAT_ARCH = 6,
	FEAT_NRCPUS = 7,
	FEAT_CMDLINE = 11,
	FEAT_EVENT_DESC = 12,
	FEAT_BITS = 256,
};

#define HEADER_SIZE 104	    /* the file-mode header */
#define PIPE_HEADER_SIZE 16 /* the pipe-mode header */
#define MAX_STRING (1u << 20)
#define MAX_BUILDIDS (1u << 20)

int
ty_perfdata_sniff(const void *buf, size_t len)
{
	static const char swapped[] = "2ELIFREP";

	return len >= 8 && (memcmp(buf, TY_PERFDATA_MAGIC, 8) == 0 || memcmp(buf, swapped, 8) == 0);
}

void
ty_perfdata_warn(struct ty_perfdata *pd, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (pd->nwarnings >= TY_PERFDATA_MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if ((pd->warnings[pd->nwarnings] = strdup(msg)))
		pd->nwarnings++;
}

/* A bounds-checked cursor over [p, end). */
struct cur {
	const unsigned char *p, *end;
	int bad;
};

static uint32_t
get32(struct cur *c)
{
	uint32_t v = 0;

	if (c->bad || c->end - c->p < 4)
		return c->bad = 1, 0;
	memcpy(&v, c->p, 4);
	c->p += 4;
	return v;
}

/* perf's string: a u32 length (padded, with the NUL), then the bytes.
 * A malloc'd copy, or NULL (C->bad set when malformed). */
static char *
get_string(struct cur *c)
{
	uint32_t n = get32(c);
	const unsigned char *nul;
	char *s;

	if (c->bad || n > MAX_STRING || n > (size_t)(c->end - c->p))
		return c->bad = 1, NULL;
	nul = memchr(c->p, '\0', n);
	s = strndup((const char *)c->p, nul ? (size_t)(nul - c->p) : n);
	c->p += n;
	if (!s)
		c->bad = 1;
	return s;
}

/* The name of an event without a description: the usual ones by name. */
static char *
default_name(uint32_t type, uint64_t config)
{
	static const char *const sw[] = {"cpu-clock", "task-clock", "page-faults",
					 "context-switches", "cpu-migrations"};
	static const char *const hw[] = {"cycles",	 "instructions", "cache-references",
					 "cache-misses", "branches",	 "branch-misses"};
	char buf[64];

	if (type == PERF_TYPE_SOFTWARE && config < 5)
		return strdup(sw[config]);
	if (type == PERF_TYPE_HARDWARE && config < 6)
		return strdup(hw[config]);
	snprintf(buf, sizeof(buf), "%u:0x%llx", type, (unsigned long long)config);
	return strdup(buf);
}

/* One perf_event_attr of SIZE bytes at P into a new event. */
static int
add_event(struct ty_perfdata *pd, const unsigned char *p, size_t size, struct ty_error *e)
{
	struct perf_event_attr a;
	struct ty_perfdata_event *ev;

	if (pd->nevents >= TY_PERFDATA_MAX_EVENTS)
		return ty_error_set(e, -EINVAL, "more than %d events: not a recording perf reads",
				    TY_PERFDATA_MAX_EVENTS);
	if (size < 64) /* PERF_ATTR_SIZE_VER0 */
		return ty_error_set(e, -EINVAL, "an event's attributes are %zu bytes (64 at least)",
				    size);
	if (ty_array_grow(&pd->events, sizeof(*pd->events), pd->nevents + 1, &pd->capevents) < 0)
		return ty_error_set(e, -ENOMEM, "out of memory");
	memset(&a, 0, sizeof(a));
	memcpy(&a, p, size < sizeof(a) ? size : sizeof(a));
	ev = &pd->events[pd->nevents];
	memset(ev, 0, sizeof(*ev));
	ev->type = a.type;
	ev->config = a.config;
	ev->sample_type = a.sample_type;
	ev->period_or_freq = a.sample_period;
	ev->freq = a.freq;
	ev->exclude_kernel = a.exclude_kernel;
	ev->exclude_user = a.exclude_user;
	ev->exclude_callchain_user = a.exclude_callchain_user;
	ev->sample_id_all = a.sample_id_all;
	ev->context_switch = a.context_switch;
	ev->regs_user = a.sample_regs_user;
	ev->stack_user = a.sample_stack_user;
	ev->layout.sample_type = a.sample_type;
	ev->layout.sample_id_all = a.sample_id_all;
	ev->layout.regs_user = a.sample_regs_user;
	ev->layout.period = a.freq ? 1 : a.sample_period;
	if (!(ev->name = default_name(a.type, a.config)))
		return ty_error_set(e, -ENOMEM, "out of memory");
	pd->nevents++;
	return 0;
}

static int
add_id(struct ty_perfdata *pd, uint64_t id, uint32_t ev)
{
	if (ty_array_grow(&pd->ids, sizeof(*pd->ids), pd->nids + 1, &pd->capids) < 0)
		return -ENOMEM;
	pd->ids[pd->nids].id = id;
	pd->ids[pd->nids++].ev = ev;
	return 0;
}

static int
cmp_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The file-mode attrs section: NATTR entries of ATTR_SIZE bytes, each an
 * attr and the section of its ids. */
static int
read_attrs(struct ty_perfdata *pd, uint64_t attr_size, uint64_t off, uint64_t size,
	   struct ty_error *e)
{
	uint64_t i, j, n;
	int r;

	if (attr_size < 64 + 16 || attr_size > 4096)
		return ty_error_set(e, -EINVAL,
				    "an event entry of %llu bytes (80 to 4096 expected)",
				    (unsigned long long)attr_size);
	if (off > pd->len || size > pd->len - off)
		return ty_error_set(e, -EINVAL,
				    "the events section (%llu bytes at %llu) runs past the end of "
				    "the file (%zu bytes): truncated",
				    (unsigned long long)size, (unsigned long long)off, pd->len);
	n = size / attr_size;
	if (n == 0)
		return ty_error_set(e, -EINVAL, "no events in the recording");
	for (i = 0; i < n; i++) {
		const unsigned char *p = pd->buf + off + i * attr_size;
		uint64_t ids_off, ids_size;
		if ((r = add_event(pd, p, attr_size - 16, e)) < 0)
			return r;
		memcpy(&ids_off, p + attr_size - 16, 8);
		memcpy(&ids_size, p + attr_size - 8, 8);
		if (ids_off > pd->len || ids_size > pd->len - ids_off)
			return ty_error_set(
			    e, -EINVAL,
			    "event %llu's ids (%llu bytes at %llu) run past the end "
			    "of the file: truncated",
			    (unsigned long long)i, (unsigned long long)ids_size,
			    (unsigned long long)ids_off);
		for (j = 0; j < ids_size / 8; j++) {
			uint64_t id;
			memcpy(&id, pd->buf + ids_off + 8 * j, 8);
			if (add_id(pd, id, (uint32_t)i) < 0)
				return ty_error_set(e, -ENOMEM, "out of memory");
		}
	}
	return 0;
}

/* The build-id feature: build-id records one after the other. */
static void
feat_build_id(struct ty_perfdata *pd, const unsigned char *p, size_t len)
{
	size_t off = 0;

	while (len - off >= 8 + 4 + 24) {
		struct perf_event_header h;
		struct ty_perfdata_buildid *b;
		const unsigned char *id, *name, *nul;
		size_t idlen = 20, i;

		memcpy(&h, p + off, sizeof(h));
		if (h.size < 8 + 4 + 24 || h.size > len - off) {
			ty_perfdata_warn(pd,
					 "a malformed build-id entry at offset %zu: the "
					 "build-ids after it are not read",
					 off);
			return;
		}
		if (pd->nbids >= MAX_BUILDIDS ||
		    ty_array_grow(&pd->bids, sizeof(*pd->bids), pd->nbids + 1, &pd->capbids) < 0)
			return;
		id = p + off + 12;
		name = id + 24;
		if ((h.misc & (1u << 15)) && id[20] <= 20) /* PERF_RECORD_MISC_BUILD_ID_SIZE */
			idlen = id[20];
		nul = memchr(name, '\0', (size_t)(p + off + h.size - name));
		b = &pd->bids[pd->nbids];
		memset(b, 0, sizeof(*b));
		memcpy(&b->pid, p + off + 8, 4);
		b->kernel =
		    (h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL ||
		    (h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_GUEST_KERNEL;
		if (!(h.misc & (1u << 15))) /* 20 bytes, zeros at the end not part of it */
			while (idlen > 0 && id[idlen - 1] == 0)
				idlen--;
		for (i = 0; i < idlen; i++)
			snprintf(b->hex + 2 * i, 3, "%02x", id[i]);
		b->path = strndup((const char *)name,
				  nul ? (size_t)(nul - name) : (size_t)(p + off + h.size - name));
		if (b->path)
			pd->nbids++;
		off += h.size;
	}
}

/* The command line feature: a count, then the words. */
static void
feat_cmdline(struct ty_perfdata *pd, struct cur *c)
{
	uint32_t n = get32(c), i;
	size_t len = 0;
	char *s = NULL;

	for (i = 0; i < n && !c->bad && len < MAX_STRING; i++) {
		char *w = get_string(c), *t;
		if (!w)
			break;
		if ((t = realloc(s, len + strlen(w) + 2))) { /* a word at a time: a few */
			s = t;
			len += (size_t)sprintf(s + len, "%s%s", len ? " " : "", w);
		}
		free(w);
	}
	if (s) {
		free(pd->cmdline);
		pd->cmdline = s;
	}
}

/* The event descriptions: names of the events, in the attrs' order. */
static void
feat_event_desc(struct ty_perfdata *pd, struct cur *c)
{
	uint32_t n = get32(c), sz = get32(c), i, nid;

	if (c->bad || sz < 64 || sz > 4096)
		return;
	for (i = 0; i < n && !c->bad; i++) {
		char *name;
		if ((size_t)(c->end - c->p) < sz)
			return;
		c->p += sz;
		nid = get32(c);
		if (!(name = get_string(c)))
			return;
		if (nid > (size_t)(c->end - c->p) / 8) {
			free(name);
			return;
		}
		c->p += 8 * (size_t)nid;
		if (i < pd->nevents && *name) {
			free(pd->events[i].name);
			pd->events[i].name = name;
		} else {
			free(name);
		}
	}
}

/* One feature section FEAT of LEN bytes at P (others are skipped). */
static void
feature(struct ty_perfdata *pd, unsigned feat, const unsigned char *p, size_t len)
{
	struct cur c = {p, p + len, 0};
	char **dst = NULL;

	switch (feat) {
	case FEAT_TRACING_DATA:
		pd->tracing = p;
		pd->tracing_len = len;
		return;
	case FEAT_BUILD_ID:
		feat_build_id(pd, p, len);
		return;
	case FEAT_CMDLINE:
		feat_cmdline(pd, &c);
		break;
	case FEAT_EVENT_DESC:
		feat_event_desc(pd, &c);
		break;
	case FEAT_NRCPUS:
		get32(&c); /* available, then online */
		pd->nrcpus = get32(&c);
		break;
	case FEAT_HOSTNAME:
		dst = &pd->hostname;
		break;
	case FEAT_OSRELEASE:
		dst = &pd->osrelease;
		break;
	case FEAT_ARCH:
		dst = &pd->arch;
		break;
	default:
		return;
	}
	if (dst) {
		free(*dst);
		*dst = get_string(&c);
	}
	if (c.bad)
		ty_perfdata_warn(pd, "feature section %u is malformed: what it says is not used",
				 feat);
}

/* The feature sections of a file-mode file, after its data. */
static void
read_features(struct ty_perfdata *pd, const uint64_t *bits)
{
	uint64_t off = pd->data_off + pd->data_len;
	unsigned feat;
	size_t n = 0, k = 0;

	for (feat = 0; feat < FEAT_BITS; feat++)
		n += (bits[feat / 64] >> (feat % 64)) & 1;
	if (!n)
		return;
	if (off > pd->len || n * 16 > pd->len - off) {
		ty_perfdata_warn(pd, "the feature sections' table runs past the end of the file "
				     "(truncated?): no build-ids, command line or event names");
		return;
	}
	for (feat = 0; feat < FEAT_BITS; feat++) {
		uint64_t s[2];
		if (!((bits[feat / 64] >> (feat % 64)) & 1))
			continue;
		memcpy(s, pd->buf + off + 16 * k++, 16);
		if (s[0] > pd->len || s[1] > pd->len - s[0]) {
			ty_perfdata_warn(pd,
					 "feature section %u (%llu bytes at %llu) runs past the "
					 "end of the file: skipped",
					 feat, (unsigned long long)s[1], (unsigned long long)s[0]);
			continue;
		}
		feature(pd, feat, pd->buf + s[0], (size_t)s[1]);
	}
}

/* Pipe mode: the attrs and features are records at the stream's start
 * (and anywhere in it). */
static int
read_pipe_headers(struct ty_perfdata *pd, struct ty_error *e)
{
	uint64_t off = pd->data_off, end = pd->data_off + pd->data_len;
	int r;

	while (end - off >= 8) {
		struct perf_event_header h;
		const unsigned char *p = pd->buf + off;
		memcpy(&h, p, sizeof(h));
		if (h.size < 8 || h.size > end - off)
			break;
		if (h.type == REC_HEADER_ATTR && h.size >= 8 + 64) {
			uint32_t asz;
			uint64_t j, id;
			memcpy(&asz, p + 8 + 4, 4);
			if (asz < 64 || asz > h.size - 8u)
				return ty_error_set(e, -EINVAL,
						    "an event's attributes record at offset %llu "
						    "is malformed",
						    (unsigned long long)off);
			if ((r = add_event(pd, p + 8, asz, e)) < 0)
				return r;
			for (j = 0; j < (h.size - 8u - asz) / 8; j++) {
				memcpy(&id, p + 8 + asz + 8 * j, 8);
				if (add_id(pd, id, (uint32_t)(pd->nevents - 1)) < 0)
					return ty_error_set(e, -ENOMEM, "out of memory");
			}
		} else if (h.type == REC_HEADER_FEATURE && h.size >= 16) {
			uint64_t feat;
			memcpy(&feat, p + 8, 8);
			if (feat < FEAT_BITS)
				feature(pd, (unsigned)feat, p + 16, h.size - 16u);
		} else if (h.type == REC_HEADER_BUILD_ID) {
			feat_build_id(pd, p, h.size);
		} else if (h.type == REC_AUXTRACE && h.size >= 16) {
			uint64_t aux;
			memcpy(&aux, p + 8, 8);
			if (aux > end - off - h.size)
				break;
			off += aux;
		} else if (h.type == REC_HEADER_TRACING_DATA && h.size >= 12) {
			uint32_t n;
			memcpy(&n, p + 8, 4);
			if (n > end - off - h.size)
				break;
			pd->tracing = p + h.size;
			pd->tracing_len = n;
			off += n;
		}
		off += h.size;
	}
	return 0;
}

int
ty_perfdata_parse(const void *buf, size_t len, const char *name, struct ty_perfdata *pd,
		  struct ty_error *e)
{
	uint64_t h[13], bits[4];
	int r;

	pd->buf = buf;
	pd->len = len;
	if (!ty_perfdata_sniff(buf, len))
		return ty_error_set(e, -EINVAL, "%s: not a perf.data file (its magic is not %s)",
				    name, TY_PERFDATA_MAGIC);
	if (memcmp(buf, TY_PERFDATA_MAGIC, 8) != 0)
		return ty_error_set(e, -EINVAL,
				    "%s: a perf.data file of the other byte order (recorded on a "
				    "big-endian machine): not supported; convert it there with "
				    "perf script",
				    name);
	if (len < PIPE_HEADER_SIZE)
		return ty_error_set(e, -EINVAL, "%s: truncated in its header (%zu bytes)", name,
				    len);
	memcpy(h, buf, 16);
	if (h[1] == PIPE_HEADER_SIZE) {
		pd->pipe = 1;
		pd->data_off = PIPE_HEADER_SIZE;
		pd->data_len = len - PIPE_HEADER_SIZE;
		if ((r = read_pipe_headers(pd, e)) < 0)
			return r;
		if (!pd->nevents)
			return ty_error_set(e, -EINVAL,
					    "%s: a pipe-mode perf.data (perf record -o -) without "
					    "its events' attributes: truncated at the start?",
					    name);
	} else {
		if (h[1] != HEADER_SIZE && (h[1] < HEADER_SIZE || h[1] > 4096))
			return ty_error_set(e, -EINVAL,
					    "%s: a perf.data header of %llu bytes (%d expected): "
					    "damaged, or not written by perf record",
					    name, (unsigned long long)h[1], HEADER_SIZE);
		if (len < HEADER_SIZE)
			return ty_error_set(e, -EINVAL, "%s: truncated in its header (%zu bytes)",
					    name, len);
		memcpy(h, buf, sizeof(h));
		memcpy(bits, (const unsigned char *)buf + 72, sizeof(bits));
		if ((r = read_attrs(pd, h[2], h[3], h[4], e)) < 0) {
			char msg[TY_ERROR_MAX];
			memcpy(msg, e->msg, sizeof(msg));
			return ty_error_set(e, r, "%.200s: %.300s", name, msg);
		}
		pd->data_off = h[5];
		pd->data_len = h[6];
		if (pd->data_off > len) {
			return ty_error_set(e, -EINVAL,
					    "%s: the data section starts at %llu, past the end of "
					    "the file (%zu bytes): truncated",
					    name, (unsigned long long)pd->data_off, len);
		}
		if (pd->data_len == 0 && len > pd->data_off) {
			ty_perfdata_warn(pd,
					 "perf record did not finish writing the file (killed?): "
					 "the records up to its end are read, without its "
					 "feature sections (build-ids, event names)");
			pd->data_len = len - pd->data_off;
		} else if (pd->data_len > len - pd->data_off) {
			ty_perfdata_warn(pd,
					 "the data section (%llu bytes) runs past the end of the "
					 "file: truncated, the records up to the end are read",
					 (unsigned long long)pd->data_len);
			pd->data_len = len - pd->data_off;
		} else {
			read_features(pd, bits);
		}
	}
	if (pd->nids)
		qsort(pd->ids, pd->nids, sizeof(*pd->ids), cmp_id);
	return 0;
}

int
ty_perfdata_open(const char *path, struct ty_perfdata *pd, struct ty_error *e)
{
	char why[TY_SAFEFILE_WHY];
	struct stat st;
	void *buf;
	int fd = ty_safefile_open(path, NULL, &st, why), r;

	if (fd < 0)
		return ty_error_set(e, fd == -ENOENT ? -ENOENT : -EINVAL, "cannot read %s: %s",
				    path, why);
	if (st.st_size == 0) {
		close(fd);
		return ty_error_set(e, -EINVAL, "cannot read %s: is too short (0 bytes)", path);
	}
	buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (buf == MAP_FAILED) {
		r = errno;
		close(fd);
		return ty_error_set(e, -EINVAL, "cannot read %s: cannot be mapped: %s", path,
				    strerror(r));
	}
	if ((r = ty_perfdata_parse(buf, (size_t)st.st_size, path, pd, e)) < 0) {
		munmap(buf, (size_t)st.st_size);
		close(fd);
		pd->buf = NULL;
		return r;
	}
	pd->mapped = 1;
	pd->fd = fd;
	pd->fd_open = 1;
	return 0;
}

int
ty_perfdata_find_event(const struct ty_perfdata *pd, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < pd->nevents; i++)
		if (strcmp(pd->events[i].name, name) == 0)
			return (int)i;
	for (i = 0; i < pd->nevents; i++)
		if (strncmp(pd->events[i].name, name, n) == 0 && pd->events[i].name[n] == ':')
			return (int)i;
	return -1;
}

/* The event of sample id ID, or -1. */
static int
event_of_id(const struct ty_perfdata *pd, uint64_t id)
{
	size_t lo = 0, hi = pd->nids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pd->ids[mid].id == id)
			return (int)pd->ids[mid].ev;
		if (pd->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The event of the record at P (LEN bytes), from its sample id, where the
 * first event's layout places it (perf keeps it in one place for all). */
static int
event_of(const struct ty_perfdata *pd, const unsigned char *p, size_t len, int sample)
{
	uint64_t t = pd->events[0].sample_type, id;
	size_t at;

	if (pd->nevents == 1)
		return 0;
	if (sample) {
		if (t & PERF_SAMPLE_IDENTIFIER)
			at = 8;
		else if (t & PERF_SAMPLE_ID)
			at = 8 + 8 * (!!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID) +
				      !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ADDR));
		else
			return 0;
	} else {
		size_t back;
		if (!pd->events[0].sample_id_all)
			return -1;
		if (t & PERF_SAMPLE_IDENTIFIER)
			back = 8;
		else if (t & PERF_SAMPLE_ID)
			back = 8 * (1 + !!(t & PERF_SAMPLE_STREAM_ID) + !!(t & PERF_SAMPLE_CPU));
		else
			return -1;
		if (len < 8 + back)
			return -1;
		at = len - back;
	}
	if (at + 8 > len)
		return -1;
	memcpy(&id, p + at, 8);
	return event_of_id(pd, id);
}

/* A record of the walk: where (in the copies), and when (non-samples, to
 * sort them). */
struct spot {
	uint64_t time, off;
};

static int
cmp_spot(const void *a, const void *b)
{
	const struct spot *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Decode the record at P (SIZE bytes) into R; its event, or -2 when it
 * does not decode. A record not 8-byte aligned in memory (perf aligns
 * them; a damaged file may not) is decoded from an aligned copy. */
static int
decode_at(struct ty_perfdata *pd, const unsigned char *p, uint32_t size, struct ty_sampler_rec *r)
{
	static _Thread_local uint64_t copy[65536 / 8];
	struct perf_event_header h;
	int ev;

	if ((uintptr_t)p % 8) {
		memcpy(copy, p, size);
		p = (const unsigned char *)copy;
	}
	memcpy(&h, p, sizeof(h));
	ev = event_of(pd, p, size, h.type == PERF_RECORD_SAMPLE);

	if (ty_sampler_decode(p, size, &pd->events[ev < 0 ? 0 : ev].layout, r) < 0) {
		pd->bad_records++;
		return -2;
	}
	if (r->type == TY_SAMPLER_REC_MMAP)
		r->dev = r->ino = 0; /* another machine's, maybe: judged by build-id */
	return ev;
}

/* The window's size: a record is 64 KiB at most (its size is 16 bits). */
#define WINDOW (128u << 10)

/* The bytes [OFF, OFF + SIZE) of the file, SIZE <= WINDOW and within the
 * data section: in the mapping, or (an open file) read into the window,
 * from OFF on, when it does not hold them. NULL when they cannot be read
 * (the file shrank since it was opened, an I/O error). */
static const unsigned char *
bytes_at(struct ty_perfdata *pd, uint64_t off, size_t size)
{
	uint64_t end = pd->data_off + pd->data_len;
	size_t want, got = 0;

	if (!pd->fd_open)
		return pd->buf + off;
	if (off >= pd->win_lo && off + size <= pd->win_hi)
		return pd->win + (off - pd->win_lo);
	if (!pd->win && !(pd->win = malloc(WINDOW)))
		return NULL;
	want = end - off < WINDOW ? (size_t)(end - off) : WINDOW;
	while (got < want) {
		ssize_t k = pread(pd->fd, pd->win + got, want - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	pd->win_lo = off;
	pd->win_hi = off + got;
	return got >= size ? pd->win : NULL;
}

/* An aligned copy of a non-sample record, for the time-ordered pass. */
static int
keep(unsigned char **arena, size_t *len, size_t *cap, const unsigned char *p, uint32_t size,
     uint64_t *at)
{
	size_t room = (size + 7u) & ~(size_t)7;

	if (ty_array_grow(arena, 1, *len + room, cap) < 0)
		return -ENOMEM;
	memcpy(*arena + *len, p, size);
	*at = *len;
	*len += room;
	return 0;
}

long
ty_perfdata_each(struct ty_perfdata *pd, int samples, ty_perfdata_fn fn, void *arg)
{
	uint64_t off = pd->data_off, end = pd->data_off + pd->data_len;
	struct ty_sampler_rec *r = malloc(sizeof(*r));
	struct spot *spots = NULL;
	unsigned char *arena = NULL; /* the non-sample records, copied */
	size_t nspots = 0, capspots = 0, alen = 0, acap = 0, i;
	const unsigned char *p;
	long n = 0;
	int ev;

	if (!r)
		return -ENOMEM;
	pd->win_lo = pd->win_hi = 0; /* the file may have been read since */
	while (end - off >= 8) {
		struct perf_event_header h;
		if ((p = bytes_at(pd, off, sizeof(h)))) {
			memcpy(&h, p, sizeof(h));
			if (h.size < 8 || h.size > end - off) {
				if (samples) /* said once, not in both walks */
					ty_perfdata_warn(
					    pd,
					    "a record of %u bytes at offset %llu does not fit the "
					    "data section (truncated or damaged file?): the "
					    "records after it are not read",
					    h.size, (unsigned long long)off);
				break;
			}
			p = bytes_at(pd, off, h.size);
		}
		if (!p) {
			if (samples)
				ty_perfdata_warn(pd,
						 "cannot read the data section at offset %llu "
						 "(the file shrank?): the records after it are not "
						 "read",
						 (unsigned long long)off);
			break;
		}
		if (h.type >= REC_USER_START) {
			if (h.type == REC_AUXTRACE && h.size >= 16) {
				uint64_t aux;
				memcpy(&aux, p + 8, 8);
				if (aux > end - off - h.size) {
					if (samples)
						ty_perfdata_warn(
						    pd, "an AUXTRACE record's data runs past "
							"the data section: the rest is not "
							"read");
					break;
				}
				off += aux;
				pd->aux_bytes += samples < 0 ? aux : 0;
			} else if (h.type == REC_HEADER_TRACING_DATA && h.size >= 12) {
				uint32_t td; /* pipe mode: the data follows (read_pipe_headers) */
				memcpy(&td, pd->buf + off + 8, 4);
				if (td > end - off - h.size)
					break;
				off += td;
			} else if (h.type == REC_COMPRESSED || h.type == REC_COMPRESSED2) {
				pd->compressed = 1;
			} else if (h.type > REC_HEADER_FEATURE && samples < 0) {
				pd->unknown_records++;
			}
		} else if (h.type >= REC_KERNEL_MAX) {
			pd->unknown_records += samples < 0;
		} else if (samples < 0 || (h.type == PERF_RECORD_SAMPLE) == !!samples) {
			if (samples == 0) { /* sorted by time first */
				uint64_t at;
				if ((ev = decode_at(pd, p, h.size, r)) != -2) {
					if (ty_array_grow(&spots, sizeof(*spots), nspots + 1,
							  &capspots) < 0 ||
					    keep(&arena, &alen, &acap, p, h.size, &at) < 0) {
						free(arena);
						free(spots);
						free(r);
						return -ENOMEM;
					}
					spots[nspots++] = (struct spot){r->time, at};
				}
			} else if ((ev = decode_at(pd, p, h.size, r)) != -2) {
				if (r->type == TY_SAMPLER_REC_SAMPLE && ev < 0) {
					pd->foreign_samples++;
				} else {
					if (r->type == TY_SAMPLER_REC_SAMPLE)
						pd->events[ev].nsamples++;
					fn(r, ev, arg);
					n++;
				}
			}
		}
		off += h.size;
	}
	if (nspots)
		qsort(spots, nspots, sizeof(*spots), cmp_spot);
	for (i = 0; i < nspots; i++) {
		struct perf_event_header h;
		memcpy(&h, arena + spots[i].off, sizeof(h));
		ev = decode_at(pd, arena + spots[i].off, h.size, r);
		fn(r, ev, arg);
		n++;
	}
	free(arena);
	free(spots);
	free(r);
	return n;
}

void
ty_perfdata_release(struct ty_perfdata *pd)
{
	size_t i;

	if (pd->mapped && pd->buf)
		munmap((void *)pd->buf, pd->len);
	if (pd->fd_open)
		close(pd->fd);
	free(pd->win);
	for (i = 0; i < pd->nevents; i++)
		free(pd->events[i].name);
	free(pd->events);
	free(pd->ids);
	free(pd->cmdline);
	free(pd->hostname);
	free(pd->osrelease);
	free(pd->arch);
	for (i = 0; i < pd->nbids; i++)
		free(pd->bids[i].path);
	free(pd->bids);
	for (i = 0; i < pd->nwarnings; i++)
		free(pd->warnings[i]);
	memset(pd, 0, sizeof(*pd));
}
