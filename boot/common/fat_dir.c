/*
 * fat_dir.c - directories of a FAT volume: find a path, component by
 * component, matching each against an entry's long name (the LDIR_ entries
 * before it, checked by ordinal and checksum) or its 8.3 name, ASCII and
 * case-insensitive, as mtools and Windows write them (fat.h).
 *
 * A directory is the FAT16 root's fixed sectors or a cluster chain (the
 * FAT32 root, every subdirectory); it is read one sector at a time into
 * v->sector.  The walk over a chain is bounded by the volume's cluster
 * count, so a looping chain ends as damage.
 */
#include "boot/common/fat.h"

#include "kernel/lib/bytes.h"

#define DIR_ENTRY 32
#define ATTR_LONG_NAME 0x0F
#define ATTR_VOLUME_ID 0x08
#define ATTR_DIRECTORY 0x10
#define LFN_CHARS 13 /* per LDIR entry */

/* Where the next sector of a directory is. */
struct dir_iter {
	uint32_t cluster;    /* current cluster, 0 for the FAT16 root       */
	uint32_t sector;     /* sector within the cluster (or the root)     */
	uint32_t sectors;    /* sectors in a cluster (or the whole root)    */
	uint32_t hops;       /* clusters followed, bounded by the volume    */
};

/* A long name being collected from LDIR entries, last part first. */
struct lfn {
	char name[FAT_NAME_MAX + 1];
	uint32_t expect;  /* ordinal the next LDIR entry must carry, 0: none */
	uint8_t sum;      /* LDIR_Chksum all parts must agree on            */
	int valid;        /* a whole name ending at ordinal 1 was collected */
};

static char upper(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

static int name_eq(const char *a, uint32_t alen, const char *b)
{
	uint32_t i;

	for (i = 0; i < alen; i++)
		if (!b[i] || upper(a[i]) != upper(b[i]))
			return 0;
	return b[i] == 0;
}

/* The 8.3 name as "NAME.EXT" (no dot without an extension). */
static void short_name(const uint8_t *e, char *out)
{
	uint32_t n = 0, end = 8;

	while (end && e[end - 1] == ' ')
		end--;
	for (uint32_t i = 0; i < end; i++)
		out[n++] = (char)(i == 0 && e[0] == 0x05 ? 0xE5 : e[i]);
	end = 11;
	while (end > 8 && e[end - 1] == ' ')
		end--;
	if (end > 8)
		out[n++] = '.';
	for (uint32_t i = 8; i < end; i++)
		out[n++] = (char)e[i];
	out[n] = 0;
}

static uint8_t short_sum(const uint8_t *e)
{
	uint8_t sum = 0;

	for (int i = 0; i < 11; i++)
		sum = (uint8_t)(((sum & 1) << 7) + (sum >> 1) + e[i]);
	return sum;
}

/* One LDIR entry: its 13 UCS-2 characters at LDIR_Name1/2/3. */
static void lfn_add(struct lfn *l, const uint8_t *e)
{
	static const uint8_t at[LFN_CHARS] = { 1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30 };
	uint32_t ord = e[0] & 0x1F;

	if (e[0] & 0x40) { /* the last part, which comes first */
		if (!ord || ord * LFN_CHARS > FAT_NAME_MAX + LFN_CHARS) {
			l->expect = 0;
			return;
		}
		l->sum = e[13];
		l->name[ord * LFN_CHARS > FAT_NAME_MAX ? FAT_NAME_MAX : ord * LFN_CHARS] = 0;
	} else if (!l->expect || ord != l->expect || e[13] != l->sum) {
		l->expect = 0; /* out of order: an orphan, ignored */
		l->valid = 0;
		return;
	}
	for (uint32_t i = 0; i < LFN_CHARS; i++) {
		uint32_t pos = (ord - 1) * LFN_CHARS + i;
		uint32_t ch = e[at[i]] | (uint32_t)e[at[i] + 1] << 8;

		if (pos >= FAT_NAME_MAX)
			break;
		if (ch == 0 || ch == 0xFFFF) {
			l->name[pos] = 0;
			break;
		}
		l->name[pos] = ch < 0x80 ? (char)ch : '\x7f'; /* never matches ASCII */
	}
	l->expect = ord - 1;
	l->valid = ord == 1;
}

/* The next sector of the directory into v->sector: 1, 0 at its end, or a
 * negative status. */
static int dir_read(struct fat_volume *v, struct dir_iter *it)
{
	uint64_t off;

	if (it->sector == it->sectors) {
		if (!it->cluster)
			return 0; /* end of the FAT16 root */
		int r = fat_next(v, it->cluster, &it->cluster);
		if (r <= 0)
			return r;
		if (++it->hops > v->clusters) {
			v->why = "a directory's cluster chain loops";
			return -FAT_BAD;
		}
		it->sector = 0;
	}
	if (it->cluster)
		off = v->data_offset + (uint64_t)(it->cluster - 2) * v->cluster_bytes;
	else
		off = v->root_offset;
	off += (uint64_t)it->sector++ * v->bytes_per_sector;
	if (v->read(v->ctx, off, v->sector, v->bytes_per_sector))
		return -FAT_IO;
	return 1;
}

/* Find name[0..len) in the directory starting at cluster (0: the FAT16
 * root). */
static enum fat_status dir_find(struct fat_volume *v, uint32_t cluster, const char *name, uint32_t len,
				struct fat_file *out)
{
	struct dir_iter it = { .cluster = cluster };
	struct lfn l = { .expect = 0 };
	char sname[13];
	int r;

	it.sectors = cluster ? v->cluster_bytes / v->bytes_per_sector
			     : (v->root_entries * DIR_ENTRY + v->bytes_per_sector - 1) / v->bytes_per_sector;
	if (cluster && (cluster < 2 || cluster >= v->clusters + 2)) {
		v->why = "a directory entry names a cluster outside the volume";
		return FAT_BAD;
	}
	while ((r = dir_read(v, &it)) > 0) {
		for (uint32_t i = 0; i < v->bytes_per_sector; i += DIR_ENTRY) {
			const uint8_t *e = v->sector + i;
			uint8_t attr = e[11];

			if (e[0] == 0x00)
				return FAT_NOT_FOUND; /* no entries after this one */
			if (e[0] == 0xE5) {
				l.expect = 0;
				l.valid = 0;
				continue;
			}
			if ((attr & 0x3F) == ATTR_LONG_NAME) {
				lfn_add(&l, e);
				continue;
			}
			int lfn_ok = l.valid && l.sum == short_sum(e);
			l.expect = 0;
			l.valid = 0;
			if (attr & ATTR_VOLUME_ID)
				continue;
			short_name(e, sname);
			if (!name_eq(name, len, sname) && !(lfn_ok && name_eq(name, len, l.name)))
				continue;
			out->attr = attr;
			out->size = get_le32(e + 28);                    /* DIR_FileSize */
			out->first_cluster = get_le16(e + 26) |          /* DIR_FstClusLO */
					     (v->type == 32 ? (uint32_t)get_le16(e + 20) << 16 : 0); /* DIR_FstClusHI */
			return FAT_OK;
		}
	}
	return r == 0 ? FAT_NOT_FOUND : (enum fat_status)-r;
}

enum fat_status fat_lookup(struct fat_volume *v, const char *path, struct fat_file *out)
{
	uint32_t dir = v->type == 32 ? v->root_cluster : 0;
	struct fat_file f = { .attr = ATTR_DIRECTORY };

	for (;;) {
		while (*path == '\\' || *path == '/')
			path++;
		if (!*path)
			break;
		if (!(f.attr & ATTR_DIRECTORY)) {
			v->why = "a file stands where the path needs a directory";
			return FAT_NOT_FILE;
		}
		uint32_t len = 0;
		while (path[len] && path[len] != '\\' && path[len] != '/')
			len++;
		enum fat_status st = dir_find(v, dir, path, len, &f);
		if (st == FAT_NOT_FOUND)
			v->why = path[len] ? "a directory on the path does not exist" : "the file does not exist";
		if (st != FAT_OK)
			return st;
		path += len;
		/* ".." back to the root is cluster 0 in every FAT type. */
		dir = f.first_cluster ? f.first_cluster : (v->type == 32 ? v->root_cluster : 0);
	}
	if (f.attr & ATTR_DIRECTORY) {
		v->why = "the path names a directory";
		return FAT_NOT_FILE;
	}
	*out = f;
	return FAT_OK;
}
