/* fuzz-dbname.c - libFuzzer target for what tachy reads from --db and
 * TACHY_DB before anything is opened (lib/store.c): which store a name is,
 * the name shown with its passwords masked, and a message scrubbed of
 * them. Nothing may crash; the name shown is never empty for a non-empty
 * name; a scrubbed message stays a string inside its buffer; a URI's or
 * keyword string's password of 3 bytes or more (without a '*') is not in
 * the scrubbed message.
 *
 *   make fuzz && build/fuzz/fuzz-dbname tests/fuzz/corpus/dbname
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ty_store s = {0};
	char *db = malloc(size + 1), *shown, msg[TY_ERROR_MAX];
	int k;

	if (!db)
		return 0;
	memcpy(db, data, size);
	db[size] = '\0';
	(void)ty_store_kind_of(db);
	shown = ty_store_shown(db, &s);
	if (shown && db[0] && !shown[0])
		abort();
	/* the name itself as a message: scrubbed, it holds no secret */
	snprintf(msg, sizeof(msg), "%s", db);
	ty_store_scrub(&s, msg, sizeof(msg));
	if (memchr(msg, '\0', sizeof(msg)) == NULL)
		abort();
	for (k = 0; k < s.nsecrets; k++)
		if (strlen(s.secrets[k]) >= 3 && !strchr(s.secrets[k], '*') &&
		    strlen(db) < sizeof(msg) && strstr(msg, s.secrets[k]))
			abort();
	free(shown);
	ty_store_forget(&s);
	free(db);
	return 0;
}
