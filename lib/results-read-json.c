/* results-read-json.c - the JSON reading helpers of results-read.c
 * (results-read-json.h): errors that name the file and the path to the
 * value, typed members, figures in range. */
#ifdef HAVE_JANSSON
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "results-read-json.h"

int
rr_bad(struct reader *rd, const char *fmt, ...)
{
	char msg[TY_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ty_error_set(rd->e, -EINVAL, "%s: %s: %s", rd->file,
			    rd->where[0] ? rd->where : "top level", msg);
}

int
rr_nomem(struct reader *rd)
{
	return ty_error_set(rd->e, -ENOMEM, "%s: out of memory", rd->file);
}

/* Descend into KEY (when not NULL) or [INDEX]; returns the old length to
 * give back to rr_up(). */
size_t
rr_down(struct reader *rd, const char *key, size_t index)
{
	size_t len = strlen(rd->where);
	size_t room = sizeof(rd->where) - len;

	if (key)
		snprintf(rd->where + len, room, "%s%s", len ? "." : "", key);
	else
		snprintf(rd->where + len, room, "[%zu]", index);
	return len;
}

void
rr_up(struct reader *rd, size_t len)
{
	rd->where[len] = '\0';
}

const char *
rr_type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		return "null";
	}
	return "something else";
}

/* Fetch member KEY of object O with type check. REQUIRED: absent is an error. */
int
rr_member(struct reader *rd, const json_t *o, const char *key, json_type want, int required,
	  json_t **out)
{
	json_t *v = json_object_get(o, key);
	static const char *names[] = {"an object", "an array",	"a string",  "an integer",
				      "a number",  "a boolean", "a boolean", "null"};

	*out = NULL;
	if (!v) {
		if (required)
			return rr_bad(rd, "missing field \"%s\"", key);
		return 0;
	}
	if (want == JSON_REAL ? !json_is_number(v) : json_typeof(v) != want) {
		size_t l = rr_down(rd, key, 0);
		int rc = rr_bad(rd, "expected %s, found %s", names[want], rr_type_name(v));
		rr_up(rd, l);
		return rc;
	}
	*out = v;
	return 0;
}

/* The largest time in UNIT ("s", "ms", "us", "ns") a counter may hold;
 * 0 when UNIT is no time. */
double
rr_time_max(const char *unit)
{
	double k = !strcmp(unit, "s")	 ? 1
		   : !strcmp(unit, "ms") ? 1e3
		   : !strcmp(unit, "us") ? 1e6
					 : 1e9;

	return (!strcmp(unit, "s") || !strcmp(unit, "ms") || !strcmp(unit, "us") ||
		!strcmp(unit, "ns"))
		   ? TIME_MAX_S * k
		   : 0;
}

/* A finite number >= 0 and <= MAX at V (path already set), MAX in UNIT
 * ("s", "ns", or "" for counts); NULLOK lets null be NAN. */
int
rr_nonneg_number(struct reader *rd, const json_t *v, int nullok, double max, const char *unit,
		 double *out)
{
	double d;

	if (nullok && json_is_null(v)) {
		*out = NAN;
		return 0;
	}
	if (!json_is_number(v))
		return rr_bad(rd, "expected a number, found %s", rr_type_name(v));
	d = json_number_value(v);
	if (!isfinite(d) || d < 0)
		return rr_bad(rd, "expected a number >= 0, found %g", d);
	if (d > max)
		return rr_bad(rd, "%g is out of range: no %s measured is over %g%s%s", d,
			      *unit ? "time" : "count", max, *unit ? " " : "", unit);
	*out = d;
	return 0;
}

#endif
