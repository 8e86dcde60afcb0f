/*
 * bootmap.c - building the memory map of a struct bootinfo.
 *
 * The map is kept sorted by base and disjoint.  Everything is "painting":
 * a new range removes whatever it overlaps (splitting an entry into a left
 * and a right remainder when it lands in its middle) and is then merged with
 * neighbours of the same type and attributes.  bootmap_normalize() repaints
 * the raw entries in increasing priority, so where firmware ranges overlap
 * the more restrictive type wins (usable < ... < reserved < bad).
 *
 * No allocation: a static scratch table is used, so these functions are not
 * reentrant; loaders call them from one thread before the kernel runs.
 */
#include "boot/common/bootmap.h"

static struct bootinfo_mmap_entry bootmap_scratch[BOOTINFO_MMAP_MAX];

/* Higher wins where raw entries overlap. */
static int bootmap_priority(uint32_t type)
{
	switch (type) {
	case BOOTINFO_MEM_USABLE: return 0;
	case BOOTINFO_MEM_ACPI_RECLAIM: return 1;
	case BOOTINFO_MEM_LOADER: return 2;
	case BOOTINFO_MEM_KERNEL: return 3;
	case BOOTINFO_MEM_ACPI_NVS: return 4;
	case BOOTINFO_MEM_PERSISTENT: return 5;
	case BOOTINFO_MEM_FIRMWARE: return 6;
	case BOOTINFO_MEM_MMIO: return 7;
	case BOOTINFO_MEM_BAD: return 9;
	default: return 8; /* RESERVED and anything unknown */
	}
}

static uint64_t entry_end(const struct bootinfo_mmap_entry *e)
{
	return e->base + e->length;
}

static void move_entries(struct bootinfo_mmap_entry *dst, const struct bootinfo_mmap_entry *src, uint32_t n)
{
	if (dst < src) {
		for (uint32_t i = 0; i < n; i++)
			dst[i] = src[i];
	} else {
		for (uint32_t i = n; i-- > 0;)
			dst[i] = src[i];
	}
}

static int same_kind(const struct bootinfo_mmap_entry *a, const struct bootinfo_mmap_entry *b)
{
	return a->type == b->type && a->attr == b->attr;
}

/* Merge entry i with its right neighbour while they touch and match. */
static void merge_right(struct bootinfo *bi, uint32_t i)
{
	while (i + 1 < bi->mmap_count && entry_end(&bi->mmap[i]) == bi->mmap[i + 1].base &&
	       same_kind(&bi->mmap[i], &bi->mmap[i + 1])) {
		bi->mmap[i].length += bi->mmap[i + 1].length;
		move_entries(&bi->mmap[i + 1], &bi->mmap[i + 2], bi->mmap_count - i - 2);
		bi->mmap_count--;
	}
}

/* Paint [base, end) with type/attr into the sorted, disjoint map. */
static void paint(struct bootinfo *bi, uint64_t base, uint64_t end, uint32_t type, uint32_t attr)
{
	struct bootinfo_mmap_entry repl[3];
	uint32_t nrepl = 0, first = 0, last, n = bi->mmap_count;

	/* First entry ending after base; entries [first, last) overlap. */
	while (first < n && entry_end(&bi->mmap[first]) <= base)
		first++;
	last = first;
	while (last < n && bi->mmap[last].base < end)
		last++;

	if (first < last && bi->mmap[first].base < base) {
		repl[nrepl] = bi->mmap[first];
		repl[nrepl].length = base - bi->mmap[first].base;
		nrepl++;
	}
	repl[nrepl++] = (struct bootinfo_mmap_entry){ .base = base, .length = end - base, .type = type, .attr = attr };
	if (first < last && entry_end(&bi->mmap[last - 1]) > end) {
		repl[nrepl] = bi->mmap[last - 1];
		repl[nrepl].base = end;
		repl[nrepl].length = entry_end(&bi->mmap[last - 1]) - end;
		nrepl++;
	}

	uint32_t removed = last - first;
	uint32_t tail = n - last;
	uint32_t new_count = n - removed + nrepl;
	if (new_count > BOOTINFO_MMAP_MAX) {
		/* No room: the highest entries fall off the end, counted. */
		uint32_t over = new_count - BOOTINFO_MMAP_MAX;
		bi->mmap_dropped += over;
		if (over > tail) {
			nrepl -= over - tail;
			tail = 0;
		} else {
			tail -= over;
		}
		new_count = BOOTINFO_MMAP_MAX;
	}
	move_entries(&bi->mmap[first + nrepl], &bi->mmap[last], tail);
	for (uint32_t i = 0; i < nrepl; i++)
		bi->mmap[first + i] = repl[i];
	bi->mmap_count = new_count;

	/* Merge around the painted range. */
	uint32_t start = first > 0 ? first - 1 : 0;
	uint32_t stop = first + nrepl;
	for (uint32_t i = start; i < bi->mmap_count && i <= stop; i++)
		merge_right(bi, i);
}

void bootmap_add(struct bootinfo *bi, uint64_t base, uint64_t length, uint32_t type, uint32_t attr)
{
	if (length == 0)
		return;
	/* Firmware maps mostly arrive sorted: extend the previous entry when
	 * this one continues it, so long maps still fit before normalising. */
	if (bi->mmap_count) {
		struct bootinfo_mmap_entry *last = &bi->mmap[bi->mmap_count - 1];
		if (last->base + last->length == base && last->type == type && last->attr == attr) {
			last->length += length;
			return;
		}
	}
	if (bi->mmap_count >= BOOTINFO_MMAP_MAX) {
		bi->mmap_dropped++;
		return;
	}
	bi->mmap[bi->mmap_count++] = (struct bootinfo_mmap_entry){
		.base = base, .length = length, .type = type, .attr = attr,
	};
}

void bootmap_normalize(struct bootinfo *bi)
{
	uint32_t n = bi->mmap_count;

	/* Insertion sort of the raw entries by priority (n <= 512). */
	for (uint32_t i = 0; i < n; i++) {
		struct bootinfo_mmap_entry e = bi->mmap[i];
		uint32_t j = i;
		while (j > 0 && bootmap_priority(bootmap_scratch[j - 1].type) > bootmap_priority(e.type)) {
			bootmap_scratch[j] = bootmap_scratch[j - 1];
			j--;
		}
		bootmap_scratch[j] = e;
	}
	bi->mmap_count = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct bootinfo_mmap_entry *e = &bootmap_scratch[i];
		uint64_t end = entry_end(e);
		if (end < e->base) /* wraps: clip at the top of the address space */
			end = ~0ULL;
		if (end > e->base)
			paint(bi, e->base, end, e->type, e->attr);
	}
}

void bootmap_overlay(struct bootinfo *bi, uint64_t base, uint64_t length, uint32_t type)
{
	if (length == 0)
		return;
	paint(bi, base, base + length, type, 0);
}
