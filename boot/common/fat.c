/*
 * fat.c - the FAT volume: boot sector (BPB), FAT entries, and a file's
 * cluster chain as runs of bytes (fat.h).  Directories are in fat_dir.c.
 *
 * The chain walk is bounded: a file of size S has exactly ceil(S / cluster)
 * clusters, so the walk stops there whatever the FAT says; a chain that
 * ends early, goes on, or names a cluster outside the volume is damage.
 * FAT entries are read through a 32 KiB window of the first (or, with
 * mirroring off, the active) FAT, so a 256 MiB file of 4 KiB clusters
 * costs 8 reads of the FAT rather than 512.
 */
#include "boot/common/fat.h"

#include "kernel/lib/bytes.h"

#define FAT16_MIN_CLUSTERS 4085u  /* fewer: FAT12 (specification, 3.5)   */
#define FAT32_MIN_CLUSTERS 65525u /* fewer: FAT16                         */
#define FAT32_MAX_CLUSTERS 0x0FFFFFF5u

static int is_pow2(uint32_t x)
{
	return x && !(x & (x - 1));
}

static enum fat_status fat_bad(struct fat_volume *v, const char *why)
{
	v->why = why;
	return FAT_BAD;
}

const char *fat_status_name(enum fat_status st)
{
	switch (st) {
	case FAT_OK: return "ok";
	case FAT_IO: return "read error";
	case FAT_BAD: return "not a FAT16/FAT32 volume, or damaged";
	case FAT_NOT_FOUND: return "not found";
	case FAT_NOT_FILE: return "not a file";
	case FAT_TOO_MANY: return "too many runs";
	}
	return "?";
}

enum fat_status fat_mount(struct fat_volume *v, fat_read_fn read, void *ctx)
{
	uint8_t *bs = v->sector;

	v->read = read;
	v->ctx = ctx;
	v->why = "";
	v->cache_off = ~0ULL;
	if (read(ctx, 0, bs, 512))
		return FAT_IO;
	if (bs[510] != 0x55 || bs[511] != 0xAA)
		return fat_bad(v, "no boot sector signature 0x55 0xAA");

	uint32_t bps = get_le16(bs + 11);            /* BPB_BytsPerSec */
	uint32_t spc = bs[13];                   /* BPB_SecPerClus */
	uint32_t rsvd = get_le16(bs + 14);           /* BPB_RsvdSecCnt */
	uint32_t nfats = bs[16];                 /* BPB_NumFATs    */
	uint32_t root_ents = get_le16(bs + 17);      /* BPB_RootEntCnt */
	uint32_t tot = get_le16(bs + 19);            /* BPB_TotSec16   */
	uint32_t fatsz = get_le16(bs + 22);          /* BPB_FATSz16    */
	uint32_t ext_flags = 0;

	if (!tot)
		tot = get_le32(bs + 32);             /* BPB_TotSec32   */
	if (!fatsz) {
		fatsz = get_le32(bs + 36);           /* BPB_FATSz32    */
		ext_flags = get_le16(bs + 40);       /* BPB_ExtFlags   */
	}
	if (bps < 512 || bps > FAT_SECTOR_MAX || !is_pow2(bps))
		return fat_bad(v, "BPB_BytsPerSec is not 512, 1024, 2048 or 4096");
	if (!is_pow2(spc) || spc > 128)
		return fat_bad(v, "BPB_SecPerClus is not a power of two from 1 to 128");
	if (!rsvd || !nfats || !fatsz || !tot)
		return fat_bad(v, "BPB_RsvdSecCnt, BPB_NumFATs, the FAT size or the sector count is 0");

	uint32_t root_secs = (root_ents * 32 + bps - 1) / bps;
	uint64_t meta = (uint64_t)rsvd + (uint64_t)nfats * fatsz + root_secs;
	if (meta >= tot)
		return fat_bad(v, "the FATs and root directory do not fit in the volume");
	uint64_t clusters = (tot - meta) / spc;
	if (clusters < FAT16_MIN_CLUSTERS)
		return fat_bad(v, "FAT12 volume (fewer than 4085 clusters): only FAT16 and FAT32 are read");
	if (clusters > FAT32_MAX_CLUSTERS)
		return fat_bad(v, "more clusters than FAT32 can number");

	v->bytes_per_sector = bps;
	v->cluster_bytes = bps * spc;
	v->clusters = (uint32_t)clusters;
	v->type = clusters < FAT32_MIN_CLUSTERS ? 16 : 32;
	v->volume_bytes = (uint64_t)tot * bps;
	v->fat_bytes = (uint64_t)fatsz * bps;
	v->fat_offset = (uint64_t)rsvd * bps;
	v->data_offset = meta * bps;
	if (v->fat_bytes < (clusters + 2) * (v->type / 8))
		return fat_bad(v, "the FAT is too small for the volume's clusters");
	if (v->type == 16) {
		if (!root_ents)
			return fat_bad(v, "FAT16 volume without root directory entries (BPB_RootEntCnt 0)");
		v->root_entries = root_ents;
		v->root_offset = v->fat_offset + (uint64_t)nfats * v->fat_bytes;
		v->root_cluster = 0;
		return FAT_OK;
	}
	if (root_ents || get_le16(bs + 22))
		return fat_bad(v, "FAT32 by its cluster count, but BPB_RootEntCnt or BPB_FATSz16 is not 0");
	if (ext_flags & 0x80) { /* mirroring off: only the active FAT is current */
		if ((ext_flags & 0xF) >= nfats)
			return fat_bad(v, "BPB_ExtFlags names a FAT that does not exist");
		v->fat_offset += (uint64_t)(ext_flags & 0xF) * v->fat_bytes;
	}
	v->root_entries = 0;
	v->root_offset = 0;
	v->root_cluster = get_le32(bs + 44); /* BPB_RootClus */
	if (v->root_cluster < 2 || v->root_cluster >= v->clusters + 2)
		return fat_bad(v, "BPB_RootClus is not a cluster of the volume");
	return FAT_OK;
}

/*
 * The FAT entry of cluster c: 1 with *next set to the following cluster,
 * 0 at the end of the chain, or FAT_IO / FAT_BAD as a negative number.
 */
int fat_next(struct fat_volume *v, uint32_t c, uint32_t *next)
{
	uint32_t esize = v->type / 8;
	uint64_t off = (uint64_t)c * esize;
	uint64_t win = off & ~(uint64_t)(FAT_CACHE_BYTES - 1);

	if (off + esize > v->fat_bytes) {
		v->why = "a cluster number beyond the FAT";
		return -FAT_BAD;
	}
	if (win != v->cache_off) {
		uint64_t len = v->fat_bytes - win < FAT_CACHE_BYTES ? v->fat_bytes - win : FAT_CACHE_BYTES;

		v->cache_off = ~0ULL;
		if (v->read(v->ctx, v->fat_offset + win, v->cache, (uint32_t)len))
			return -FAT_IO;
		v->cache_off = win;
	}

	const uint8_t *e = v->cache + (off - win);
	uint32_t val = v->type == 32 ? get_le32(e) & 0x0FFFFFFF : get_le16(e);
	uint32_t eoc = v->type == 32 ? 0x0FFFFFF8 : 0xFFF8;
	uint32_t bad = eoc - 1;

	if (val >= eoc)
		return 0;
	if (val == bad) {
		v->why = "a cluster of the chain is marked bad";
		return -FAT_BAD;
	}
	if (val < 2 || val >= v->clusters + 2) {
		v->why = val ? "a cluster chain names a cluster outside the volume"
			     : "a cluster chain runs into a free cluster";
		return -FAT_BAD;
	}
	*next = val;
	return 1;
}

enum fat_status fat_extents(struct fat_volume *v, const struct fat_file *f, uint32_t round,
			    struct fat_extent *out, uint32_t max, uint32_t *n)
{
	uint64_t want, left, run_end = 0;
	uint32_t need, c, count = 0;
	int r;

	*n = 0;
	if (!is_pow2(round) || round > v->cluster_bytes)
		return fat_bad(v, "the block size is not a power of two no larger than a cluster");
	if (f->size == 0)
		return FAT_OK;
	need = (uint32_t)(((uint64_t)f->size + v->cluster_bytes - 1) / v->cluster_bytes);
	want = ((uint64_t)f->size + round - 1) & ~(uint64_t)(round - 1);
	left = want;
	c = f->first_cluster;
	if (c < 2 || c >= v->clusters + 2)
		return fat_bad(v, "the file's first cluster is not a cluster of the volume");
	for (;;) {
		uint64_t off = v->data_offset + (uint64_t)(c - 2) * v->cluster_bytes;
		uint64_t len = left < v->cluster_bytes ? left : v->cluster_bytes;

		/* Runs past max are counted, not stored. */
		if (*n && off == run_end) {
			if (*n <= max)
				out[*n - 1].bytes += len;
		} else if (++*n <= max) {
			out[*n - 1] = (struct fat_extent){ .offset = off, .bytes = len };
		}
		run_end = off + len;
		left -= len;
		if (++count == need)
			break;
		r = fat_next(v, c, &c);
		if (r < 0)
			return (enum fat_status)-r;
		if (r == 0)
			return fat_bad(v, "the cluster chain is shorter than the file size");
	}
	r = fat_next(v, c, &c);
	if (r < 0)
		return (enum fat_status)-r;
	if (r > 0)
		return fat_bad(v, "the cluster chain is longer than the file size");
	return *n > max ? FAT_TOO_MANY : FAT_OK;
}
