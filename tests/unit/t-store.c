/* t-store.c - lib/store.c: which store a --db names, and the name shown
 * without its secrets (a URI's password, password= and sslpassword= in a
 * URI's query or libpq's keyword form), and messages scrubbed of them. */
#include <stdlib.h>
#include <string.h>

#include "../../lib/store.h"
#include "check.h"

static void
shown(const char *db, const char *want, int nsecrets)
{
	struct ty_store s = {0};
	char *got = ty_store_shown(db, &s);

	CHECK_STR(got, want);
	CHECK_INT(s.nsecrets, nsecrets);
	free(got);
	s.name = NULL;
	ty_store_forget(&s);
}

static void
test_kind(void)
{
	CHECK_INT(ty_store_kind_of("postgresql://h/db"), TY_STORE_PG);
	CHECK_INT(ty_store_kind_of("postgres:///db?host=/tmp"), TY_STORE_PG);
	CHECK_INT(ty_store_kind_of("host=h dbname=d"), TY_STORE_PG);
	CHECK_INT(ty_store_kind_of("  dbname = d"), TY_STORE_PG);
	CHECK_INT(ty_store_kind_of("password=pw"), TY_STORE_PG);
	/* unknown keys in a keyword string: libpq's form all the same (it says which) */
	CHECK_INT(ty_store_kind_of("hots=h pasword=pw"), TY_STORE_PG);
	CHECK_INT(ty_store_kind_of("history.db"), TY_STORE_SQLITE);
	CHECK_INT(ty_store_kind_of("./host=h.db"), TY_STORE_SQLITE);
	CHECK_INT(ty_store_kind_of("/tmp/a=b"), TY_STORE_SQLITE);
	CHECK_INT(ty_store_kind_of("a=b"), TY_STORE_SQLITE);
	CHECK_INT(ty_store_kind_of("sqlite://x"), TY_STORE_SQLITE);
	CHECK_INT(ty_store_kind_of(""), TY_STORE_SQLITE);
}

static void
test_shown(void)
{
	shown("history.db", "history.db", 0);
	shown("postgresql://u@h/db", "postgresql://u@h/db", 0);
	shown("postgresql://u:pw@h/db", "postgresql://u:***@h/db", 1);
	shown("postgresql://u:p%40w@h/db", "postgresql://u:***@h/db", 2);
	shown("postgresql://u@h/db?password=pw", "postgresql://u@h/db?password=***", 1);
	shown("postgresql://u@h/db?sslmode=require&password=pw&port=5",
	      "postgresql://u@h/db?sslmode=require&password=***&port=5", 1);
	shown("postgres:///db?pass%77ord=pw&sslpassword=k",
	      "postgres:///db?pass%77ord=***&sslpassword=***", 2);
	shown("postgresql://u:a@h/db?password=b", "postgresql://u:***@h/db?password=***", 2);
	shown("postgresql://h?password", "postgresql://h?password", 0);
	shown("postgresql://h?password=", "postgresql://h?password=***", 0);
	shown("host=h password=pw dbname=d", "host=h password=*** dbname=d", 1);
	shown("host=h password = 'p w\\'x' dbname=d", "host=h password = *** dbname=d", 2);
	shown("password='unterminated", "password=***", 1);
	shown("hots=h password=pw", "hots=h password=***", 1);
}

static void
test_scrub(void)
{
	struct ty_store s = {0};
	char msg[64];

	free(ty_store_shown("postgresql://u:s3cr@h/db?password=x", &s));
	snprintf(msg, sizeof(msg), "bad token \"s3cr\" and x");
	ty_store_scrub(&s, msg, sizeof(msg));
	CHECK_STR(msg, "bad token \"***\" and ***");
	/* a message at its full size: the secret still goes */
	memset(msg, 'a', sizeof(msg) - 2);
	msg[sizeof(msg) - 2] = 'x';
	msg[sizeof(msg) - 1] = '\0';
	ty_store_scrub(&s, msg, sizeof(msg));
	CHECK(strchr(msg, 'x') == NULL);
	ty_store_forget(&s);
}

int
main(void)
{
	test_kind();
	test_shown();
	test_scrub();
	return check_done();
}
