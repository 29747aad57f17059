/* t-term.c - the terminal helpers of the tool (src/term.c): units, number
 * formatting, symbols, colours. src/ is not in libtachy: it is built in. */
#include <stdlib.h>

#include "../../src/term.c"
#include "check.h"

int
main(void)
{
	struct term t;
	char buf[64];

	memset(&t, 0, sizeof(t));
	t.unicode = 1;
	/* What could drive a terminal is shown, the rest kept (UTF-8 too). */
	CHECK(term_shown("plain name \xc2\xb5s") == NULL);
	{
		char *s = term_shown("a\x1b]0;t\x07\r\n\tb\x7f\x9b\xc2\x9b\xc3");
		CHECK_STR(s, "a\\e]0;t\\x07\\r\\n\\tb\\x7f\\x9b\\xc2\\x9b\\xc3");
		free(s);
	}
	CHECK_STR(term_safe("ok"), "ok");
	CHECK_STR(term_safe("\x1b[2J"), "\\e[2J");
	CHECK_STR(term_unit_for(2.5, NULL), "s");
	CHECK_STR(term_unit_for(0.0125, NULL), "ms");
	CHECK_STR(term_unit_for(2.5e-5, NULL), "us");
	CHECK_STR(term_unit_for(3e-9, NULL), "ns");
	CHECK_STR(term_unit_for(0, NULL), "ms");
	CHECK_STR(term_unit_for(0.5, "s"), "s");
	term_time(&t, buf, sizeof(buf), 0.0123456, "ms");
	CHECK_STR(buf, "12.35 ms");
	term_time(&t, buf, sizeof(buf), 1.5e-5, "us");
	CHECK_STR(buf, "15.00 µs");
	term_time(&t, buf, sizeof(buf), 123.456, "s");
	CHECK_STR(buf, "123.5 s");
	term_time(&t, buf, sizeof(buf), 4567.8e-9, "ns");
	CHECK_STR(buf, "4568 ns");
	term_time(&t, buf, sizeof(buf), NAN, "ms");
	CHECK_STR(buf, "n/a");
	term_value(&t, buf, sizeof(buf), 1536, "KiB");
	CHECK_STR(buf, "1.500 MiB");
	term_value(&t, buf, sizeof(buf), 3 * 1024 * 1024, "KiB");
	CHECK_STR(buf, "3.000 GiB");
	term_value(&t, buf, sizeof(buf), 80, "");
	CHECK_STR(buf, "80");
	term_value(&t, buf, sizeof(buf), 2.25, "");
	CHECK_STR(buf, "2.250");
	term_value(&t, buf, sizeof(buf), 812345, "ns");
	CHECK_STR(buf, "812.3 µs");
	CHECK_STR(term_sym(&t, "pm"), "±");
	t.unicode = 0;
	CHECK_STR(term_sym(&t, "pm"), "+-");
	CHECK_STR(term_sym(&t, "times"), "x");
	term_time(&t, buf, sizeof(buf), 1.5e-5, "us");
	CHECK_STR(buf, "15.00 us");
	CHECK_STR(term_c(&t, "bold"), "");
	t.color = 1;
	CHECK_STR(term_c(&t, "bold"), "\033[1m");
	CHECK_STR(term_c(&t, "nosuch"), "");
	/* not a terminal here: no progress line, whatever the style */
	term_init(&t, TERM_COLOR_NEVER, TERM_STYLE_FULL);
	CHECK_INT(t.color, 0);
	term_init(&t, TERM_COLOR_ALWAYS, TERM_STYLE_BASIC);
	CHECK_INT(t.color, 1);
	CHECK_INT(t.unicode, 0);
	setenv("NO_COLOR", "1", 1);
	term_init(&t, TERM_COLOR_AUTO, TERM_STYLE_FULL);
	CHECK_INT(t.color, 0);
	return check_done();
}
