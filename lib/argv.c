/* argv.c - command strings and words: sh-exact word splitting, and the
 * quoting that joins words back into a string sh splits the same way. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/argv.h"

/* Words as POSIX sh tokenizes them (XCU 2.3): blanks separate words, a
 * backslash-newline is removed wherever it is (a line continuation, also
 * between words and inside double quotes), '#' at the start of a word
 * begins a comment up to the end of the line, quotes and backslashes
 * quote as in sh (a backslash at the very end stays, as dash keeps it).
 * What the shell would give a meaning we do not (operators, expansions,
 * patterns, a leading ~, assignments and reserved words as the first
 * word, a line break between two commands) is refused with the --shell
 * hint: the same string then runs exactly as sh runs it. */

struct splitter {
	const char *s;
	char *out;    /* bytes, NULL on the counting pass */
	char **words; /* NULL on the counting pass */
	size_t nb, nw;
	struct ty_error *e;
};

static int
split_error(const struct splitter *sp, const char *why)
{
	return ty_error_set(sp->e, -EINVAL, "cannot split command '%s': %s", sp->s, why);
}

static int
needs_shell_hint(const struct splitter *sp, const char *what, const char *hint)
{
	char why[200];

	snprintf(why, sizeof(why), "%s is shell syntax, and commands run without a shell: %s", what,
		 hint);
	return split_error(sp, why);
}

static int
needs_shell(const struct splitter *sp, const char *what)
{
	return needs_shell_hint(sp, what, "quote it or run it with a shell, --shell sh");
}

static void
put(struct splitter *sp, char c)
{
	if (sp->out)
		sp->out[sp->nb] = c;
	sp->nb++;
}

/* A '[' at P opens a pattern when a ']' follows in the same word. */
static int
opens_pattern(const char *p)
{
	for (p++; *p && !strchr(" \t\n", *p); p++)
		if (*p == ']')
			return 1;
	return 0;
}

static int
is_reserved(const char *w, size_t n)
{
	static const char *const words[] = {"!",    "{",    "}",     "case", "do",  "done",
					    "elif", "else", "esac",  "fi",   "for", "if",
					    "in",   "then", "until", "while"};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && memcmp(w, words[i], n) == 0)
			return 1;
	return 0;
}

/* The rest of a double-quoted string after its opening quote at *P. */
static int
split_dquote(struct splitter *sp, const char **pp)
{
	const char *p = *pp + 1;

	for (; *p != '"'; p++) {
		if (!*p)
			return split_error(sp, "unterminated double quote");
		if (*p == '\\' && p[1] && strchr("$`\"\\\n", p[1])) {
			if (*++p == '\n')
				continue;
		} else if (*p == '$' || *p == '`') {
			return needs_shell(sp, *p == '$' ? "'$'" : "'`'");
		}
		put(sp, *p);
	}
	*pp = p + 1;
	return 0;
}

/* One pass: count words and bytes (SP->out NULL) or write them. */
static int
split_pass(struct splitter *sp)
{
	const char *p = sp->s, *q, *raw = p;
	int in_word = 0, quoted = 0, name = 0, assign_ok = 1, line_ended = 0, rc;
	size_t start = 0;
	char c, what[48];

	sp->nb = sp->nw = 0;
	for (;;) {
		c = *p;
		if (c == '\\' && p[1] == '\n') { /* a line continuation */
			p += 2;
			continue;
		}
		if (c == '\0' || c == ' ' || c == '\t' || c == '\n') {
			if (in_word) {
				put(sp, '\0');
				in_word = 0;
				if (sp->nw == 1 && !quoted && is_reserved(raw, (size_t)(p - raw))) {
					snprintf(what, sizeof(what), "'%.*s' (a reserved word)",
						 (int)(p - raw), raw);
					return needs_shell(sp, what);
				}
				assign_ok = 0;
			}
			if (c == '\n' && sp->nw > 0)
				line_ended = 1;
			if (c == '\0')
				break;
			p++;
			continue;
		}
		if (!in_word) {
			if (c == '#') { /* a comment, to the end of the line */
				while (*p && *p != '\n')
					p++;
				continue;
			}
			if (line_ended)
				return needs_shell(sp, "a line break between two commands");
			if (c == '~')
				return needs_shell(sp, "'~'");
			if (sp->words)
				sp->words[sp->nw] = sp->out + sp->nb;
			start = sp->nb;
			raw = p;
			sp->nw++;
			in_word = 1;
			quoted = 0;
			name = 0;
		}
		if (c == '\'') {
			if (!(q = strchr(p + 1, '\'')))
				return split_error(sp, "unterminated single quote");
			for (p++; p < q; p++)
				put(sp, *p);
			p++;
			quoted = 1;
		} else if (c == '"') {
			if ((rc = split_dquote(sp, &p)) < 0)
				return rc;
			quoted = 1;
		} else if (c == '\\') {
			if (p[1]) /* else a backslash at the end is itself, as in dash */
				p++;
			put(sp, *p++);
			quoted = 1;
		} else if (strchr("|&;<>()", c)) {
			snprintf(what, sizeof(what), "'%c'", c);
			return needs_shell(sp, what);
		} else if (c == '$' || c == '`') {
			return needs_shell(sp, c == '$' ? "'$'" : "'`'");
		} else if (c == '*' || c == '?' || (c == '[' && opens_pattern(p))) {
			snprintf(what, sizeof(what), "'%c'", c);
			return needs_shell(sp, what);
		} else {
			/* NAME=... before any other word is an assignment. */
			if (c == '=' && assign_ok && !quoted && name > 0 &&
			    name == (int)(sp->nb - start)) {
				snprintf(what, sizeof(what), "'%.*s", 40, raw);
				what[strcspn(what + 1, " \t\n") + 1] = '\0';
				strcat(what, "'");
				return needs_shell_hint(
				    sp, what, "run it with env or with a shell, --shell sh");
			}
			if (!quoted && name == (int)(sp->nb - start) &&
			    (c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			     (name > 0 && c >= '0' && c <= '9')))
				name++;
			put(sp, c);
			p++;
		}
	}
	return (int)sp->nw;
}

int
ty_argv_split(const char *s, char ***argv, struct ty_error *e)
{
	struct splitter sp = {.s = s, .e = e};
	int nw;
	char **v;

	nw = split_pass(&sp);
	if (nw < 0)
		return nw;
	if (nw == 0)
		return ty_error_set(e, -EINVAL, "cannot run an empty command");
	v = malloc((size_t)(nw + 1) * sizeof(char *) + sp.nb + 1);
	if (!v)
		return ty_error_set(e, -ENOMEM, "out of memory");
	sp.out = (char *)(v + nw + 1);
	sp.words = v;
	if (split_pass(&sp) != nw) { /* cannot happen: the same pass twice */
		free(v);
		return ty_error_set(e, -EINVAL, "cannot split command '%s'", s);
	}
	v[nw] = NULL;
	*argv = v;
	return nw;
}

char *
ty_argv_join(char *const *argv, size_t argc)
{
	size_t len = 1, k;
	char *s, *p;
	const char *q;

	for (k = 0; k < argc; k++)
		len += 4 * strlen(argv[k]) + 3;
	p = s = malloc(len);
	for (k = 0; s && k < argc; k++) {
		int plain =
		    argv[k][0] != '\0' &&
		    strspn(argv[k], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				    "0123456789_./:=,+-@%^") == strlen(argv[k]) &&
		    /* NAME=x or a reserved word first would be sh syntax */
		    !(k == 0 && (strchr(argv[k], '=') || is_reserved(argv[k], strlen(argv[k]))));
		if (k)
			*p++ = ' ';
		if (plain) {
			p = stpcpy(p, argv[k]);
			continue;
		}
		*p++ = '\'';
		for (q = argv[k]; *q; q++)
			if (*q == '\'')
				p = stpcpy(p, "'\\''");
			else
				*p++ = *q;
		*p++ = '\'';
	}
	if (s)
		*p = '\0';
	return s;
}

int
ty_argv_shell(const char *shell, const char *text, char ***argv, struct ty_error *e)
{
	char **w, **v, *p;
	size_t len = strlen(text) + 4, n, k;
	int nw = ty_argv_split(shell, &w, e);

	if (nw < 0)
		return ty_error_set(e, nw, "cannot use '%s' as the shell: %s", shell,
				    nw == -EINVAL ? "give a program and its options, such as "
						    "'bash --norc'"
						  : "out of memory");
	n = (size_t)nw;
	for (k = 0; k < n; k++)
		len += strlen(w[k]) + 1;
	v = malloc((n + 3) * sizeof(char *) + len);
	if (!v) {
		free(w);
		return ty_error_set(e, -ENOMEM, "out of memory");
	}
	p = (char *)(v + n + 3);
	for (k = 0; k < n; k++) {
		v[k] = p;
		p = stpcpy(p, w[k]) + 1;
	}
	v[n] = p;
	p = stpcpy(p, "-c") + 1;
	v[n + 1] = p;
	strcpy(p, text);
	v[n + 2] = NULL;
	free(w);
	*argv = v;
	return nw + 2;
}
