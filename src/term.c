/* term.c - colours, the progress line, time units. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "tachy/clock.h"
#include "tachy/utf8.h"
#include "term.h"

/* The code point of the UTF-8 sequence of N bytes at P. */
static unsigned
code_point(const unsigned char *p, int n)
{
	unsigned cp = n == 2 ? p[0] & 0x1fu : n == 3 ? p[0] & 0x0fu : p[0] & 0x07u;
	int i;

	for (i = 1; i < n; i++)
		cp = cp << 6 | (p[i] & 0x3fu);
	return cp;
}

/* Whether CP is invisible and changes what is around it: the bidi
 * controls (U+202E shows "exe.txt" as "txt.exe"), zero-width characters,
 * the soft hyphen, the line and paragraph separators, the byte order
 * mark, the interlinear annotations, the tag characters. */
static int
invisible(unsigned cp)
{
	return cp == 0xad || cp == 0x61c || cp == 0x180e || (cp >= 0x200b && cp <= 0x200f) ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) || cp == 0xfeff ||
	       (cp >= 0xfff9 && cp <= 0xfffb) || (cp >= 0xe0000 && cp <= 0xe007f);
}

/* The length of the harmless sequence at P (printable ASCII, or UTF-8
 * that is neither a C1 control nor invisible; a line break and a tab too
 * when LINES), 0 when it must be shown escaped. */
static int
harmless(const unsigned char *p, int lines)
{
	int n;

	if ((*p >= 0x20 && *p < 0x7f) || (lines && (*p == '\n' || *p == '\t')))
		return 1;
	if (*p < 0x80 || !(n = ty_utf8_seqlen((const char *)p)))
		return 0;
	if (p[0] == 0xc2 && p[1] < 0xa0)
		return 0;
	return invisible(code_point(p, n)) ? 0 : n;
}

/* Whether the backslash at P must be doubled: when what follows could be
 * read as one of the escapes below (a literal "back\\n" must not look
 * like a line break shown escaped), so that the shown text reads back
 * to one string only. */
static int
backslash_doubled(const unsigned char *p, int lines)
{
	return p[1] && (strchr("\\entrxuU", p[1]) || !harmless(p + 1, lines));
}

/* The length of the sequence at P kept as it is, 0 when escaped. */
static int
kept(const unsigned char *p, int lines)
{
	return *p == '\\' ? !backslash_doubled(p, lines) : harmless(p, lines);
}

static int
needs_showing(const char *s, int lines)
{
	const unsigned char *p;
	int n;

	for (p = (const unsigned char *)s; *p && (n = kept(p, lines)); p += n)
		;
	return *p != '\0';
}

/* S with what a terminal would act on, or hide, written as escapes: \e,
 * \n, \t, \r, \xHH (other bytes, invalid UTF-8), \uHHHH and \UHHHHHHHH
 * (invisible characters), \\ (a backslash that could be read as one);
 * NULL when nothing needs it. */
static char *
shown(const char *s, int lines)
{
	const unsigned char *p;
	char *out, *q;
	int n;

	/* at most 10 bytes out (\UHHHHHHHH) for 4 in */
	if (!needs_showing(s, lines) || !(out = malloc(strlen(s) * 4 + 1)))
		return NULL;
	for (p = (const unsigned char *)s, q = out; *p;) {
		if ((n = kept(p, lines))) {
			memcpy(q, p, (size_t)n);
			q += n;
			p += n;
			continue;
		}
		if (*p >= 0x80 && (n = ty_utf8_seqlen((const char *)p)) > 0 &&
		    !(p[0] == 0xc2 && p[1] < 0xa0)) { /* invisible */
			unsigned cp = code_point(p, n);
			q += cp > 0xffff ? sprintf(q, "\\U%08x", cp) : sprintf(q, "\\u%04x", cp);
			p += n;
			continue;
		}
		if (*p == '\\')
			q += sprintf(q, "\\\\");
		else if (*p == 0x1b)
			q += sprintf(q, "\\e");
		else if (*p == '\n')
			q += sprintf(q, "\\n");
		else if (*p == '\t')
			q += sprintf(q, "\\t");
		else if (*p == '\r')
			q += sprintf(q, "\\r");
		else
			q += sprintf(q, "\\x%02x", *p);
		p++;
	}
	*q = '\0';
	return out;
}

char *
term_shown(const char *s)
{
	return shown(s, 0);
}

char *
term_shown_lines(const char *s)
{
	return shown(s, 1);
}

const char *
term_safe(const char *s)
{
	static char *ring[8];
	static unsigned next;
	char *t;

	if (!s || !needs_showing(s, 0))
		return s;
	if (!(t = term_shown(s)))
		return "?";
	free(ring[next % 8]);
	ring[next++ % 8] = t;
	return t;
}

void
term_init(struct term *t, enum term_color color, enum term_style style)
{
	const char *nc = getenv("NO_COLOR");

	memset(t, 0, sizeof(*t));
	if (color == TERM_COLOR_ALWAYS)
		t->color = 1;
	else if (color == TERM_COLOR_AUTO)
		t->color = isatty(STDOUT_FILENO) && !(nc && *nc) && style == TERM_STYLE_FULL;
	t->color_stderr =
	    color == TERM_COLOR_ALWAYS || (color == TERM_COLOR_AUTO && isatty(STDERR_FILENO) &&
					   !(nc && *nc) && style == TERM_STYLE_FULL);
	t->progress = style != TERM_STYLE_NONE && isatty(STDERR_FILENO);
	t->unicode = style == TERM_STYLE_FULL && term_utf8();
}

const char *
term_c(const struct term *t, const char *name)
{
	static const struct {
		const char *name, *seq;
	} codes[] = {{"bold", "\033[1m"},    {"green", "\033[32m"}, {"red", "\033[31m"},
		     {"yellow", "\033[33m"}, {"cyan", "\033[36m"},  {"dim", "\033[2m"},
		     {"reset", "\033[0m"}};
	size_t i;

	if (!t->color)
		return "";
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (strcmp(codes[i].name, name) == 0)
			return codes[i].seq;
	return "";
}

int
term_utf8(void)
{
	static int known = -1;
	static const char *const vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};
	const char *v = NULL, *p;
	size_t i;

	if (known >= 0)
		return known;
	for (i = 0; i < sizeof(vars) / sizeof(vars[0]) && !(v && *v); i++)
		v = getenv(vars[i]);
	known = 0;
	for (p = v && *v ? v : ""; *p && !known; p++)
		known = strncasecmp(p, "utf-8", 5) == 0 || strncasecmp(p, "utf8", 4) == 0;
	return known;
}

static const struct {
	const char *name, *utf8, *ascii;
} glyphs[] = {
    {"pm", "±", "+-"}, {"dots", "…", "..."}, {"times", "×", "x"}, {"sigma", "σ", "sd"},
    {"le", "≤", "<="}, {"us", "µs", "us"},   {"inf", "∞", "inf"}, {"arrow", "→", "->"},
};

static const char *
glyph(const char *name, int utf8)
{
	size_t i;

	for (i = 0; i < sizeof(glyphs) / sizeof(glyphs[0]); i++)
		if (strcmp(glyphs[i].name, name) == 0)
			return utf8 ? glyphs[i].utf8 : glyphs[i].ascii;
	return name;
}

const char *
term_glyph(const char *name)
{
	return glyph(name, term_utf8());
}

const char *
term_sym(const struct term *t, const char *name)
{
	return glyph(name, t->unicode);
}

const char *
term_unit_for(double seconds, const char *unit)
{
	double a = fabs(seconds);

	if (unit)
		return unit;
	if (!isfinite(a) || a >= 1 || a == 0)
		return a == 0 ? "ms" : "s";
	if (a >= 1e-3)
		return "ms";
	if (a >= 1e-6)
		return "us";
	return "ns";
}

static void
sig4(char *buf, size_t size, double v, const char *unit)
{
	double a = fabs(v);
	int dec = a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : 3;

	if (!isfinite(v))
		snprintf(buf, size, "n/a");
	else
		snprintf(buf, size, "%.*f%s%s", dec, v, *unit ? " " : "", unit);
}

void
term_time(const struct term *t, char *buf, size_t size, double seconds, const char *unit)
{
	double scale = 1;
	const char *shown = unit;

	if (strcmp(unit, "ms") == 0) {
		scale = 1e3;
	} else if (strcmp(unit, "us") == 0) {
		scale = 1e6;
		shown = term_sym(t, "us");
	} else if (strcmp(unit, "ns") == 0) {
		scale = 1e9;
	}
	sig4(buf, size, seconds * scale, shown);
}

void
term_value(const struct term *t, char *buf, size_t size, double v, const char *unit)
{
	(void)t;
	if (strcmp(unit, "KiB") == 0 && v >= 1024) {
		if (v >= 1024 * 1024)
			sig4(buf, size, v / 1024 / 1024, "GiB");
		else
			sig4(buf, size, v / 1024, "MiB");
		return;
	}
	if (strcmp(unit, "ns") == 0) {
		term_time(t, buf, size, v / 1e9, term_unit_for(v / 1e9, NULL));
		return;
	}
	if (fabs(v) >= 1e4 || v == floor(v))
		snprintf(buf, size, "%.0f%s%s", v, *unit ? " " : "", unit);
	else
		sig4(buf, size, v, unit);
}

void
term_progress(struct term *t, const char *name, long k, long n, double left, double mean, int force)
{
	char m[32], what[48], shown[41];
	long long now;
	size_t i;

	if (!t->progress)
		return;
	now = (long long)ty_clock_now_ns();
	if (!force && t->shown && now - t->last_ns < 100000000)
		return;
	t->last_ns = now;
	if (n > 0)
		snprintf(what, sizeof(what), "run %ld of %ld", k, n);
	else
		snprintf(what, sizeof(what), "run %ld, %.0f s left at most", k,
			 left > 0 ? left : 0);
	term_time(t, m, sizeof(m), mean, term_unit_for(mean, NULL));
	for (i = 0; name[i] && i < sizeof(shown) - 1; i++) /* no control characters */
		shown[i] = (unsigned char)name[i] < 0x20 || name[i] == 0x7f ? '?' : name[i];
	shown[i] = '\0';
	fprintf(stderr, "\r\033[K%s: %s, mean %s", shown, what, m);
	fflush(stderr);
	t->shown = 1;
}

int
term_progress_due(const struct term *t)
{
	return t->progress && (!t->shown || (long long)ty_clock_now_ns() - t->last_ns >= 100000000);
}

void
term_progress_clear(struct term *t)
{
	if (!t->shown)
		return;
	fprintf(stderr, "\r\033[K");
	fflush(stderr);
	t->shown = 0;
}
