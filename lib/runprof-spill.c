/* runprof-spill.c - a sampler's records copied out of its rings by a
 * thread while a measured run goes on, handed on after the reap. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "tachy/array.h"
#include "tachy/runprof-spill.h"

/* The decoded record up to its chain buffer: what is kept of it, then its
 * chain, its stack copy and its name. */
#define HEAD offsetof(struct ty_sampler_rec, chainbuf)

struct kept {
	uint32_t size;	   /* of the entry, this header included, 8-aligned */
	uint32_t name_len; /* with the NUL; 0: no name */
	unsigned char has_stack;
};

struct ty_runprof_spill {
	struct ty_sampler *s;
	pthread_t thread;
	int started, stop_fd;
	unsigned char *buf;
	size_t len, cap;
	int rc; /* the first error: a corrupt ring, or out of memory */
	struct ty_error err;
	double cpu_ms;
};

static size_t
entry_size(const struct ty_sampler_rec *r, size_t name_len)
{
	size_t n = sizeof(struct kept) + HEAD + r->nr * sizeof(uint64_t) + name_len +
		   (r->stack ? r->stack_dyn : 0);

	return (n + 7) & ~(size_t)7;
}

static void
keep(const struct ty_sampler_rec *r, void *arg)
{
	struct ty_runprof_spill *sp = arg;
	size_t name_len = r->name ? strlen(r->name) + 1 : 0, n = entry_size(r, name_len);
	unsigned char *p;
	struct kept k;

	if (sp->rc < 0 || r->type == TY_SAMPLER_REC_OTHER)
		return;
	if (n > UINT32_MAX || ty_array_grow(&sp->buf, 1, sp->len + n, &sp->cap) < 0) {
		sp->rc = ty_error_set(&sp->err, -ENOMEM, "out of memory");
		return;
	}
	p = sp->buf + sp->len;
	k.size = (uint32_t)n;
	k.name_len = (uint32_t)name_len;
	k.has_stack = r->stack != NULL;
	memcpy(p, &k, sizeof(k));
	p += sizeof(k);
	memcpy(p, r, HEAD);
	p += HEAD;
	if (r->nr) {
		memcpy(p, r->chain, r->nr * sizeof(uint64_t));
		p += r->nr * sizeof(uint64_t);
	}
	if (r->stack && r->stack_dyn) {
		memcpy(p, r->stack, r->stack_dyn);
		p += r->stack_dyn;
	}
	if (name_len)
		memcpy(p, r->name, name_len);
	sp->len += n;
}

static void
drain(struct ty_runprof_spill *sp)
{
	struct ty_error e;
	long got;

	if (sp->rc < 0)
		return;
	if ((got = ty_sampler_drain(sp->s, keep, sp, &e)) < 0 && sp->rc == 0) {
		sp->rc = (int)got;
		sp->err = e;
	}
}

static void *
spill_main(void *arg)
{
	struct ty_runprof_spill *sp = arg;
	int n = ty_sampler_nrings(sp->s), i, open = n;
	struct pollfd *pfd = calloc((size_t)n + 1, sizeof(*pfd));
	struct timespec ts;

	if (!pfd) {
		sp->rc = ty_error_set(&sp->err, -ENOMEM, "out of memory");
		return NULL;
	}
	for (i = 0; i < n; i++) {
		pfd[i].fd = ty_sampler_fd(sp->s, i);
		pfd[i].events = POLLIN;
	}
	pfd[n].fd = sp->stop_fd;
	pfd[n].events = POLLIN;
	for (;;) {
		int wake = 0;

		if (poll(pfd, (nfds_t)n + 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[n].revents)
			break;
		for (i = 0; i < n; i++) {
			if (pfd[i].revents & POLLIN)
				wake = 1;
			if (pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL)) {
				pfd[i].fd = -1; /* its task is gone: no more wake-ups */
				open--;
				wake = 1;
			}
		}
		if (wake)
			drain(sp);
		if (!open) { /* every ring hung up: wait for the stop alone */
			pfd[0].fd = sp->stop_fd;
			n = 0;
			open = -1;
		}
	}
	free(pfd);
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
		sp->cpu_ms = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
	return NULL;
}

struct ty_runprof_spill *
ty_runprof_spill_new(void)
{
	struct ty_runprof_spill *sp = calloc(1, sizeof(*sp));

	if (sp && (sp->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		free(sp);
		return NULL;
	}
	return sp;
}

int
ty_runprof_spill_start(struct ty_runprof_spill *sp, struct ty_sampler *s, struct ty_error *e)
{
	uint64_t v;
	int rc;

	ty_runprof_spill_stop(sp, NULL, NULL);
	while (read(sp->stop_fd, &v, sizeof(v)) < 0 && errno == EINTR)
		; /* a stop not read by the last thread */
	sp->s = s;
	sp->len = 0;
	sp->rc = 0;
	sp->cpu_ms = 0;
	if ((rc = pthread_create(&sp->thread, NULL, spill_main, sp)) != 0)
		return ty_error_set(e, -rc, "cannot start a thread: %s", strerror(rc));
	sp->started = 1;
	return 0;
}

int
ty_runprof_spill_stop(struct ty_runprof_spill *sp, double *cpu_ms, struct ty_error *e)
{
	uint64_t one = 1;

	if (sp->started) {
		while (write(sp->stop_fd, &one, sizeof(one)) < 0 && errno == EINTR)
			;
		pthread_join(sp->thread, NULL);
		sp->started = 0;
		drain(sp); /* what came after its last wake-up */
	}
	if (cpu_ms)
		*cpu_ms = sp->cpu_ms;
	if (sp->rc < 0 && e)
		*e = sp->err;
	return sp->rc;
}

long
ty_runprof_spill_replay(const struct ty_runprof_spill *sp, ty_sampler_rec_fn fn, void *arg)
{
	struct ty_sampler_rec *r = malloc(sizeof(*r));
	size_t off = 0;
	long n = 0;

	if (!r)
		return -ENOMEM;
	while (off + sizeof(struct kept) + HEAD <= sp->len) {
		const unsigned char *p = sp->buf + off;
		struct kept k;

		memcpy(&k, p, sizeof(k));
		p += sizeof(k);
		memcpy(r, p, HEAD);
		p += HEAD;
		r->chain = NULL;
		if (r->nr) {
			memcpy(r->chainbuf, p, r->nr * sizeof(uint64_t));
			r->chain = r->chainbuf;
			p += r->nr * sizeof(uint64_t);
		}
		r->stack = NULL;
		if (k.has_stack) {
			r->stack = p;
			p += r->stack_dyn;
		}
		r->name = k.name_len ? (const char *)p : NULL;
		fn(r, arg);
		off += k.size;
		n++;
	}
	free(r);
	return n;
}

size_t
ty_runprof_spill_bytes(const struct ty_runprof_spill *sp)
{
	return sp ? sp->len : 0;
}

void
ty_runprof_spill_free(struct ty_runprof_spill *sp)
{
	if (!sp)
		return;
	ty_runprof_spill_stop(sp, NULL, NULL);
	close(sp->stop_fd);
	free(sp->buf);
	free(sp);
}
