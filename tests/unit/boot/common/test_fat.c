/*
 * test_fat.c - the FAT walker the UEFI loader uses to find the trace file's
 * sectors (boot/common/fat.c, fat_dir.c), against volumes made by the
 * real tools (mkfs.vfat, mtools) in a temporary directory: FAT16 and
 * FAT32, clusters of 512 B to 32 KiB, 512- and 4096-byte sectors, long and
 * 8.3 names, a contiguous file, a fragmented one, missing files and
 * directories, and volumes damaged on purpose; and the runs as whole-disk
 * extents (boot/common/stickext.c), refused where not block-aligned.
 *
 * The extents are checked against the data, not against the walker's own
 * arithmetic: every file is written with each 512-byte block stamped with
 * its index, and the bytes the extents point at in the image must be the
 * file's bytes in order.  Run counts are checked against mshowfat.
 *
 * Without mkfs.vfat or mtools every test prints "skipped" and why.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "boot/common/fat.h"
#include "boot/common/stickext.h"

static char dir[64];           /* the test's temporary directory       */
static char img[128];          /* the volume being tested              */
static int img_fd = -1;
static struct fat_volume vol;  /* 36 KiB: not on the stack             */
static unsigned reads_misaligned;

static int img_read(void *ctx, uint64_t off, void *buf, uint32_t len)
{
	int fd = *(int *)ctx;

	if (off % 512 || len % 512 || !len)
		reads_misaligned++;
	return pread(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

static int tools_missing(void)
{
	return system("command -v mkfs.vfat >/dev/null && command -v mcopy >/dev/null && "
		      "command -v mshowfat >/dev/null") != 0;
}

#define SKIP_WITHOUT_TOOLS()                                                                     \
	do {                                                                                     \
		if (tools_missing()) {                                                           \
			printf("skipped: mkfs.vfat or mtools not installed (make deps installs " \
			       "dosfstools and mtools)\n");                                      \
			skip();                                                                  \
		}                                                                                \
	} while (0)

static void sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("command failed: %s", cmd);
}

/* A file of `bytes` bytes whose 512-byte block i starts with "blk i@tag". */
static void make_file(const char *path, uint32_t bytes, const char *tag)
{
	FILE *f = fopen(path, "wb");
	char blk[512];

	assert_non_null(f);
	for (uint32_t off = 0; off < bytes; off += 512) {
		memset(blk, 0x5A, sizeof(blk));
		snprintf(blk, sizeof(blk), "blk %u@%s", off / 512, tag);
		fwrite(blk, 1, bytes - off < 512 ? bytes - off : 512, f);
	}
	fclose(f);
}

/* A fresh volume: mkfs.vfat with these options on a sparse file. */
static void make_volume(uint32_t mib, const char *mkfs_opts)
{
	snprintf(img, sizeof(img), "%s/vol.img", dir);
	sh("rm -f %s && truncate -s %uM %s && mkfs.vfat %s %s >/dev/null", img, mib, img, mkfs_opts, img);
}

static void mcopy(const char *src, const char *dst)
{
	sh("MTOOLS_SKIP_CHECK=1 mcopy -o -i %s %s '::%s'", img, src, dst);
}

static void mmd(const char *d)
{
	sh("MTOOLS_SKIP_CHECK=1 mmd -i %s '::%s'", img, d);
}

static void open_volume(uint32_t type)
{
	if (img_fd >= 0)
		close(img_fd);
	img_fd = open(img, O_RDONLY);
	assert_true(img_fd >= 0);
	reads_misaligned = 0;
	memset(&vol, 0xCC, sizeof(vol));
	assert_int_equal(fat_mount(&vol, img_read, &img_fd), FAT_OK);
	assert_int_equal(vol.type, type);
}

/* mshowfat's count of <a-b> runs for a file of the volume. */
static unsigned mshowfat_runs(const char *path)
{
	char cmd[512], out[8192];
	unsigned runs = 0;
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "MTOOLS_SKIP_CHECK=1 mshowfat -i %s ::%s", img, path);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	assert_int_equal(pclose(p), 0);
	for (char *s = out; (s = strchr(s, '<')); s++)
		runs++;
	return runs;
}

/* The bytes at the extents are the host file's bytes, in order, and the
 * extents cover its size rounded up to `round`. */
static void check_extents_hold(const struct fat_extent *ext, uint32_t n, const char *host, uint32_t round)
{
	FILE *f = fopen(host, "rb");
	static uint8_t want[1 << 16], got[1 << 16];
	uint64_t total = 0;
	size_t size;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = (size_t)ftell(f);
	rewind(f);
	for (uint32_t i = 0; i < n; i++) {
		for (uint64_t done = 0; done < ext[i].bytes; done += sizeof(got)) {
			size_t len = ext[i].bytes - done < sizeof(got) ? ext[i].bytes - done : sizeof(got);
			size_t have = fread(want, 1, len, f);

			assert_int_equal(pread(img_fd, got, len, (off_t)(ext[i].offset + done)), len);
			assert_memory_equal(got, want, have);
		}
		total += ext[i].bytes;
	}
	fclose(f);
	assert_int_equal(total, (size + round - 1) / round * round);
}

static struct fat_extent ext[64];

static void check_file(const char *path, const char *host, uint32_t round, uint32_t want_runs)
{
	struct fat_file f;
	uint32_t n;

	assert_int_equal(fat_lookup(&vol, path, &f), FAT_OK);
	assert_int_equal(fat_extents(&vol, &f, round, ext, 64, &n), FAT_OK);
	assert_int_equal(n, want_runs);
	check_extents_hold(ext, n, host, round);
	assert_int_equal(reads_misaligned, 0);
}

/* The image mkimage.sh builds: FAT32, 4 KiB clusters, one contiguous run. */
static void test_fat32_contiguous(void **state)
{
	char host[128];

	(void)state;
	SKIP_WITHOUT_TOOLS();
	make_volume(300, "-F 32 -S 512 -s 8");
	mmd("/EFI");
	mmd("/kprof");
	snprintf(host, sizeof(host), "%s/trace.bin", dir);
	make_file(host, 8 << 20, "contig");
	mcopy(host, "/kprof/trace.bin");
	open_volume(32);
	assert_int_equal(vol.cluster_bytes, 4096);
	assert_int_equal(mshowfat_runs("/kprof/trace.bin"), 1);
	check_file("\\kprof\\trace.bin", host, 512, 1);
	check_file("/KPROF/TRACE.BIN", host, 512, 1);  /* case-insensitive */
	check_file("kprof/Trace.Bin", host, 4096, 1);
}

/* Holes left by deleted files: the big file is written into them. */
static void test_fat32_fragmented(void **state)
{
	char host[128], small[128];
	struct fat_file f;
	uint32_t n, runs;

	(void)state;
	SKIP_WITHOUT_TOOLS();
	make_volume(300, "-F 32 -S 512 -s 8");
	mmd("/kprof");
	snprintf(small, sizeof(small), "%s/small", dir);
	make_file(small, 3 * 4096, "small");
	for (int i = 0; i < 24; i++) {
		char name[64];
		snprintf(name, sizeof(name), "/kprof/s%02d.bin", i);
		mcopy(small, name);
	}
	for (int i = 0; i < 24; i += 2)
		sh("MTOOLS_SKIP_CHECK=1 mdel -i %s ::/kprof/s%02d.bin", img, i);
	/* FSI_Nxt_Free unknown: mtools then allocates from cluster 2, into
	 * the holes, instead of after the last file. */
	sh("printf '\\377\\377\\377\\377' | dd of=%s bs=1 seek=%u conv=notrunc status=none", img, 512 + 492);
	snprintf(host, sizeof(host), "%s/trace.bin", dir);
	make_file(host, 200 * 1024 + 100, "frag"); /* not a whole cluster */
	mcopy(host, "/kprof/trace.bin");
	open_volume(32);
	runs = mshowfat_runs("/kprof/trace.bin");
	assert_true(runs > 4);
	check_file("\\kprof\\trace.bin", host, 512, runs);

	/* More runs than the table holds: counted, the first ones kept. */
	assert_int_equal(fat_lookup(&vol, "\\kprof\\trace.bin", &f), FAT_OK);
	memset(ext, 0, sizeof(ext));
	assert_int_equal(fat_extents(&vol, &f, 512, ext, 3, &n), FAT_TOO_MANY);
	assert_int_equal(n, runs);
	assert_int_not_equal(ext[2].bytes, 0);
	assert_int_equal(ext[3].bytes, 0);
}

static void test_missing(void **state)
{
	char host[128];
	struct fat_file f;

	(void)state;
	SKIP_WITHOUT_TOOLS();
	make_volume(64, "-F 16 -S 512 -s 4");
	mmd("/kprof");
	snprintf(host, sizeof(host), "%s/kernel.elf", dir);
	make_file(host, 5000, "k");
	mcopy(host, "/kprof/kernel.elf");
	open_volume(16);
	assert_int_equal(fat_lookup(&vol, "\\kprof\\trace.bin", &f), FAT_NOT_FOUND);
	assert_string_equal(vol.why, "the file does not exist");
	assert_int_equal(fat_lookup(&vol, "\\nodir\\trace.bin", &f), FAT_NOT_FOUND);
	assert_string_equal(vol.why, "a directory on the path does not exist");
	assert_int_equal(fat_lookup(&vol, "\\kprof", &f), FAT_NOT_FILE);
	assert_int_equal(fat_lookup(&vol, "\\kprof\\kernel.elf\\x", &f), FAT_NOT_FILE);
	check_file("\\kprof\\kernel.elf", host, 512, 1);
}

/* Every cluster size mkfs.vfat makes, FAT16 and FAT32, in a subdirectory
 * that needs several clusters of entries (long names for each). */
static void test_cluster_sizes(void **state)
{
	static const struct {
		uint32_t mib, type;
		const char *opts;
	} v[] = {
		{ 40, 32, "-F 32 -S 512 -s 1" },    /* 512 B clusters      */
		{ 140, 32, "-F 32 -S 512 -s 4" },   /* 2 KiB               */
		{ 2100, 32, "-F 32 -S 512 -s 64" }, /* 32 KiB              */
		{ 64, 16, "-F 16 -S 512 -s 2" },    /* FAT16, 1 KiB        */
		{ 600, 16, "-F 16 -S 512 -s 32" },  /* FAT16, 16 KiB       */
		{ 320, 32, "-F 32 -S 4096 -s 1" },  /* 4096-byte sectors   */
		{ 128, 16, "-F 16 -S 4096 -s 1" },  /* FAT16, 4 KiB sector */
	};
	char host[128], other[128];

	(void)state;
	SKIP_WITHOUT_TOOLS();
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		make_volume(v[i].mib, v[i].opts);
		mmd("/Some Long Directory");
		snprintf(other, sizeof(other), "%s/pad", dir);
		make_file(other, 700, "pad");
		for (int k = 0; k < 40; k++) {
			char name[96];
			snprintf(name, sizeof(name), "/Some Long Directory/a padding file number %02d.txt", k);
			mcopy(other, name);
		}
		snprintf(host, sizeof(host), "%s/data", dir);
		make_file(host, 300 * 1024 + 7, v[i].opts);
		mcopy(host, "/Some Long Directory/the trace file.data");
		open_volume(v[i].type);
		check_file("\\some long directory\\THE TRACE FILE.DATA", host, 512, 1);
		check_file("/Some Long Directory/a padding file number 39.txt", other, 512, 1);
	}
}

/* A 300 MiB FAT32 volume made with mkfs_opts, holding a 64 KiB
 * /kprof/trace.bin, mounted, the file looked up into *f. */
static void fat32_with_trace(struct fat_file *f, const char *mkfs_opts, const char *tag)
{
	char host[128];

	make_volume(300, mkfs_opts);
	mmd("/kprof");
	snprintf(host, sizeof(host), "%s/trace.bin", dir);
	make_file(host, 64 * 1024, tag);
	mcopy(host, "/kprof/trace.bin");
	open_volume(32);
	assert_int_equal(fat_lookup(&vol, "/kprof/trace.bin", f), FAT_OK);
}

/* The FAT entry at `entry` set to `value`: the chain is refused with why. */
static void damage_entry(const struct fat_file *f, uint64_t entry, uint32_t value, const char *why)
{
	uint8_t e[4] = { (uint8_t)value, (uint8_t)(value >> 8), (uint8_t)(value >> 16), (uint8_t)(value >> 24) };
	int fd = open(img, O_RDWR);
	uint32_t n;

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, e, 4, (off_t)entry), 4);
	close(fd);
	open_volume(32);
	assert_int_equal(fat_extents(&vol, f, 512, ext, 64, &n), FAT_BAD);
	assert_string_equal(vol.why, why);
}

/* The image at img does not mount, for the reason why. */
static void mount_refused(const char *why)
{
	if (img_fd >= 0)
		close(img_fd);
	img_fd = open(img, O_RDONLY);
	assert_true(img_fd >= 0);
	assert_int_equal(fat_mount(&vol, img_read, &img_fd), FAT_BAD);
	assert_string_equal(vol.why, why);
}

/* The volume is damaged on purpose: each damage is named, none loops. */
static void test_damage(void **state)
{
	struct fat_file f;

	(void)state;
	SKIP_WITHOUT_TOOLS();
	fat32_with_trace(&f, "-F 32 -S 512 -s 8", "dmg");
	uint64_t entry = vol.fat_offset + (uint64_t)(f.first_cluster + 3) * 4;

	/* The fourth cluster points back at the first: a loop. */
	damage_entry(&f, entry, f.first_cluster, "the cluster chain is longer than the file size");
	damage_entry(&f, entry, 0, "a cluster chain runs into a free cluster");
	damage_entry(&f, entry, 0x0FFFFFFF, "the cluster chain is shorter than the file size");
	damage_entry(&f, entry, 0x0EF0F0F0, "a cluster chain names a cluster outside the volume");
	damage_entry(&f, entry, 0x0FFFFFF7, "a cluster of the chain is marked bad");

	/* No boot sector signature. */
	int fd = open(img, O_RDWR);
	assert_int_equal(pwrite(fd, "\0\0", 2, 510), 2);
	close(fd);
	mount_refused("no boot sector signature 0x55 0xAA");
}

/* FAT12 (a floppy-sized volume) is refused by name; the type follows the
 * cluster count, not what mkfs was asked for. */
static void test_fat_type_by_cluster_count(void **state)
{
	(void)state;
	SKIP_WITHOUT_TOOLS();
	make_volume(2, "-F 12 -S 512 -s 1");
	mount_refused("FAT12 volume (fewer than 4085 clusters): only FAT16 and FAT32 are read");
	/* mkfs.vfat -F 32 on 64 MiB of 4 KiB clusters only warns: readers
	 * take it for FAT16 by its 16,000-odd clusters, and so does this one,
	 * which then finds no FAT16 root directory and says so. */
	make_volume(64, "-F 32 -S 512 -s 8 2>/dev/null");
	mount_refused("FAT16 volume without root directory entries (BPB_RootEntCnt 0)");
}

#define PART_BLOCKS (1u << 20) /* a partition the runs below fit in */

/* Runs to whole-disk extents: partition start + offset / block size, and
 * never past the partition's end. */
static void test_extents_to_disk(void **state)
{
	struct fat_extent e[BOOTINFO_STICK_EXTENTS_MAX + 1] = {
		{ .offset = 4096 * 10, .bytes = 8192 }, { .offset = 4096 * 40, .bytes = 4096 * 5 },
	};
	struct bootinfo_stick_extent out[BOOTINFO_STICK_EXTENTS_MAX];
	struct fat_file f;
	uint32_t n;

	(void)state;
	assert_int_equal(stick_extents_from_fat(e, 2, 2048, PART_BLOCKS, 512, out), 0);
	assert_int_equal(out[0].lba, 2048 + 80);
	assert_int_equal(out[0].blocks, 16);
	assert_int_equal(out[1].lba, 2048 + 320);
	assert_int_equal(out[1].blocks, 40);
	/* The last run ends at block 360 of the partition: a partition of 360
	 * blocks holds it, one of 359 does not (nor one that ends before it). */
	assert_int_equal(stick_extents_from_fat(e, 2, 2048, 360, 512, out), 0);
	assert_int_equal(stick_extents_from_fat(e, 2, 2048, 359, 512, out), -1);
	assert_int_equal(stick_extents_from_fat(e, 2, 2048, 300, 512, out), -1);
	assert_int_equal(stick_extents_from_fat(e, 2, 256, PART_BLOCKS, 4096, out), 0);
	assert_int_equal(out[1].lba, 256 + 40);
	assert_int_equal(out[1].blocks, 5);
	e[1].offset += 512; /* mid-block on a 4096-byte-block disk */
	assert_int_equal(stick_extents_from_fat(e, 2, 256, PART_BLOCKS, 4096, out), -1);
	assert_int_equal(stick_extents_from_fat(e, 2, 256, PART_BLOCKS, 512, out), 0);
	e[1].bytes = 1000;
	assert_int_equal(stick_extents_from_fat(e, 2, 256, PART_BLOCKS, 512, out), -1);
	assert_int_equal(stick_extents_from_fat(e, BOOTINFO_STICK_EXTENTS_MAX + 1, 0, PART_BLOCKS, 512, out), -1);

	/* A volume made without aligning its data region (mkfs.vfat -a, an
	 * odd reserved count): fine on 512-byte blocks, refused on 4096. */
	SKIP_WITHOUT_TOOLS();
	fat32_with_trace(&f, "-a -F 32 -S 512 -s 8 -R 33", "align");
	assert_int_not_equal(vol.data_offset % 4096, 0);
	assert_int_equal(fat_extents(&vol, &f, 512, ext, 64, &n), FAT_OK);
	assert_int_equal(stick_extents_from_fat(ext, n, 2048, PART_BLOCKS, 512, out), 0);
	assert_int_equal(out[0].lba, 2048 + ext[0].offset / 512);
	assert_int_equal(fat_extents(&vol, &f, 4096, ext, 64, &n), FAT_OK);
	assert_int_equal(stick_extents_from_fat(ext, n, 2048, PART_BLOCKS, 4096, out), -1);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/kprof-test-fat-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	if (img_fd >= 0)
		close(img_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fat32_contiguous),
		cmocka_unit_test(test_fat32_fragmented),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_cluster_sizes),
		cmocka_unit_test(test_damage),
		cmocka_unit_test(test_fat_type_by_cluster_count),
		cmocka_unit_test(test_extents_to_disk),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
