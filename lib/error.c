/* error.c - struct ty_error helpers. */
#include <stdio.h>
#include <string.h>

#include "tachy/error.h"

void
ty_error_clear(struct ty_error *e)
{
	if (e) {
		e->code = 0;
		e->msg[0] = '\0';
	}
}

int
ty_error_vset(struct ty_error *e, int code, const char *fmt, va_list ap)
{
	if (e) {
		e->code = code;
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	}
	return code;
}

int
ty_error_set(struct ty_error *e, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ty_error_vset(e, code, fmt, ap);
	va_end(ap);
	return code;
}
