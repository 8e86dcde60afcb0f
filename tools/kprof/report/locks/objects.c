/*
 * objects.c - the profile-objects section of `kprof report`: each
 * KprofProfileObject record (a basic profile object's range, CPUs,
 * process, Hits and bucket counts, written when it stops) with its
 * buckets summed per function, in the hot spots' table (hot.c).
 */
#include "tools/kprof/report/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/read/fields.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

static void affinity_text(const uint64_t aff[4], char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = 0;
	for (unsigned c = 0; c < 256 && len < size; c++) {
		if (!(aff[c / 64] >> (c % 64) & 1))
			continue;
		unsigned e = c;
		while (e + 1 < 256 && (aff[(e + 1) / 64] >> ((e + 1) % 64) & 1))
			e++;
		if (e == c)
			len += (size_t)snprintf(buf + len, size - len, "%s%u", len ? "," : "", c);
		else
			len += (size_t)snprintf(buf + len, size - len, "%s%u-%u", len ? "," : "", c, e);
		c = e;
	}
	if (!buf[0])
		snprintf(buf, size, "none");
}

static int cmp_row_addr(const void *a, const void *b)
{
	const struct kp_hot_row *x = a, *y = b;
	if (x->known != y->known)
		return x->known ? -1 : 1;
	return kp_cmp_u64(x->func, y->func);
}

/* The object's buckets summed by the function each bucket starts in. */
static size_t bucket_rows(const struct kp_symbols *syms, const KPROF_PROFILE_OBJECT *po, const uint8_t *buckets,
			  size_t nb, struct kp_hot_row *rows, struct kp_hot_row *outside, uint64_t *sum)
{
	unsigned shift = po->BucketShift + 2u;
	size_t nr = 0;

	*outside = (struct kp_hot_row){ 0 };
	*sum = 0;
	for (size_t i = 0; i < nb; i++) {
		uint32_t c;
		memcpy(&c, buckets + 4 * i, 4);
		if (!c)
			continue;
		*sum += c;
		uint64_t addr = po->RangeBase + (shift < 64 ? (uint64_t)i << shift : 0);
		struct kp_hot_row x = { .weight = c, .count = 1 };
		x.known = kp_symbols_lookup(syms, addr, NULL, &x.func, NULL);
		if (!x.known) {
			outside->weight += c;
			outside->count++;
			continue;
		}
		rows[nr++] = x;
	}
	kp_sort(rows, nr, sizeof(*rows), cmp_row_addr);
	size_t out = 0;
	for (size_t i = 0; i < nr; i++) {
		if (out && rows[out - 1].func == rows[i].func) {
			rows[out - 1].weight += rows[i].weight;
			rows[out - 1].count += rows[i].count;
		} else {
			rows[out++] = rows[i];
		}
	}
	kp_sort(rows, out, sizeof(*rows), kp_hot_row_cmp);
	return out;
}

/* The non-inclusive end of a range: as the end of the function its last
 * byte is in ("name+0x43") when there is one. */
static const char *range_end(const struct kp_symbols *syms, uint64_t limit, char *buf, size_t size)
{
	const char *name;
	uint64_t start;

	if (limit && kp_symbols_lookup(syms, limit - 1, &name, &start, NULL))
		snprintf(buf, size, "%s+0x%" PRIx64, name, limit - start);
	else
		snprintf(buf, size, "0x%" PRIx64, limit);
	return buf;
}

static void object_head(FILE *f, const struct kp_symbols *syms, const KPROF_PROFILE_OBJECT *po, size_t nb)
{
	char a[128], b[128], cpus[200], sbuf[32], line[600];

	snprintf(line, sizeof(line), "Profile object %u: %s, source %s, CPUs %s, range %s .. %s (0x%" PRIx64
		 "..0x%" PRIx64 ", limit not included), %u-byte buckets, %u buckets",
		 po->ProfileId, (po->Flags & KPROF_PROFILE_OBJECT_PROCESS) ? "per process" : "global",
		 kp_source_name(po->Source, sbuf, sizeof(sbuf)), (affinity_text(po->Affinity, cpus, sizeof(cpus)), cpus),
		 kp_symbols_format(syms, po->RangeBase, a, sizeof(a)), range_end(syms, po->RangeLimit, b, sizeof(b)),
		 po->RangeBase, po->RangeLimit, 1u << ((po->BucketShift + 2u) & 31), po->BucketCount);
	kp_wrap(f, "", 0, 0, " ", line);
	if (po->Flags & KPROF_PROFILE_OBJECT_PROCESS)
		fprintf(f, "  process %u only\n", po->ProcessId);
	if (nb < po->BucketCount)
		fprintf(f, "  TRUNCATED: the record holds %zu of its %u buckets (the record size limit)\n", nb,
			po->BucketCount);
}

static void report_object(FILE *f, const struct kp_symbols *syms, const struct kp_record *r)
{
	KPROF_PROFILE_OBJECT po;
	size_t nb = (r->payload_size - sizeof(po)) / 4, nr;
	struct kp_hot_row *rows = kp_xcalloc(nb, sizeof(*rows)), outside;
	uint64_t sum;

	memcpy(&po, r->payload, sizeof(po));
	object_head(f, syms, &po, nb);
	nr = bucket_rows(syms, &po, r->payload + sizeof(po), nb, rows, &outside, &sum);
	fprintf(f, "  Hits %" PRIu64 ", buckets sum to %" PRIu64 "%s\n", po.Hits, sum,
		sum == po.Hits ? "" : (nb < po.BucketCount ? " (truncated)" : " (DIFFERENT from Hits)"));
	if (sum) {
		fprintf(f, "  %10s %8s %10s  %s\n", "hits", "%", "buckets", "function (the bucket's start address in it)");
		kp_hot_rows(f, syms, rows, nr, TOP_BUCKET_FUNCS, sum, true, NULL);
		if (outside.count)
			kp_hot_row_line(f, &outside, sum, true, NULL, "(outside any function)");
	}
	fputc('\n', f);
	free(rows);
}

void kp_report_profile_objects(FILE *f, const struct kp_report *rp)
{
	struct kp_merge m;
	struct kp_record r;
	size_t n = 0;

	kp_report_section(f, "Profile objects");
	kp_merge_init(&m, rp->log);
	while (kp_merge_next(&m, &r)) {
		if (r.h.HookId != KPROF_LOG_TYPE_PROFILE_OBJECT || r.payload_size < sizeof(KPROF_PROFILE_OBJECT))
			continue;
		report_object(f, rp->syms, &r);
		n++;
	}
	kp_merge_free(&m);
	if (!n)
		fprintf(f, "No KprofProfileObject records (written when scenario=profile stops its objects, "
			   "with trace=profile).\n");
}
