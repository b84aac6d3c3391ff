/*
 * fw_bitset.h - fixed-size bitsets for node sets.
 *
 * Every node set in the core (partition members, islands, free nodes of a
 * timeline segment, a job's allocation) is a fw_bitset: a length in bits
 * and an array of 64-bit words.  Bits past nbits in the last word are kept
 * zero by every operation, so word-wise counting never needs a mask.
 *
 * Binary operations require both operands to have the same nbits (checked
 * with an abort: mixing node sets of two different clusters is a bug, not
 * an input error).
 */
#ifndef FW_BITSET_H
#define FW_BITSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fw_bitset {
	uint32_t nbits;
	uint32_t nwords;
	uint64_t *w;
};

#define FW_BITSET_WORDS(nbits) (((size_t)(nbits) + 63) / 64)

/*
 * Population count of one word.  With -mpopcnt (or -march=native) this is
 * one instruction; otherwise the SWAR form below, which is still branch
 * free and much faster than the libgcc table call __builtin_popcountll
 * would otherwise become.
 */
static inline unsigned fw_popcount64(uint64_t x)
{
#if defined(__POPCNT__) && defined(__GNUC__)
	return (unsigned)__builtin_popcountll(x);
#else
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (unsigned)((x * 0x0101010101010101ULL) >> 56);
#endif
}

/* Number of bits needed for x: 0 for 0, 64 - leading zeros otherwise. */
static inline unsigned fw_bitlen64(uint64_t x)
{
#if defined(__GNUC__)
	return x ? 64 - (unsigned)__builtin_clzll(x) : 0;
#else
	unsigned n = 0;

	for (; x; x >>= 1)
		n++;
	return n;
#endif
}

/* Index of the lowest set bit of a non-zero word. */
static inline unsigned fw_ctz64(uint64_t x)
{
#if defined(__GNUC__)
	return (unsigned)__builtin_ctzll(x);
#else
	unsigned n = 0;

	while (!(x & 1)) {
		x >>= 1;
		n++;
	}
	return n;
#endif
}

struct fw_bitset *fw_bitset_new(uint32_t nbits);
struct fw_bitset *fw_bitset_dup(const struct fw_bitset *b);
void fw_bitset_free(struct fw_bitset *b);

static inline void fw_bitset_set(struct fw_bitset *b, uint32_t i)
{
	b->w[i >> 6] |= (uint64_t)1 << (i & 63);
}

static inline void fw_bitset_clear(struct fw_bitset *b, uint32_t i)
{
	b->w[i >> 6] &= ~((uint64_t)1 << (i & 63));
}

static inline bool fw_bitset_test(const struct fw_bitset *b, uint32_t i)
{
	return (b->w[i >> 6] >> (i & 63)) & 1;
}

void fw_bitset_clear_all(struct fw_bitset *b);
void fw_bitset_set_all(struct fw_bitset *b);
/* Set bits [lo, hi). */
void fw_bitset_set_range(struct fw_bitset *b, uint32_t lo, uint32_t hi);
void fw_bitset_copy(struct fw_bitset *dst, const struct fw_bitset *src);

/* dst &= src, dst &= ~src, dst |= src. */
void fw_bitset_and(struct fw_bitset *dst, const struct fw_bitset *src);
void fw_bitset_andnot(struct fw_bitset *dst, const struct fw_bitset *src);
void fw_bitset_or(struct fw_bitset *dst, const struct fw_bitset *src);
/* dst = ~dst (within nbits). */
void fw_bitset_not(struct fw_bitset *dst);

uint32_t fw_bitset_count(const struct fw_bitset *b);
/* Number of set bits with index in [lo, hi). */
uint32_t fw_bitset_count_range(const struct fw_bitset *b, uint32_t lo,
			       uint32_t hi);
/* popcount(a & b) without building the intersection. */
uint32_t fw_bitset_count_and(const struct fw_bitset *a,
			     const struct fw_bitset *b);
bool fw_bitset_any(const struct fw_bitset *b);
bool fw_bitset_intersects(const struct fw_bitset *a, const struct fw_bitset *b);
/* Every bit of sub is also set in super. */
bool fw_bitset_is_subset(const struct fw_bitset *sub,
			 const struct fw_bitset *super);
bool fw_bitset_equal(const struct fw_bitset *a, const struct fw_bitset *b);

/* Lowest set bit with index >= from, or -1. */
int64_t fw_bitset_next_set(const struct fw_bitset *b, uint32_t from);
static inline int64_t fw_bitset_first_set(const struct fw_bitset *b)
{
	return fw_bitset_next_set(b, 0);
}
/* Index of the n-th set bit (n counts from 0), or -1. */
int64_t fw_bitset_nth_set(const struct fw_bitset *b, uint32_t n);
/* Keep only the lowest n set bits; returns how many are kept. */
uint32_t fw_bitset_keep_lowest(struct fw_bitset *b, uint32_t n);
/*
 * [*lo, *hi) = smallest word range holding every set bit (both 0 for an
 * empty set).  Hot loops restrict themselves to it: partitions and islands
 * are usually contiguous runs of node indices.
 */
void fw_bitset_word_range(const struct fw_bitset *b, uint32_t *lo,
			  uint32_t *hi);

/* Iterate the set bits: for (i = first; i >= 0; i = next(b, i + 1)). */
#define FW_BITSET_FOREACH(b, i) \
	for ((i) = fw_bitset_first_set(b); (i) >= 0; \
	     (i) = fw_bitset_next_set((b), (uint32_t)(i) + 1))

/*
 * "0-3,7,9-10": a compact range list of the set bits, for logs and test
 * messages.  Truncated with "..." when buf is too small.
 */
const char *fw_bitset_fmt(const struct fw_bitset *b, char *buf, size_t len);
/*
 * Parse the range-list form back ("", "0-3,7").  Returns 0, or -1 for a
 * malformed list or an index >= b->nbits.  b is cleared first.
 */
int fw_bitset_parse(struct fw_bitset *b, const char *s);

#endif /* FW_BITSET_H */
