/* fuzz-events.c - libFuzzer target for event names (lib/events.c): a list
 * as -e takes it ("cycles,{instructions,branches}:u,r01c2,cpu/event=1/")
 * and each name alone. Every input is taken or refused with a message;
 * a refused list leaves the list as it was.
 *
 *   make fuzz && build/fuzz/fuzz-events tests/fuzz/corpus/events
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ty_event_list l;
	struct ty_event ev;
	struct ty_error e = {0};
	char *text = malloc(size + 1);
	size_t before, i;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	ty_event_list_init(&l);
	if (ty_event_list_add(&l, "task-clock", &e) < 0)
		abort();
	before = l.n;
	if (ty_event_list_add(&l, text, &e) < 0) {
		if (!e.msg[0] || l.n != before)
			abort();
	} else {
		for (i = 0; i < l.n; i++)
			if (!memchr(l.ev[i].name, '\0', sizeof(l.ev[i].name)))
				abort();
	}
	e.msg[0] = '\0';
	if (ty_event_parse(text, &ev, &e) < 0 && !e.msg[0])
		abort();
	ty_event_list_release(&l);
	free(text);
	return 0;
}
