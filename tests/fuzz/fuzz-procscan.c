/* fuzz-procscan.c - libFuzzer target for the /proc readers: the input is
 * tried as a stat line and as maps text. Every input is accepted or
 * refused; kept mappings are executable, with an end above their start. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/procscan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ty_proc p;
	size_t i;

	memset(&p, 0, sizeof(p));
	if (ty_procscan_parse_stat((const char *)data, size, &p) == 0 &&
	    strlen(p.comm) >= TY_PROC_COMM)
		abort();
	memset(&p, 0, sizeof(p));
	if (ty_procscan_parse_maps((const char *)data, size, &p) >= 0)
		for (i = 0; i < p.nmaps; i++)
			if (p.maps[i].end <= p.maps[i].start ||
			    (p.maps[i].kind == TY_PMAP_ANON) != (p.maps[i].path == NULL))
				abort();
	for (i = 0; i < p.nmaps; i++)
		free(p.maps[i].path);
	free(p.maps);
	return 0;
}
