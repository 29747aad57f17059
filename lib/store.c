/* store.c - what a --db names, shown without its secrets (store.h).
 *
 * A PostgreSQL store is named by a URI (postgresql://, postgres://) or by
 * libpq's keyword form ("host=h dbname=d password=pw"); anything else is a
 * SQLite file. Credentials (a URI's user:PASSWORD@, a password= or
 * sslpassword= parameter of either form) never reach a message: the name
 * shown has them as "***", and every message of the server's library is
 * scrubbed of them too (libpq quotes parts of a bad connection string). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store.h"

static int
is_uri(const char *db)
{
	return strncmp(db, "postgresql://", 13) == 0 || strncmp(db, "postgres://", 11) == 0;
}

/* libpq's connection keywords (PostgreSQL 15's PQconndefaults()). */
static const char *const pq_keywords[] = {"host",
					  "hostaddr",
					  "port",
					  "dbname",
					  "user",
					  "password",
					  "passfile",
					  "channel_binding",
					  "connect_timeout",
					  "client_encoding",
					  "options",
					  "application_name",
					  "fallback_application_name",
					  "keepalives",
					  "keepalives_idle",
					  "keepalives_interval",
					  "keepalives_count",
					  "tcp_user_timeout",
					  "replication",
					  "gssencmode",
					  "sslmode",
					  "requiressl",
					  "sslcompression",
					  "sslcert",
					  "sslkey",
					  "sslpassword",
					  "sslrootcert",
					  "sslcrl",
					  "sslcrldir",
					  "sslsni",
					  "requirepeer",
					  "ssl_min_protocol_version",
					  "ssl_max_protocol_version",
					  "krbsrvname",
					  "gsslib",
					  "service",
					  "target_session_attrs",
					  "load_balance_hosts",
					  NULL};

static int
is_secret_key(const char *k, size_t n)
{
	return (n == 8 && strncmp(k, "password", 8) == 0) ||
	       (n == 11 && strncmp(k, "sslpassword", 11) == 0);
}

/* The length of the word "KEY =" at S (letters, digits, '_'), 0 when S
 * does not start with one; *KLEN is the key's length. */
static size_t
key_eq(const char *s, size_t *klen)
{
	size_t n = 0, m;

	while (isalnum((unsigned char)s[n]) || s[n] == '_')
		n++;
	if (!n)
		return 0;
	for (m = n; s[m] == ' ' || s[m] == '\t'; m++)
		;
	if (s[m] != '=')
		return 0;
	*klen = n;
	return m + 1;
}

enum ty_store_kind
ty_store_kind_of(const char *db)
{
	const char *s = db;
	size_t k, n;

	if (is_uri(db))
		return TY_STORE_PG;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!(n = key_eq(s, &k)))
		return TY_STORE_SQLITE;
	/* "host=...", or "a=b c=d": libpq's form (which then checks the keys) */
	for (const char *const *kw = pq_keywords; *kw; kw++)
		if (strlen(*kw) == k && strncmp(*kw, s, k) == 0)
			return TY_STORE_PG;
	for (s += n; *s; s++)
		if ((*s == ' ' || *s == '\t') && key_eq(s + 1, &k))
			return TY_STORE_PG;
	return TY_STORE_SQLITE;
}

/* ---- the name shown, and the secrets ---- */

struct masker {
	char *out; /* the name shown, built here */
	size_t len;
	struct ty_store *s; /* where the secrets go (may be NULL) */
	int nomem;
};

static void
put(struct masker *m, const char *p, size_t n)
{
	char *o;

	if (m->nomem)
		return;
	/* not ty_array_grow: the bytes of a short name, a piece at a time */
	if (!(o = realloc(m->out, m->len + n + 1))) {
		m->nomem = 1;
		return;
	}
	memcpy(o + m->len, p, n);
	m->out = o;
	m->len += n;
	o[m->len] = '\0';
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* P[0..N) with %XX decoded (malloc'd; a bad escape is kept as is). */
static char *
pct_decode(const char *p, size_t n)
{
	char *d = malloc(n + 1), *o = d;
	size_t i;

	if (!d)
		return NULL;
	for (i = 0; i < n; i++) {
		if (p[i] == '%' && i + 2 < n && hexval(p[i + 1]) >= 0 && hexval(p[i + 2]) >= 0) {
			*o++ = (char)(hexval(p[i + 1]) * 16 + hexval(p[i + 2]));
			i += 2;
		} else {
			*o++ = p[i];
		}
	}
	*o = '\0';
	return d;
}

/* Keep the secret P[0..N) (as written, and DECODED when it differs) for
 * scrubbing, and put "***" in its place. */
static void
secret(struct masker *m, const char *p, size_t n, const char *decoded)
{
	struct ty_store *s = m->s;
	char *raw;

	put(m, "***", 3);
	if (!s || !n)
		return;
	if (s->nsecrets < TY_STORE_SECRETS && (raw = strndup(p, n)))
		s->secrets[s->nsecrets++] = raw;
	if (decoded && *decoded && strlen(decoded) != n && s->nsecrets < TY_STORE_SECRETS &&
	    (raw = strdup(decoded)))
		s->secrets[s->nsecrets++] = raw;
}

/* The URI DB: user:PASSWORD@ and the password= parameters masked. */
static void
mask_uri(struct masker *m, const char *db)
{
	const char *p = strstr(db, "://") + 3, *auth_end, *at, *colon, *q;

	auth_end = p + strcspn(p, "/?");
	at = memchr(p, '@', (size_t)(auth_end - p));
	colon = at ? memchr(p, ':', (size_t)(at - p)) : NULL;
	if (colon) {
		char *d = pct_decode(colon + 1, (size_t)(at - colon - 1));
		put(m, db, (size_t)(colon + 1 - db));
		secret(m, colon + 1, (size_t)(at - colon - 1), d);
		free(d);
		p = at;
	} else {
		put(m, db, (size_t)(p - db));
	}
	q = strchr(p, '?');
	if (!q) {
		put(m, p, strlen(p));
		return;
	}
	put(m, p, (size_t)(q - p) + 1);
	for (p = q + 1; *p;) {
		size_t n = strcspn(p, "&"), eq = strcspn(p, "=");
		char *key = pct_decode(p, eq < n ? eq : n);
		if (key && eq < n && is_secret_key(key, strlen(key))) {
			char *d = pct_decode(p + eq + 1, n - eq - 1);
			put(m, p, eq + 1);
			secret(m, p + eq + 1, n - eq - 1, d);
			free(d);
		} else {
			put(m, p, n);
		}
		free(key);
		p += n;
		if (*p == '&')
			put(m, p++, 1);
	}
}

/* libpq's keyword form: KEY = VALUE pairs, a value bare or in single
 * quotes with backslash escapes; the password values masked. */
static void
mask_keywords(struct masker *m, const char *db)
{
	const char *p = db;

	while (*p) {
		size_t k = 0, n, i = 0;
		const char *v;
		if (isspace((unsigned char)*p)) {
			put(m, p++, 1);
			continue;
		}
		n = key_eq(p, &k);
		if (!n) { /* not keyword form after all: libpq will say so */
			n = strcspn(p, " \t\n");
			put(m, p, n);
			p += n;
			continue;
		}
		put(m, p, n);
		v = p + n;
		while (*v == ' ' || *v == '\t')
			put(m, v++, 1);
		if (*v == '\'') {
			for (i = 1; v[i] && v[i] != '\''; i++)
				if (v[i] == '\\' && v[i + 1])
					i++;
			if (v[i] == '\'')
				i++;
		} else {
			while (v[i] && !isspace((unsigned char)v[i]))
				i++;
		}
		if (is_secret_key(p, k)) {
			char *d = NULL;
			if (i >= 2 && v[0] == '\'' && v[i - 1] == '\'' &&
			    (d = strndup(v + 1, i - 2))) {
				char *r = d, *w = d;
				for (; *r; r++)
					*w++ = *r == '\\' && r[1] ? *++r : *r;
				*w = '\0';
			}
			secret(m, v, i, d);
			free(d);
		} else {
			put(m, v, i);
		}
		p = v + i;
	}
}

char *
ty_store_shown(const char *db, struct ty_store *s)
{
	struct masker m = {.s = s};

	put(&m, "", 0);
	if (is_uri(db))
		mask_uri(&m, db);
	else if (ty_store_kind_of(db) == TY_STORE_PG)
		mask_keywords(&m, db);
	else
		put(&m, db, strlen(db));
	if (m.nomem) {
		free(m.out);
		return NULL;
	}
	return m.out;
}

void
ty_store_scrub(const struct ty_store *s, char *msg, size_t size)
{
	int k;

	for (k = 0; k < s->nsecrets; k++) {
		const char *sec = s->secrets[k];
		size_t n = strlen(sec);
		char *p = msg;
		if (!n)
			continue;
		while ((p = strstr(p, sec))) {
			size_t rest = strlen(p + n) + 1;
			if (n >= 3) {
				memcpy(p, "***", 3);
				memmove(p + 3, p + n, rest);
				p += 3;
			} else if ((size_t)(p - msg) + 3 + rest <= size) {
				memmove(p + 3, p + n, rest);
				memcpy(p, "***", 3);
				p += 3;
			} else {
				memset(p, '*', n);
				p += n;
			}
		}
	}
}

void
ty_store_forget(struct ty_store *s)
{
	int k;

	for (k = 0; k < s->nsecrets; k++) {
		/* the memory goes back to malloc: leave no copy of the secret there */
		volatile char *p = s->secrets[k];
		while (*p)
			*p++ = '\0';
		free(s->secrets[k]);
	}
	s->nsecrets = 0;
	free(s->name);
	s->name = NULL;
}

/* ---- retries ---- */

void
ty_store_backoff(int attempt)
{
	static unsigned seed;
	struct timespec ts;
	long ms;

	if (!seed) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		seed = (unsigned)ts.tv_nsec ^ (unsigned)getpid();
	}
	/* 10 ms doubling per attempt up to 1 s, times a random 0.5 .. 1.5 */
	ms = 10L << (attempt < 7 ? attempt : 7);
	if (ms > 1000)
		ms = 1000;
	ms = ms / 2 + (long)(rand_r(&seed) % (unsigned)(ms + 1));
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}
