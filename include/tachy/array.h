/* array.h - the one growing-array helper of libtachy, and the one map of
 * 64-bit keys to 32-bit indexes (open addressing) that its users index
 * their arrays with.
 *
 * An array is a pointer, a count kept by the caller and a capacity kept
 * here; ty_array_grow makes room for NEED elements, doubling the capacity
 * (16 at first) so that appending one at a time costs O(1) amortised. */
#ifndef TACHY_ARRAY_H
#define TACHY_ARRAY_H

#include <stddef.h>
#include <stdint.h>

/* Make the array *PP (of elements ELEM bytes each, *CAP allocated) hold at
 * least NEED elements. PP is the address of the array pointer (any pointer
 * type: void ** in disguise). Returns 0, or -ENOMEM (the array and *CAP are
 * then left as they were; the caller still owns and frees *PP). */
int ty_array_grow(void *pp, size_t elem, size_t need, size_t *cap);

/* ty_array_grow for an array whose capacity is a uint32_t: NEED must stay
 * below UINT32_MAX (else -ENOMEM). */
int ty_array_grow32(void *pp, size_t elem, size_t need, uint32_t *cap);

/* Give the heap's free pages back to the kernel (glibc's malloc_trim;
 * nothing elsewhere): after a phase that let go of much, so that the peak
 * of the next is not stacked on the last one's leftovers. */
void ty_array_trim(void);

/* FNV-1a of P[N] continued from H (0 to start): the key of a string or a
 * record in a hash table. */
uint64_t ty_array_hash(const void *p, size_t n, uint64_t h);

/* KEY -> index; zero-initialised is empty. */
struct ty_idmap {
	uint64_t *k;
	uint32_t *v;
	size_t cap, n;
};

#define TY_IDMAP_NONE 0xffffffffu /* the value of a slot not set yet */

/* The value slot of KEY in M: TY_IDMAP_NONE when KEY is new (set it),
 * NULL when out of memory (M is then unchanged). */
uint32_t *ty_idmap_get(struct ty_idmap *m, uint64_t key);
/* The value of KEY in M, TY_IDMAP_NONE when it has none (M unchanged). */
uint32_t ty_idmap_find(const struct ty_idmap *m, uint64_t key);
/* Free M's memory; M is empty again. */
void ty_idmap_release(struct ty_idmap *m);

#endif
