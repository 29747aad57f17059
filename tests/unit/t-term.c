/* t-term.c - the terminal helpers of the tool (src/term.c): units, number
 * formatting, symbols, colours. src/ is not in libtachy: it is built in. */
#include <stdlib.h>

#include "../../src/term.c"
#include "check.h"

/* The reading back of term_shown's escapes, as a person would: \\ \e \n
 * \t \r \xHH \uHHHH \UHHHHHHHH; any other backslash is itself. */
static char *
read_back(const char *s)
{
	char *out = malloc(strlen(s) + 1), *q = out;
	unsigned cp;
	int n;

	while (*s) {
		if (s[0] != '\\' || !s[1] || !strchr("\\entrxuU", s[1])) {
			*q++ = *s++;
			continue;
		}
		switch (s[1]) {
		case '\\':
			*q++ = '\\';
			break;
		case 'e':
			*q++ = 0x1b;
			break;
		case 'n':
			*q++ = '\n';
			break;
		case 't':
			*q++ = '\t';
			break;
		case 'r':
			*q++ = '\r';
			break;
		case 'x':
			sscanf(s + 2, "%2x", &cp);
			*q++ = (char)cp;
			s += 2;
			break;
		default:
			n = s[1] == 'u' ? 4 : 8;
			sscanf(s + 2, n == 4 ? "%4x" : "%8x", &cp);
			s += n;
			if (cp < 0x10000) {
				*q++ = (char)(0xe0 | cp >> 12);
			} else {
				*q++ = (char)(0xf0 | cp >> 18);
				*q++ = (char)(0x80 | (cp >> 12 & 0x3f));
			}
			*q++ = (char)(0x80 | (cp >> 6 & 0x3f));
			*q++ = (char)(0x80 | (cp & 0x3f));
		}
		s += 2;
	}
	*q = '\0';
	return out;
}

/* S shown reads back to S, and differs from T's showing. */
static void
check_reversible(const char *s)
{
	char *sh = term_shown(s), *back = read_back(sh ? sh : s);

	CHECK_STR(back, s);
	free(sh);
	free(back);
}

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
	/* invisible characters that reorder or hide text: shown by code point */
	CHECK_STR(term_safe("evil\xe2\x80\xaetxt.exe"), "evil\\u202etxt.exe");
	CHECK_STR(term_safe("a\xe2\x80\x8e"
			    "b\xe2\x80\x8f"
			    "c\xe2\x80\xaa"
			    "d\xe2\x81\xa6"
			    "e\xe2\x81\xa9"),
		  "a\\u200eb\\u200fc\\u202ad\\u2066e\\u2069");
	CHECK_STR(term_safe("zw\xe2\x80\x8bj\xef\xbb\xbfk\xc2\xadl\xf3\xa0\x80\x81"),
		  "zw\\u200bj\\ufeffk\\u00adl\\U000e0001");
	CHECK(term_shown("caf\xc3\xa9 \xe2\x80\x94 \xe6\x97\xa5") == NULL); /* é — 日 kept */
	/* a backslash that would read as an escape is doubled; others kept */
	CHECK_STR(term_safe("back\\slash\\n"), "back\\slash\\\\n");
	CHECK_STR(term_safe("back\\slash\n"), "back\\slash\\n");
	CHECK_STR(term_safe("a\\\n"), "a\\\\\\n");
	CHECK(term_shown("grep 'a\\.b' \\$x") == NULL);
	CHECK_STR(term_safe("\\x1b \\e \\u202e \\\\"), "\\\\x1b \\\\e \\\\u202e \\\\\\");
	check_reversible("back\\slash\\n");
	check_reversible("back\\slash\n");
	check_reversible("a\\\n\\\\\\");
	check_reversible("\\x41\x1b\\\xe2\x80\xae"
			 "\\u202e\\U\\t\t\\r\r\\");
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
