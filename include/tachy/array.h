/* array.h - the one growing-array helper of libtachy.
 *
 * An array is a pointer, a count kept by the caller and a capacity kept
 * here; ty_array_grow makes room for NEED elements, doubling the capacity
 * (16 at first) so that appending one at a time costs O(1) amortised. */
#ifndef TACHY_ARRAY_H
#define TACHY_ARRAY_H

#include <stddef.h>

/* Make the array *PP (of elements ELEM bytes each, *CAP allocated) hold at
 * least NEED elements. PP is the address of the array pointer (any pointer
 * type: void ** in disguise). Returns 0, or -ENOMEM (the array and *CAP are
 * then left as they were; the caller still owns and frees *PP). */
int ty_array_grow(void *pp, size_t elem, size_t need, size_t *cap);

#endif
