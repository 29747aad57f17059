/* jsonw.h - a small streaming JSON writer (libc only).
 *
 * Keeps track of commas and indentation; strings are escaped (control
 * characters as \uXXXX, invalid UTF-8 bytes replaced by U+FFFD) so any
 * command name makes valid JSON. Numbers that are not finite are written
 * as null. Write errors are left to the FILE (check ferror at the end). */
#ifndef TACHY_JSONW_H
#define TACHY_JSONW_H

#include <stdint.h>
#include <stdio.h>

#define TY_JSONW_DEPTH 32

struct ty_jsonw {
	FILE *fp;
	int pretty; /* indent with two spaces and newlines */
	int depth;
	int count[TY_JSONW_DEPTH]; /* items written at each depth */
	int after_key;
	/* ty_jsonw_init_members: where the members go instead of a file */
	int (*member)(void *ctx, const char *key, const char *text);
	void *member_ctx;
	const char *key; /* the key of the value to come */
	int member_err;	 /* the first error of member(), or -EINVAL for a member
			    that is an object or an array */
};

void ty_jsonw_init(struct ty_jsonw *w, FILE *fp, int pretty);

/* A writer that writes nothing but hands every member written at the top
 * level (as a function that fills an object's members writes them) to
 * MEMBER, its value as text: a string as it is, a number as the writer
 * would write it ("12", "0.25"; %.17g where it is not whole), "true",
 * "false", "null" (a NULL string too). A member whose value is an object
 * or an array is not handed on: w->member_err is then -EINVAL. MEMBER
 * returns 0 or a negative errno, kept in w->member_err (the first one;
 * later members are still handed on). KEY is valid only during the call. */
void ty_jsonw_init_members(struct ty_jsonw *w,
			   int (*member)(void *ctx, const char *key, const char *text), void *ctx);

void ty_jsonw_object_begin(struct ty_jsonw *w);
void ty_jsonw_object_end(struct ty_jsonw *w);
void ty_jsonw_array_begin(struct ty_jsonw *w);
void ty_jsonw_array_end(struct ty_jsonw *w);

/* Inside an object: the next value's key. */
void ty_jsonw_key(struct ty_jsonw *w, const char *key);

void ty_jsonw_string(struct ty_jsonw *w, const char *s);
void ty_jsonw_double(struct ty_jsonw *w, double v); /* shortest %.17g that round-trips */
void ty_jsonw_int(struct ty_jsonw *w, int64_t v);
void ty_jsonw_uint(struct ty_jsonw *w, uint64_t v);
void ty_jsonw_bool(struct ty_jsonw *w, int v);
void ty_jsonw_null(struct ty_jsonw *w);

/* Shorthands for key + value. */
void ty_jsonw_kstring(struct ty_jsonw *w, const char *key, const char *s);
void ty_jsonw_kdouble(struct ty_jsonw *w, const char *key, double v);
void ty_jsonw_kint(struct ty_jsonw *w, const char *key, int64_t v);
void ty_jsonw_kuint(struct ty_jsonw *w, const char *key, uint64_t v);
void ty_jsonw_kbool(struct ty_jsonw *w, const char *key, int v);

/* Write S escaped for a JSON string body (no quotes) to FP. */
void ty_jsonw_escape(FILE *fp, const char *s);

#endif
