/* error.h - how libtachy reports failure.
 *
 * Every fallible lib/ function returns 0 (or a count) on success and a
 * negative errno-style code on failure, and fills a caller-provided
 * struct ty_error with a sentence a user can act on. lib/ never prints. */
#ifndef TACHY_ERROR_H
#define TACHY_ERROR_H

#include <stdarg.h>

#define TY_ERROR_MAX 512

struct ty_error {
	int code;		/* negative errno-style code, 0 when clear */
	char msg[TY_ERROR_MAX]; /* "cannot open counter 'cycles': not supported ..." */
};

/* Clear E (it may be NULL). */
void ty_error_clear(struct ty_error *e);

/* Set E (it may be NULL) to CODE and a printf-formatted message.
 * Returns CODE, so callers can write `return ty_error_set(e, -EINVAL, ...)`. */
int ty_error_set(struct ty_error *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* As ty_error_set, with a va_list. */
int ty_error_vset(struct ty_error *e, int code, const char *fmt, va_list ap);

#endif
