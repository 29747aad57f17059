/* t-jsonw.c - the JSON writer makes valid, exact JSON. */
#include <stdlib.h>

#include "check.h"
#include "tachy/jsonw.h"

static char *
render(int pretty, void (*fn)(struct ty_jsonw *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct ty_jsonw w;

	ty_jsonw_init(&w, fp, pretty);
	fn(&w);
	fclose(fp);
	return buf;
}

static void
doc(struct ty_jsonw *w)
{
	ty_jsonw_object_begin(w);
	ty_jsonw_kstring(w, "cmd", "a\"b\\c\n<script>\x01\xff");
	ty_jsonw_key(w, "times");
	ty_jsonw_array_begin(w);
	ty_jsonw_double(w, 0.1);
	ty_jsonw_double(w, 1e300 * 1e300);
	ty_jsonw_int(w, -3);
	ty_jsonw_array_end(w);
	ty_jsonw_key(w, "empty");
	ty_jsonw_object_begin(w);
	ty_jsonw_object_end(w);
	ty_jsonw_kbool(w, "ok", 1);
	ty_jsonw_kuint(w, "big", 18446744073709551615ull);
	ty_jsonw_object_end(w);
}

int
main(void)
{
	char *s = render(0, doc);

	CHECK_STR(s, "{\"cmd\":\"a\\\"b\\\\c\\n<script>\\u0001\\ufffd\",\"times\":[0.1,null,-3],"
		     "\"empty\":{},\"ok\":true,\"big\":18446744073709551615}");
	free(s);
	s = render(1, doc);
	CHECK_STR(
	    s, "{\n  \"cmd\": \"a\\\"b\\\\c\\n<script>\\u0001\\ufffd\",\n  \"times\": [\n    0.1,\n"
	       "    null,\n    -3\n  ],\n  \"empty\": {},\n  \"ok\": true,\n"
	       "  \"big\": 18446744073709551615\n}\n");
	free(s);
	return check_done();
}
