/*
 * fat.h - a read-only FAT16/FAT32 walker: find one file by path and list
 * the runs of clusters it occupies, as byte ranges of the volume.
 *
 * Pure C (no firmware types, no allocation, no libc): every read goes
 * through the caller's callback, so the UEFI loader runs it over Block I/O
 * (boot/uefi/stick_disk.c) and the host unit tests over crafted images
 * (tests/unit/boot/common/test_fat.c).  Names of on-disk fields follow Microsoft's FAT
 * specification (BPB_BytsPerSec, DIR_FstClusLO, LDIR_Ord, ...).
 *
 * Invariants:
 *   - nothing is ever written;
 *   - every value read from the volume is checked before it is used as an
 *     offset or a count: a damaged volume gives FAT_BAD, never a read
 *     outside the volume or an endless loop (cluster chains are bounded by
 *     the volume's cluster count);
 *   - the FAT type is decided by the cluster count alone, as the
 *     specification says (< 4085 FAT12, refused; < 65525 FAT16; FAT32).
 */
#ifndef KPROF_BOOT_FAT_H
#define KPROF_BOOT_FAT_H

#include <stdint.h>

#define FAT_SECTOR_MAX 4096u     /* largest BPB_BytsPerSec accepted      */
#define FAT_CACHE_BYTES 32768u   /* FAT entries read this many at a time */
#define FAT_NAME_MAX 255u        /* long names, as the specification caps */

/* Read len bytes at byte offset off of the volume into buf; 0 on success.
 * The walker asks only for whole 512-byte sectors at 512-aligned offsets. */
typedef int (*fat_read_fn)(void *ctx, uint64_t off, void *buf, uint32_t len);

enum fat_status {
	FAT_OK = 0,
	FAT_IO = 1,        /* the read callback failed                       */
	FAT_BAD = 2,       /* not a FAT16/32 volume, or damaged (see why)     */
	FAT_NOT_FOUND = 3, /* a path component does not exist                */
	FAT_NOT_FILE = 4,  /* the path names a directory (or a file is used
			    * as a directory)                                 */
	FAT_TOO_MANY = 5,  /* more runs than the caller's table holds        */
};

/* The volume as the boot sector describes it. */
struct fat_volume {
	fat_read_fn read;          /* the caller's reader                     */
	void *ctx;                 /* its context                             */
	uint32_t bytes_per_sector; /* BPB_BytsPerSec: 512 .. 4096, power of 2 */
	uint32_t cluster_bytes;    /* BPB_SecPerClus * BPB_BytsPerSec         */
	uint32_t type;             /* 16 or 32                                */
	uint32_t clusters;         /* data clusters: valid numbers 2 .. +1    */
	uint32_t root_cluster;     /* FAT32: BPB_RootClus; FAT16: 0           */
	uint32_t root_entries;     /* FAT16: BPB_RootEntCnt; FAT32: 0         */
	uint64_t root_offset;      /* FAT16: the fixed root directory         */
	uint64_t fat_offset;       /* the first FAT                           */
	uint64_t fat_bytes;        /* one FAT's size                          */
	uint64_t data_offset;      /* cluster 2                               */
	uint64_t volume_bytes;     /* BPB_TotSec16/32 * BPB_BytsPerSec        */
	const char *why;           /* what was wrong, after FAT_BAD           */
	uint64_t cache_off;        /* volume offset of cache[], ~0 = empty    */
	uint8_t cache[FAT_CACHE_BYTES]; /* a window of the first FAT          */
	uint8_t sector[FAT_SECTOR_MAX]; /* the directory sector being read   */
};

/* A directory entry found by fat_lookup(). */
struct fat_file {
	uint32_t first_cluster; /* DIR_FstClusHI:LO; 0 for an empty file     */
	uint32_t size;          /* DIR_FileSize, bytes                        */
	uint8_t attr;           /* DIR_Attr                                   */
};

/* A run of the file: byte range of the volume. */
struct fat_extent {
	uint64_t offset; /* from the start of the volume                  */
	uint64_t bytes;  /* whole clusters, except the file's last run,
			  * which ends at the file's end rounded up to
			  * `round` (fat_extents) */
};

/* Read and check the boot sector; fills v (read and ctx must be set). */
enum fat_status fat_mount(struct fat_volume *v, fat_read_fn read, void *ctx);

/* Find path ('\\' or '/' separated, absolute or not, ASCII, case-
 * insensitive against the long name or the 8.3 name). */
enum fat_status fat_lookup(struct fat_volume *v, const char *path, struct fat_file *out);

/* The file's runs of contiguous clusters in file order, merged, cut at
 * the file's size rounded up to `round` bytes (a power of two, at most
 * the cluster size; the disk's block size).  *n gets the number of runs
 * the file has even when it is more than max (then FAT_TOO_MANY, and
 * out[] holds the first max).  FAT_BAD when the chain is shorter than
 * the file, longer, loops or leaves the volume. */
enum fat_status fat_extents(struct fat_volume *v, const struct fat_file *f, uint32_t round,
			    struct fat_extent *out, uint32_t max, uint32_t *n);

const char *fat_status_name(enum fat_status st);

/* Used by fat_dir.c: the FAT entry of cluster c; 1 with *next set, 0 at
 * the end of the chain, -FAT_IO or -FAT_BAD (why set). */
int fat_next(struct fat_volume *v, uint32_t c, uint32_t *next);

#endif /* KPROF_BOOT_FAT_H */
