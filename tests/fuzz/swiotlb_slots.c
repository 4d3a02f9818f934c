// SPDX-License-Identifier: MIT
/*
 * swiotlb_slots.c - fuzz target: the swiotlb's slot allocator
 * (kernel/swiotlb_pool.c) under any sequence of maps and unmaps, against a
 * model that only remembers which slabs each mapping holds.
 *
 * Checked after every step: swiotlb_slots_check(); a mapping gets free
 * slabs inside one segment, page-aligned from a page up; an unmap succeeds
 * exactly where a mapping starts; the counts agree with the model. The pool
 * has one to four areas and each map names a CPU to start from.
 */
#include "fuzz.h"
#include "swiotlb_pool.h"

#define MAX_SEGMENTS 4
#define MAX_SLABS    (MAX_SEGMENTS * SWIOTLB_SEGSIZE)

#define MAX_AREAS    4

static u8 arrays[MAX_AREAS * 64 + MAX_SLABS * 24] __aligned(64);
static s32 owner[MAX_SLABS];            /* the model: first slab of the mapping holding it, or -1 */

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct swiotlb_slots s;
	struct fuzz_input in = { data, size, 0 };
	u32 nslabs = SWIOTLB_SEGSIZE * (1 + (u32)fuzz_take(&in, 1) % MAX_SEGMENTS), used = 0;
	u32 nareas = 1 + (u32)fuzz_take(&in, 1) % MAX_AREAS;   /* fewer if the pool is small */

	fuzz_quiet();
	FUZZ_CHECK(swiotlb_slots_array_bytes(nslabs, nareas) <= sizeof(arrays));
	FUZZ_CHECK(swiotlb_slots_init(&s, nslabs, nareas, arrays) == nslabs);
	for (u32 i = 0; i < nslabs; i++)
		owner[i] = -1;
	while (fuzz_more(&in)) {
		if (fuzz_take(&in, 1) & 1) {
			u64 bytes = 1 + fuzz_take(&in, 3) % (SWIOTLB_MAX_MAPPING + 4096);
			u32 start = (u32)fuzz_take(&in, 1);             /* the CPU */
			s64 first = swiotlb_slots_alloc(&s, start, bytes, 0x1000 * used);
			u32 n = (u32)((bytes + SWIOTLB_SLAB_SIZE - 1) / SWIOTLB_SLAB_SIZE);
			if (bytes > SWIOTLB_MAX_MAPPING)
				FUZZ_CHECK(first < 0);
			if (first < 0)
				continue;
			FUZZ_CHECK((u64)first + n <= nslabs);
			FUZZ_CHECK(first / SWIOTLB_SEGSIZE == (first + n - 1) / SWIOTLB_SEGSIZE);
			if (bytes >= 4096)
				FUZZ_CHECK(first % (4096 / SWIOTLB_SLAB_SIZE) == 0);
			FUZZ_CHECK(s.bytes_at[first] == bytes);
			for (u32 i = 0; i < n; i++) {
				FUZZ_CHECK(owner[first + i] < 0);
				owner[first + i] = (s32)first;
			}
			used += n;
		} else {
			u32 slab = (u32)fuzz_take(&in, 2) % nslabs;
			bool starts = owner[slab] == (s32)slab;
			FUZZ_CHECK(swiotlb_slots_free(&s, slab) == starts);
			for (u32 i = slab; starts && i < nslabs && owner[i] == (s32)slab; i++, used--)
				owner[i] = -1;
		}
		const char *why = swiotlb_slots_check(&s);
		if (why) {
			fprintf(stderr, "swiotlb slots: %s\n", why);
			abort();
		}
		FUZZ_CHECK(swiotlb_slots_used(&s) == used);
	}
	return 0;
}
