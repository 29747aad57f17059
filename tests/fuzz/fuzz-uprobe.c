/* fuzz-uprobe.c - libFuzzer target for the reader of uprobe_events' lines
 * (record --calls's sweep of the probes of tachys that are gone): every
 * input is taken or not; a line taken names tachy_PID/EVENT within the
 * line and the room given, PID positive. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/calls.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[32], *line = malloc(size ? size : 1);
	pid_t pid;

	if (!line)
		return 0;
	memcpy(line, data, size); /* not terminated: LEN alone bounds the read */
	memset(name, 'Z', sizeof(name));
	pid = ty_calls_probe_pid(line, size, name, sizeof(name));
	if (pid < 0)
		abort();
	if (pid > 0 && (memchr(name, '\0', sizeof(name)) == NULL ||
			strncmp(name, "tachy_", 6) != 0 || !strchr(name, '/') ||
			strlen(name) + 2 > size || memcmp(name, line + 2, strlen(name)) != 0))
		abort();
	free(line);
	return 0;
}
