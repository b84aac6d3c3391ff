/* fw_bitset.c - fixed-size bitsets (see fw_bitset.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_bitset.h"
#include "fw_common.h"

static void same_size(const struct fw_bitset *a, const struct fw_bitset *b)
{
	if (a->nbits != b->nbits) {
		/* Two node sets from different clusters: a programming bug. */
		fprintf(stderr, "fw_bitset: size mismatch %u vs %u\n",
			a->nbits, b->nbits);
		abort();
	}
}

/* Mask of the valid bits of the last word. */
static uint64_t tail_mask(const struct fw_bitset *b)
{
	unsigned r = b->nbits & 63;

	return r ? (((uint64_t)1 << r) - 1) : ~(uint64_t)0;
}

struct fw_bitset *fw_bitset_new(uint32_t nbits)
{
	struct fw_bitset *b = fw_xmalloc(sizeof(*b));
	size_t nw = FW_BITSET_WORDS(nbits);

	b->nbits = nbits;
	b->nwords = (uint32_t)nw;
	/* Never a zero-size allocation, so w is always a valid pointer. */
	b->w = fw_xcalloc(nw ? nw : 1, sizeof(uint64_t));
	return b;
}

struct fw_bitset *fw_bitset_dup(const struct fw_bitset *b)
{
	struct fw_bitset *d = fw_bitset_new(b->nbits);

	memcpy(d->w, b->w, b->nwords * sizeof(uint64_t));
	return d;
}

void fw_bitset_free(struct fw_bitset *b)
{
	if (!b)
		return;
	free(b->w);
	free(b);
}

void fw_bitset_clear_all(struct fw_bitset *b)
{
	memset(b->w, 0, b->nwords * sizeof(uint64_t));
}

void fw_bitset_set_all(struct fw_bitset *b)
{
	if (!b->nwords)
		return;
	memset(b->w, 0xff, b->nwords * sizeof(uint64_t));
	b->w[b->nwords - 1] &= tail_mask(b);
}

void fw_bitset_set_range(struct fw_bitset *b, uint32_t lo, uint32_t hi)
{
	if (hi > b->nbits)
		hi = b->nbits;
	for (uint32_t i = lo; i < hi;) {
		if ((i & 63) == 0 && i + 64 <= hi) {
			b->w[i >> 6] = ~(uint64_t)0;
			i += 64;
		} else {
			fw_bitset_set(b, i);
			i++;
		}
	}
}

void fw_bitset_copy(struct fw_bitset *dst, const struct fw_bitset *src)
{
	same_size(dst, src);
	memcpy(dst->w, src->w, src->nwords * sizeof(uint64_t));
}

void fw_bitset_and(struct fw_bitset *dst, const struct fw_bitset *src)
{
	same_size(dst, src);
	for (uint32_t i = 0; i < dst->nwords; i++)
		dst->w[i] &= src->w[i];
}

void fw_bitset_andnot(struct fw_bitset *dst, const struct fw_bitset *src)
{
	same_size(dst, src);
	for (uint32_t i = 0; i < dst->nwords; i++)
		dst->w[i] &= ~src->w[i];
}

void fw_bitset_or(struct fw_bitset *dst, const struct fw_bitset *src)
{
	same_size(dst, src);
	for (uint32_t i = 0; i < dst->nwords; i++)
		dst->w[i] |= src->w[i];
}

void fw_bitset_not(struct fw_bitset *dst)
{
	if (!dst->nwords)
		return;
	for (uint32_t i = 0; i < dst->nwords; i++)
		dst->w[i] = ~dst->w[i];
	dst->w[dst->nwords - 1] &= tail_mask(dst);
}

uint32_t fw_bitset_count(const struct fw_bitset *b)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < b->nwords; i++)
		n += fw_popcount64(b->w[i]);
	return n;
}

uint32_t fw_bitset_count_range(const struct fw_bitset *b, uint32_t lo,
			       uint32_t hi)
{
	uint32_t n = 0;

	if (hi > b->nbits)
		hi = b->nbits;
	if (lo >= hi)
		return 0;
	uint32_t wlo = lo >> 6, whi = (hi - 1) >> 6;
	for (uint32_t i = wlo; i <= whi; i++) {
		uint64_t x = b->w[i];

		if (i == wlo)
			x &= ~(uint64_t)0 << (lo & 63);
		if (i == whi && (hi & 63))
			x &= ((uint64_t)1 << (hi & 63)) - 1;
		n += fw_popcount64(x);
	}
	return n;
}

uint32_t fw_bitset_count_and(const struct fw_bitset *a,
			     const struct fw_bitset *b)
{
	uint32_t n = 0;

	same_size(a, b);
	for (uint32_t i = 0; i < a->nwords; i++)
		n += fw_popcount64(a->w[i] & b->w[i]);
	return n;
}

bool fw_bitset_any(const struct fw_bitset *b)
{
	for (uint32_t i = 0; i < b->nwords; i++)
		if (b->w[i])
			return true;
	return false;
}

bool fw_bitset_intersects(const struct fw_bitset *a, const struct fw_bitset *b)
{
	same_size(a, b);
	for (uint32_t i = 0; i < a->nwords; i++)
		if (a->w[i] & b->w[i])
			return true;
	return false;
}

bool fw_bitset_is_subset(const struct fw_bitset *sub,
			 const struct fw_bitset *super)
{
	same_size(sub, super);
	for (uint32_t i = 0; i < sub->nwords; i++)
		if (sub->w[i] & ~super->w[i])
			return false;
	return true;
}

bool fw_bitset_equal(const struct fw_bitset *a, const struct fw_bitset *b)
{
	same_size(a, b);
	return memcmp(a->w, b->w, a->nwords * sizeof(uint64_t)) == 0;
}

int64_t fw_bitset_next_set(const struct fw_bitset *b, uint32_t from)
{
	if (from >= b->nbits)
		return -1;
	uint32_t i = from >> 6;
	uint64_t x = b->w[i] & (~(uint64_t)0 << (from & 63));

	for (;;) {
		if (x)
			return (int64_t)i * 64 + fw_ctz64(x);
		if (++i >= b->nwords)
			return -1;
		x = b->w[i];
	}
}

int64_t fw_bitset_nth_set(const struct fw_bitset *b, uint32_t n)
{
	for (uint32_t i = 0; i < b->nwords; i++) {
		uint64_t x = b->w[i];
		unsigned c = fw_popcount64(x);

		if (n >= c) {
			n -= c;
			continue;
		}
		while (n--)
			x &= x - 1;	/* drop the lowest set bit */
		return (int64_t)i * 64 + fw_ctz64(x);
	}
	return -1;
}

uint32_t fw_bitset_keep_lowest(struct fw_bitset *b, uint32_t n)
{
	uint32_t kept = 0;

	for (uint32_t i = 0; i < b->nwords; i++) {
		uint64_t x = b->w[i];
		unsigned c = fw_popcount64(x);

		if (kept + c <= n) {
			kept += c;
			continue;
		}
		/* Keep only the first (n - kept) bits of this word. */
		uint64_t keep = 0;
		while (kept < n) {
			uint64_t low = x & (~x + 1);

			keep |= low;
			x &= x - 1;
			kept++;
		}
		b->w[i] = keep;
		for (uint32_t j = i + 1; j < b->nwords; j++)
			b->w[j] = 0;
		break;
	}
	return kept;
}

void fw_bitset_word_range(const struct fw_bitset *b, uint32_t *lo,
			  uint32_t *hi)
{
	uint32_t l = 0, h = b->nwords;

	while (l < h && !b->w[l])
		l++;
	while (h > l && !b->w[h - 1])
		h--;
	if (l == h)
		l = h = 0;
	*lo = l;
	*hi = h;
}

const char *fw_bitset_fmt(const struct fw_bitset *b, char *buf, size_t len)
{
	size_t pos = 0;
	int64_t i = fw_bitset_first_set(b);

	if (len == 0)
		return buf;
	buf[0] = '\0';
	while (i >= 0) {
		int64_t j = i;
		int n;

		while (j + 1 < b->nbits && fw_bitset_test(b, (uint32_t)(j + 1)))
			j++;
		if (j == i)
			n = snprintf(buf + pos, len - pos, "%s%lld",
				     pos ? "," : "", (long long)i);
		else
			n = snprintf(buf + pos, len - pos, "%s%lld-%lld",
				     pos ? "," : "", (long long)i,
				     (long long)j);
		if (n < 0 || (size_t)n >= len - pos) {
			if (len >= 4)
				memcpy(buf + len - 4, "...", 4);
			return buf;
		}
		pos += (size_t)n;
		i = fw_bitset_next_set(b, (uint32_t)j + 1);
	}
	return buf;
}

static int parse_index(const char **s, uint32_t *out)
{
	uint64_t v = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > UINT32_MAX)
			return -1;
		p++;
	}
	*out = (uint32_t)v;
	*s = p;
	return 0;
}

int fw_bitset_parse(struct fw_bitset *b, const char *s)
{
	fw_bitset_clear_all(b);
	if (!*s)
		return 0;
	for (;;) {
		uint32_t lo, hi;

		if (parse_index(&s, &lo))
			return -1;
		hi = lo;
		if (*s == '-') {
			s++;
			if (parse_index(&s, &hi) || hi < lo)
				return -1;
		}
		if (hi >= b->nbits)
			return -1;
		fw_bitset_set_range(b, lo, hi + 1);
		if (*s == '\0')
			return 0;
		if (*s != ',')
			return -1;
		s++;
	}
}
