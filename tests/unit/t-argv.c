/* t-argv.c - command strings and words: splitting as sh splits (against
 * dash where it is installed), the refusals that need --shell, quoting
 * on join, and join/split round trips. */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "tachy/argv.h"

static void
check_split(const char *s, int n, const char *joined)
{
	struct ty_error e;
	char **v = NULL, buf[256] = "";
	int got = ty_argv_split(s, &v, &e), i;

	CHECK_INT(got, n);
	if (got < 0)
		return;
	for (i = 0; i < got; i++) {
		strcat(buf, i ? "|" : "");
		strcat(buf, v[i]);
	}
	CHECK(v[got] == NULL);
	CHECK_STR(buf, joined);
	free(v);
}

static void
test_split(void)
{
	struct ty_error e;
	char **v;

	check_split("sleep 0.1", 2, "sleep|0.1");
	check_split("  a\tb  c  \n\n", 3, "a|b|c");
	check_split("echo 'a b' \"c d\"", 3, "echo|a b|c d");
	check_split("echo a\\ b", 2, "echo|a b");
	check_split("echo 'it''s'", 2, "echo|its");
	check_split("echo \"a\\\"b\\\\c\\d\"", 2, "echo|a\"b\\c\\d");
	check_split("echo '' x", 3, "echo||x");
	check_split("awk '{print $1}' f", 3, "awk|{print $1}|f");
	check_split("echo \"a|b\" 'c;d'", 3, "echo|a|b|c;d");
	check_split("a\\\nb", 1, "ab");
	check_split("\\FOO=1 x", 2, "FOO=1|x"); /* a quoted '=': not an assignment */
	check_split("'A'=1 x", 2, "A=1|x");
	check_split("x A=1", 2, "x|A=1");
	CHECK_INT(ty_argv_split("", &v, &e), -EINVAL);
	CHECK_INT(ty_argv_split("   ", &v, &e), -EINVAL);
	CHECK_INT(ty_argv_split("echo 'x", &v, &e), -EINVAL);
	CHECK(strstr(e.msg, "unterminated single quote") != NULL);
	CHECK_INT(ty_argv_split("echo \"x", &v, &e), -EINVAL);
	CHECK_INT(ty_argv_split("ls | wc", &v, &e), -EINVAL);
	CHECK(strstr(e.msg, "--shell") != NULL);
	CHECK_INT(ty_argv_split("a && b", &v, &e), -EINVAL);
	CHECK_INT(ty_argv_split("a > f", &v, &e), -EINVAL);
	CHECK_INT(ty_argv_split("echo $HOME", &v, &e), -EINVAL);
	CHECK_INT(ty_argv_split("echo \"$HOME\"", &v, &e), -EINVAL);
	CHECK_INT(ty_argv_split("echo `x`", &v, &e), -EINVAL);
	/* globs, a leading ~ and an assignment: the same hint as '|' */
	CHECK_INT(ty_argv_split("ls *.c", &v, &e), -EINVAL);
	CHECK_STR(e.msg, "cannot split command 'ls *.c': '*' is shell syntax, and commands run "
			 "without a shell: quote it or run it with a shell, --shell sh");
	CHECK_INT(ty_argv_split("ls a?", &v, &e), -EINVAL);
	CHECK_INT(ty_argv_split("ls [ab]", &v, &e), -EINVAL);
	CHECK_INT(ty_argv_split("cat ~/x", &v, &e), -EINVAL);
	CHECK_STR(e.msg, "cannot split command 'cat ~/x': '~' is shell syntax, and commands run "
			 "without a shell: quote it or run it with a shell, --shell sh");
	CHECK_INT(ty_argv_split("LC_ALL=C sort f", &v, &e), -EINVAL);
	CHECK_STR(e.msg,
		  "cannot split command 'LC_ALL=C sort f': 'LC_ALL=C' is shell syntax, and "
		  "commands run without a shell: run it with env or with a shell, --shell sh");
	check_split("env LC_ALL=C sort", 3, "env|LC_ALL=C|sort"); /* an argument, not the first */
	check_split("test [ -f x", 4, "test|[|-f|x");
	check_split("echo '*' \\? \"~\" a~b", 5, "echo|*|?|~|a~b");
	check_split("=x 1=y", 2, "=x|1=y");
	check_split("[ -f x ]", 4, "[|-f|x|]");
}

/* What dash makes of S: the words its `show` (a script in DIR printing
 * each argument as <ARG>) prints, into OUT; -1 when dash could not run. */
static int
dash_words(const char *dir, const char *s, char *out, size_t size)
{
	int fd[2], status;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	if (pipe(fd) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char path[4400];
		snprintf(path, sizeof(path), "%s:%s", dir,
			 getenv("PATH") ? getenv("PATH") : "/bin");
		setenv("PATH", path, 1);
		dup2(fd[1], 1);
		close(fd[0]);
		execlp("dash", "dash", "-c", s, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while (n + 1 < size && (r = read(fd[0], out + n, size - n - 1)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	close(fd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return 0;
}

/* The splitter against dash on a corpus: what tachy accepts without
 * --shell gives the words sh gives; what needs a shell is refused. */
static void
test_split_dash(void)
{
	static const char *const same[] = {
	    "show a b",
	    "show \\\n  /tmp",
	    "show a\\\nb",
	    "show # note",
	    "show a#b \\#c '#d' \"#e\"",
	    "# comment\nshow x",
	    "\n\nshow x\n\n",
	    "show 'a b' \"c d\" e\\ f",
	    "show \"a\\\"b\\\\c\\d\\$e\\`f\"",
	    "show '' \"\" x",
	    "show 'it''s'",
	    "show \"line\nbreak\" 'two\nlines'",
	    "show \"a\\\nb\"",
	    "show x\\",
	    "show [ a ] a]b {a,b} %x ^y a=b x~y",
	    "show --opt=val -- -n",
	    "show 'a*b' \"?\" \\* \\[x] '~'",
	    "  show\ta\t\tb  ",
	    "show \\\n# a comment after all",
	    "'show' x",
	    "\"sh\"ow x",
	    "show \\'x\\' \\\"y",
	    "show a\\ \\ b",
	    "show \xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac",
	    "sh\\\now x",
	    "show 'if' \"then\" fi { } !",
	    "show FOO=1",
	    "show \\\n\\\n x",
	    "show\\\n",
	    "show 'a\\b' \"\\n\"",
	    "show # ; | & $x `y` *",
	    "show a\\\n#b",
	    "show \t\\\t x",
	};
	static const char *const refused[] = {
	    "show *.c",	      "show a?b",	  "show [ab]",
	    "show ~",	      "show ~/x",	  "FOO=1 show",
	    "_a1=x show",     "show a | b",	  "show a; b",
	    "show a && b",    "show > f",	  "show 2>f",
	    "show < f",	      "show &",		  "show $HOME",
	    "show \"$x\"",    "show `x`",	  "show \"`x`\"",
	    "show $(x)",      "show (x)",	  "if show; then :; fi",
	    "! show",	      "{ show; }",	  "while x",
	    "show a\nshow b", "show # c\nshow d", "show a \\\n\nshow b",
	};
	char dir[] = "/tmp/t-split-XXXXXX", script[64], want[4096], got[4096];
	struct ty_error e;
	size_t i, bad = 0;
	char **v;
	int n, k;
	FILE *fp;

	if (system("command -v dash >/dev/null 2>&1") != 0) {
		printf("# skip: no dash to compare the splitter with\n");
		return;
	}
	if (!mkdtemp(dir))
		return;
	snprintf(script, sizeof(script), "%s/show", dir);
	fp = fopen(script, "w");
	CHECK(fp != NULL);
	if (!fp)
		return;
	fputs("#!/bin/sh\nfor a in \"$@\"; do printf '<%s>\\n' \"$a\"; done\n", fp);
	fclose(fp);
	chmod(script, 0755);
	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		n = ty_argv_split(same[i], &v, &e);
		if (n < 1) {
			printf("     refused: [%s]: %s\n", same[i], e.msg);
			bad++;
			continue;
		}
		want[0] = '\0';
		for (k = 1; k < n; k++)
			snprintf(want + strlen(want), sizeof(want) - strlen(want), "<%s>\n", v[k]);
		if (strcmp(v[0], "show") != 0 || dash_words(dir, same[i], got, sizeof(got)) < 0 ||
		    strcmp(got, want) != 0) {
			printf("     differs: [%s]: tachy %s [%s], dash [%s]\n", same[i], v[0],
			       want, got);
			bad++;
		}
		free(v);
	}
	CHECK_INT(bad, 0);
	for (i = 0, bad = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		n = ty_argv_split(refused[i], &v, &e);
		if (n >= 0 || !strstr(e.msg, "--shell")) {
			printf("     not refused: [%s] (%d) %s\n", refused[i], n,
			       n < 0 ? e.msg : "");
			bad++;
			if (n >= 0)
				free(v);
		}
	}
	CHECK_INT(bad, 0);
	unlink(script);
	rmdir(dir);
}

/* Random words: join then split gives them back; random strings never
 * crash the splitter (it splits them or says why not). */
static void
test_join_split_random(void)
{
	static const char alphabet[] = "ab '\"\\|$`;&<>()~#*\n\t=%,";
	struct ty_error e;
	unsigned seed = 12345;
	int round, ok_trip = 1, ok_fuzz = 1;

	for (round = 0; round < 2000; round++) {
		char words[4][12], *argv[5], *joined, **back = NULL, text[24];
		int n = 1 + round % 4, i, j, got;

		for (i = 0; i < n; i++) {
			int len = (int)((seed = seed * 1103515245 + 12345) >> 16) % 11;
			for (j = 0; j < len; j++) {
				seed = seed * 1103515245 + 12345;
				words[i][j] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
			}
			words[i][len] = '\0';
			argv[i] = words[i];
		}
		argv[n] = NULL;
		joined = ty_argv_join(argv, (size_t)n);
		got = ty_argv_split(joined, &back, &e);
		if (got != n) {
			ok_trip = 0;
		} else {
			for (i = 0; i < n; i++)
				if (strcmp(back[i], argv[i]) != 0)
					ok_trip = 0;
			free(back);
		}
		free(joined);
		for (j = 0; j < (int)sizeof(text) - 1; j++) {
			seed = seed * 1103515245 + 12345;
			text[j] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
		}
		text[(round * 7) % (int)sizeof(text)] = '\0';
		text[sizeof(text) - 1] = '\0';
		back = NULL;
		got = ty_argv_split(text, &back, &e);
		if (got > 0) {
			if (back[got] != NULL)
				ok_fuzz = 0;
			free(back);
		} else if (got != -EINVAL || e.msg[0] == '\0') {
			ok_fuzz = 0;
		}
	}
	CHECK(ok_trip);
	CHECK(ok_fuzz);
}

/* Join quotes exactly what sh would read otherwise: plain words as they
 * are, the rest in single quotes (a quote inside as '\''). */
static void
test_join(void)
{
	char *a[] = {"grep", "-n", "a b", "", "it's", "$HOME", "x=1", "\n", NULL};
	char *b[] = {"A=1", "x", NULL};
	char *c[] = {"if", "then", NULL};
	char *s;

	s = ty_argv_join(a, 8);
	CHECK_STR(s, "grep -n 'a b' '' 'it'\\''s' '$HOME' x=1 '\n'");
	free(s);
	s = ty_argv_join(b, 2); /* first: an assignment to sh */
	CHECK_STR(s, "'A=1' x");
	free(s);
	s = ty_argv_join(c, 2); /* first: a reserved word to sh */
	CHECK_STR(s, "'if' then");
	free(s);
	s = ty_argv_join(a, 0);
	CHECK_STR(s, "");
	free(s);
}

/* Words that need every kind of quoting come back from join then split. */
static void
test_round_trip(void)
{
	char *words[] = {"prog", "'", "\"", "\\", "a b\tc", "", "*", "~x", "#c", "a\nb", "é", NULL};
	char **back = NULL, *joined;
	struct ty_error e;
	int n = 11, i;

	joined = ty_argv_join(words, (size_t)n);
	CHECK(joined != NULL);
	if (!joined)
		return;
	CHECK_INT(ty_argv_split(joined, &back, &e), n);
	for (i = 0; back && i < n; i++)
		CHECK_STR(back[i], words[i]);
	CHECK(back && back[n] == NULL);
	free(back);
	free(joined);
}

/* Escapes: a backslash quotes the next character outside quotes, only
 * $ ` " \ and a newline inside double quotes, nothing inside single. */
static void
test_escapes(void)
{
	check_split("a \\$x \\\"y\\\" \\'z\\'", 4, "a|$x|\"y\"|'z'");
	check_split("a \"\\$x \\` \\a\"", 2, "a|$x ` \\a");
	check_split("a '\\n\\\\'", 2, "a|\\n\\\\");
	check_split("a b\\", 2, "a|b\\");
}

static void
test_shell_argv(void)
{
	struct ty_error e;
	char **v = NULL;

	CHECK_INT(ty_argv_shell("bash --norc", "echo 'a b'", &v, &e), 4);
	CHECK_STR(v[0], "bash");
	CHECK_STR(v[1], "--norc");
	CHECK_STR(v[2], "-c");
	CHECK_STR(v[3], "echo 'a b'");
	CHECK(v[4] == NULL);
	free(v);
	CHECK_INT(ty_argv_shell("sh", "", &v, &e), 3);
	CHECK_STR(v[2], "");
	free(v);
	CHECK_INT(ty_argv_shell("sh |", "x", &v, &e), -EINVAL);
	CHECK(strstr(e.msg, "cannot use 'sh |' as the shell") != NULL);
}

int
main(void)
{
	test_split();
	test_escapes();
	test_split_dash();
	test_join();
	test_round_trip();
	test_join_split_random();
	test_shell_argv();
	return check_done();
}
