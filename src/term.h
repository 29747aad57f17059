/* term.h - the terminal side of the tool: colours, progress line, units. */
#ifndef TACHY_TERM_H
#define TACHY_TERM_H

#include <stddef.h>
#include <stdio.h>

enum term_color { TERM_COLOR_AUTO, TERM_COLOR_ALWAYS, TERM_COLOR_NEVER };
enum term_style { TERM_STYLE_FULL, TERM_STYLE_BASIC, TERM_STYLE_NONE };

struct term {
	int color;	  /* emit ANSI colours on stdout */
	int color_stderr; /* what --color auto gives when the report goes to stderr */
	int progress;	  /* draw the progress line on stderr */
	int unicode;	  /* ± … × µ σ (a UTF-8 locale, --style full), else +- ... x us sd */
	int shown;	  /* a progress line is on the screen */
	long long last_ns;
};

/* S with what could drive a terminal shown instead: control characters
 * as \e \n \t \r \xHH, C1 controls and bytes that are not UTF-8 as
 * \xHH, invisible characters (bidi controls, zero-width ones) as \uHHHH
 * or \UHHHHHHHH, and a backslash that would read as one of these as \\:
 * the shown text reads back to S only. A newly allocated string, or NULL
 * when S needs nothing (or memory ran out). */
char *term_shown(const char *s);

/* The same with line breaks and tabs kept: for a whole message of
 * tachy's, whose lines are its own but whose names came from outside. */
char *term_shown_lines(const char *s);

/* S itself when it needs nothing, else its shown form, valid until eight
 * more calls: for names printed from a profile, a results file, argv. */
const char *term_safe(const char *s);

/* Decide colours (--color, NO_COLOR, whether stdout is a terminal), the
 * progress line (stderr is a terminal and STYLE is not none) and symbols. */
void term_init(struct term *t, enum term_color color, enum term_style style);

/* The escape sequence for NAME ("bold", "green", "red", "yellow", "cyan",
 * "dim", "reset"), or "" without colours. */
const char *term_c(const struct term *t, const char *name);

/* Whether the locale's charset is UTF-8: the first of LC_ALL, LC_CTYPE and
 * LANG that is set and not empty names one ("C.UTF-8", "en_US.utf8").
 * Without (C, POSIX, none set) tachy writes its symbols in ASCII. */
int term_utf8(void);

/* A symbol, in UTF-8 where the locale is (term_utf8()), else in ASCII:
 * "pm" (± or +-), "dots" (… or ...), "times" (× or x), "sigma" (σ or sd),
 * "le" (≤ or <=), "us" (µs or us), "inf" (∞ or inf), "arrow" (→ or ->);
 * NAME itself when unknown. Every symbol tachy writes comes from here. */
const char *term_glyph(const char *name);

/* term_glyph(NAME), or its ASCII form where T has no unicode (--style
 * basic or none). */
const char *term_sym(const struct term *t, const char *name);

/* Pick a unit for SECONDS: "s", "ms", "us", "ns" (UNIT if not NULL). */
const char *term_unit_for(double seconds, const char *unit);

/* Format SECONDS in UNIT ("s", "ms", "us", "ns") with 4 significant
 * digits and the unit ("12.34 ms"). */
void term_time(const struct term *t, char *buf, size_t size, double seconds, const char *unit);

/* Format a value of another figure with its unit ("1.83 MiB", "812"). */
void term_value(const struct term *t, char *buf, size_t size, double v, const char *unit);

/* Draw the progress line (at most ten times a second unless FORCE). */
void term_progress(struct term *t, const char *name, long k, long n, double left, double mean,
		   int force);
/* Whether term_progress() would draw now (rate limit), so callers can
 * skip computing what it shows. */
int term_progress_due(const struct term *t);
/* Erase the progress line if one is shown. */
void term_progress_clear(struct term *t);

#endif
