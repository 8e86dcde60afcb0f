/*
 * test_acpi.c - the ACPI table walk (kernel/acpi/tables.c) and the FADT,
 * HPET, SPCR and MCFG parsers, on synthetic tables built in host memory.
 *
 * Each table gets a fake physical address and its own exactly-sized heap
 * block, so ASan catches a parser reading past a table; fake_map()
 * translates physical ranges it knows and refuses (NULL) everything else.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/acpi/acpi.h"

/* ------------------------------------------------------------ fake memory */

struct region {
	uint64_t phys;  /* fake physical address */
	uint8_t *host;  /* exactly size bytes    */
	size_t size;
};

static struct region regions[128];
static unsigned nregions;
static unsigned map_refused;

static uint8_t *phys_alloc(uint64_t phys, size_t size)
{
	assert_true(nregions < sizeof(regions) / sizeof(regions[0]));
	uint8_t *p = calloc(1, size);
	assert_non_null(p);
	regions[nregions++] = (struct region){ .phys = phys, .host = p, .size = size };
	return p;
}

static const void *fake_map(uint64_t phys, size_t len)
{
	for (unsigned i = 0; i < nregions; i++) {
		const struct region *r = &regions[i];
		if (phys >= r->phys && len <= r->size && phys - r->phys <= r->size - len)
			return r->host + (phys - r->phys);
	}
	map_refused++;
	return NULL;
}

/* ---------------------------------------------------------------- warnings */

#include "support/warnings.h"

static int reset(void **state)
{
	(void)state;
	for (unsigned i = 0; i < nregions; i++)
		free(regions[i].host);
	nregions = 0;
	map_refused = 0;
	nwarnings = 0;
	memset(warnings, 0, sizeof(warnings));
	return 0;
}

/* ----------------------------------------------------------- table builder */

static void put8(uint8_t *t, size_t off, uint8_t v) { t[off] = v; }
static void put16(uint8_t *t, size_t off, uint16_t v) { memcpy(t + off, &v, 2); }
static void put32(uint8_t *t, size_t off, uint32_t v) { memcpy(t + off, &v, 4); }
static void put64(uint8_t *t, size_t off, uint64_t v) { memcpy(t + off, &v, 8); }

static void put_gas(uint8_t *t, size_t off, uint8_t space, uint8_t width, uint8_t access, uint64_t addr)
{
	put8(t, off, space);
	put8(t, off + 1, width);
	put8(t, off + 2, 0);
	put8(t, off + 3, access);
	put64(t, off + 4, addr);
}

/* Sum of n bytes, computed here rather than with the code under test. */
static uint8_t sum8(const uint8_t *p, size_t n)
{
	uint8_t s = 0;
	while (n--)
		s = (uint8_t)(s + *p++);
	return s;
}

/* Make the n bytes at p sum to 0 by setting the byte at csum. */
static void fix_sum(uint8_t *p, size_t n, size_t csum)
{
	p[csum] = 0;
	p[csum] = (uint8_t)(0x100 - sum8(p, n));
}

/* A table of len bytes at phys with a filled header; call seal() when done. */
static uint8_t *sdt(uint64_t phys, const char *sig, uint32_t len, uint8_t rev)
{
	uint8_t *t = phys_alloc(phys, len);
	memcpy(t, sig, 4);
	put32(t, 4, len);
	put8(t, 8, rev);
	memcpy(t + 10, "KPROF ", 6);
	memcpy(t + 16, "SYNTHTBL", 8);
	put32(t, 24, 1);
	put32(t, 28, 0x4B50524F);
	put32(t, 32, 1);
	return t;
}

/* Checksum over the length the header states (and the block holds). */
static void seal(uint8_t *t)
{
	uint32_t len;
	memcpy(&len, t + 4, 4);
	fix_sum(t, len, 9);
}

static uint8_t *rsdp(uint64_t phys, uint8_t rev, uint32_t rsdt, uint64_t xsdt)
{
	uint8_t *r = phys_alloc(phys, rev >= 2 ? 36 : 20);
	memcpy(r, "RSD PTR ", 8);
	memcpy(r + 9, "KPROF ", 6);
	put8(r, 15, rev);
	put32(r, 16, rsdt);
	if (rev >= 2) {
		put32(r, 20, 36);
		put64(r, 24, xsdt);
	}
	fix_sum(r, 20, 8);
	if (rev >= 2)
		fix_sum(r, 36, 32); /* covers the first checksum too */
	return r;
}

static uint8_t *root(uint64_t phys, bool xsdt, const uint64_t *addrs, unsigned n)
{
	unsigned esz = xsdt ? 8 : 4;
	uint8_t *t = sdt(phys, xsdt ? "XSDT" : "RSDT", 36 + n * esz, 1);
	for (unsigned i = 0; i < n; i++) {
		if (xsdt)
			put64(t, 36 + i * 8, addrs[i]);
		else
			put32(t, 36 + i * 4, (uint32_t)addrs[i]);
	}
	seal(t);
	return t;
}

enum {
	FADT_LEN = 276, /* ACPI 6.x */
};

static uint8_t *make_fadt(uint64_t phys, uint32_t len)
{
	uint8_t *t = sdt(phys, "FACP", len, len >= 244 ? 6 : 1);
	put32(t, 76, 0x408);  /* PM_TMR_BLK     */
	put8(t, 91, 4);       /* PM_TMR_LEN     */
	put16(t, 109, 0x0002); /* IAPC_BOOT_ARCH: 8042 */
	put32(t, 112, 0);     /* Flags          */
	if (len >= 220)
		put_gas(t, 208, ACPI_GAS_IO, 32, 3, 0x608);
	seal(t);
	return t;
}

static uint8_t *make_madt(uint64_t phys)
{
	uint8_t *t = sdt(phys, "APIC", 44 + 8, 4);
	put32(t, 36, 0xFEE00000);
	put32(t, 40, 1);
	put8(t, 44, 0);
	put8(t, 45, 8);
	put32(t, 48, 1);
	seal(t);
	return t;
}

static uint8_t *make_hpet(uint64_t phys)
{
	uint8_t *t = sdt(phys, "HPET", 56, 1);
	put32(t, 36, 0x8086A201);
	put_gas(t, 40, ACPI_GAS_MEMORY, 64, 0, 0xFED00000);
	put8(t, 52, 0);
	put16(t, 53, 0x0080);
	seal(t);
	return t;
}

static uint8_t *make_spcr(uint64_t phys, uint8_t rev, uint8_t space, uint64_t addr, uint8_t access, uint8_t baud)
{
	uint8_t *t = sdt(phys, "SPCR", 80, rev);
	put8(t, 36, space == ACPI_GAS_IO ? 0 : 0x12);
	put_gas(t, 40, space, 8, access, addr);
	put8(t, 52, 1);       /* 8259 */
	put8(t, 53, 4);       /* IRQ 4 */
	put32(t, 54, 4);
	put8(t, 58, baud);
	put8(t, 60, 1);
	put8(t, 62, 0);
	put16(t, 64, 0xFFFF); /* not PCI */
	put16(t, 66, 0xFFFF);
	put32(t, 76, 1843200); /* ignored before revision 3 */
	seal(t);
	return t;
}

/* nseg whole entries, then `partial` stray bytes. */
static uint8_t *make_mcfg(uint64_t phys, unsigned nseg, unsigned partial)
{
	uint8_t *t = sdt(phys, "MCFG", 44 + nseg * 16 + partial, 1);
	for (unsigned i = 0; i < nseg; i++) {
		put64(t, 44 + i * 16, 0xB0000000ull + (uint64_t)i * 0x10000000);
		put16(t, 44 + i * 16 + 8, (uint16_t)i);
		put8(t, 44 + i * 16 + 10, 0);
		put8(t, 44 + i * 16 + 11, (uint8_t)(0xFF >> i % 8));
	}
	memset(t + 44 + nseg * 16, 0xAA, partial);
	seal(t);
	return t;
}

/* The physical layout used by the scan tests. */
#define P_RSDP 0xF5A10ull
#define P_XSDT 0x7FFE0000ull
#define P_RSDT 0x7FFE0800ull
#define P_FACP 0x7FFE1000ull
#define P_APIC 0x7FFE2000ull
#define P_HPET 0x7FFE3000ull
#define P_SPCR 0x7FFE4000ull
#define P_MCFG 0x7FFE5000ull
#define P_NONE 0x7FFE6000ull /* nothing there: map refuses it */

static const uint64_t five[] = { P_FACP, P_APIC, P_HPET, P_SPCR, P_MCFG };

struct set {
	uint8_t *rsdp, *xsdt, *rsdt, *facp, *apic, *hpet, *spcr, *mcfg;
};

/* RSDP v2 -> XSDT and RSDT, both listing {FACP, APIC, HPET, SPCR, MCFG}. */
static struct set full_set(void)
{
	struct set s;
	s.rsdp = rsdp(P_RSDP, 2, (uint32_t)P_RSDT, P_XSDT);
	s.xsdt = root(P_XSDT, true, five, 5);
	s.rsdt = root(P_RSDT, false, five, 5);
	s.facp = make_fadt(P_FACP, FADT_LEN);
	s.apic = make_madt(P_APIC);
	s.hpet = make_hpet(P_HPET);
	s.spcr = make_spcr(P_SPCR, 2, ACPI_GAS_IO, 0x3F8, 1, 7);
	s.mcfg = make_mcfg(P_MCFG, 1, 0);
	return s;
}

static struct acpi_tables tabs;

static void expect_five(void)
{
	static const char *const sigs[] = { "FACP", "APIC", "HPET", "SPCR", "MCFG" };
	assert_int_equal(tabs.count, 5);
	for (unsigned i = 0; i < 5; i++) {
		const struct acpi_table_ref *r = acpi_find(&tabs, sigs[i], 0);
		assert_non_null(r);
		assert_ptr_equal(r, &tabs.table[i]);
		assert_string_equal(r->signature, sigs[i]);
		assert_int_equal(r->phys, five[i]);
		assert_ptr_equal(r->va, fake_map(five[i], r->length));
		assert_null(acpi_find(&tabs, sigs[i], 1));
	}
}

/* ---------------------------------------------------------------- scanning */

static void test_checksum(void **state)
{
	(void)state;
	uint8_t b[5] = { 0x10, 0x20, 0x30, 0x40, 0x00 };
	assert_int_equal(acpi_checksum(b, 4), 0xA0);
	b[4] = 0x60;
	assert_int_equal(acpi_checksum(b, 5), 0);
	assert_int_equal(acpi_checksum(b, 0), 0);
	uint8_t ff[3] = { 0xFF, 0xFF, 0x02 };
	assert_int_equal(acpi_checksum(ff, 3), 0);
}

static void test_full_v2_xsdt(void **state)
{
	(void)state;
	full_set();
	assert_int_equal(acpi_scan(P_RSDP, fake_map, collect, &tabs), 0);
	assert_int_equal(nwarnings, 0);
	assert_int_equal(tabs.rsdp_phys, P_RSDP);
	assert_int_equal(tabs.revision, 2);
	assert_string_equal(tabs.oem_id, "KPROF ");
	assert_true(tabs.xsdt);
	assert_int_equal(tabs.skipped, 0);
	assert_int_equal(tabs.dropped, 0);
	expect_five();
	assert_int_equal(acpi_find(&tabs, "FACP", 0)->length, FADT_LEN);

	/* Each table found parses. */
	const struct acpi_table_ref *r;
	struct acpi_fadt_info f;
	struct acpi_hpet_info h;
	struct acpi_spcr_info s;
	struct acpi_mcfg_info m;
	r = acpi_find(&tabs, "FACP", 0);
	assert_int_equal(acpi_parse_fadt(r->va, r->length, collect, &f), 0);
	assert_int_equal(f.pm_timer_port, 0x608);
	r = acpi_find(&tabs, "HPET", 0);
	assert_int_equal(acpi_parse_hpet(r->va, r->length, collect, &h), 0);
	assert_int_equal(h.base, 0xFED00000);
	r = acpi_find(&tabs, "SPCR", 0);
	assert_int_equal(acpi_parse_spcr(r->va, r->length, collect, &s), 0);
	assert_int_equal(s.base.address, 0x3F8);
	r = acpi_find(&tabs, "MCFG", 0);
	assert_int_equal(acpi_parse_mcfg(r->va, r->length, collect, &m), 0);
	assert_int_equal(m.count, 1);
	assert_int_equal(nwarnings, 0);
}

static void test_v0_rsdt(void **state)
{
	(void)state;
	/* A 20-byte ACPI 1.0 RSDP: mapping 36 bytes there would be refused. */
	rsdp(P_RSDP, 0, (uint32_t)P_RSDT, 0);
	root(P_RSDT, false, five, 5);
	make_fadt(P_FACP, 116);
	make_madt(P_APIC);
	make_hpet(P_HPET);
	make_spcr(P_SPCR, 1, ACPI_GAS_IO, 0x2F8, 1, 0);
	make_mcfg(P_MCFG, 2, 0);
	assert_int_equal(acpi_scan(P_RSDP, fake_map, collect, &tabs), 0);
	assert_int_equal(nwarnings, 0);
	assert_int_equal(map_refused, 0);
	assert_int_equal(tabs.revision, 0);
	assert_false(tabs.xsdt);
	expect_five();
}

static void test_bad_rsdp(void **state)
{
	(void)state;
	struct set s = full_set();

	s.rsdp[8]++; /* checksum of the first 20 bytes */
	assert_int_equal(acpi_scan(P_RSDP, fake_map, collect, &tabs), -1);
	assert_true(warned("RSDP at 0xf5a10: checksum"));
	assert_int_equal(tabs.count, 0);
	s.rsdp[8]--;

	s.rsdp[3] = 'x'; /* signature */
	fix_sum(s.rsdp, 20, 8);
	assert_int_equal(acpi_scan(P_RSDP, fake_map, collect, &tabs), -1);
	assert_true(warned("signature"));

	/* Not mappable at all; and no warn function. */
	nwarnings = 0;
	assert_int_equal(acpi_scan(P_NONE, fake_map, collect, &tabs), -1);
	assert_true(warned("RSDP at 0x7ffe6000 cannot be mapped"));
	assert_int_equal(acpi_scan(P_NONE, fake_map, NULL, &tabs), -1);
}

static void test_bad_xsdt_falls_back_to_rsdt(void **state)
{
	(void)state;
	struct set s = full_set();
	s.xsdt[40] ^= 0x01; /* an entry changes, the checksum does not */
	assert_int_equal(acpi_scan(P_RSDP, fake_map, collect, &tabs), 0);
	assert_false(tabs.xsdt);
	expect_five();
	assert_int_equal(tabs.skipped, 0);
	assert_int_equal(nwarnings, 1);
	assert_true(warned("acpi: XSDT at 0x7ffe0000: checksum"));
	assert_true(warned("using the RSDT"));
}

static void test_xsdt_unusable_other_ways(void **state)
{
	(void)state;
	struct set s = full_set();

	/* XSDT address 0 in a revision 2 RSDP. */
	put64(s.rsdp, 24, 0);
	fix_sum(s.rsdp, 36, 32);
	assert_int_equal(acpi_scan(P_RSDP, fake_map, collect, &tabs), 0);
	assert_false(tabs.xsdt);
	expect_five();
	assert_true(warned("no XSDT"));

	/* XSDT address pointing at another table. */
	nwarnings = 0;
	put64(s.rsdp, 24, P_FACP);
	fix_sum(s.rsdp, 36, 32);
	assert_int_equal(acpi_scan(P_RSDP, fake_map, collect, &tabs), 0);
	assert_false(tabs.xsdt);
	expect_five();
	assert_true(warned("XSDT at 0x7ffe1000: signature is FACP, using the RSDT"));

	/* XSDT address that cannot be mapped. */
	nwarnings = 0;
	put64(s.rsdp, 24, P_NONE);
	fix_sum(s.rsdp, 36, 32);
	assert_int_equal(acpi_scan(P_RSDP, fake_map, collect, &tabs), 0);
	assert_false(tabs.xsdt);
	assert_true(warned("XSDT at 0x7ffe6000: header cannot be mapped, using the RSDT"));
}

static void test_bad_extended_checksum_uses_rsdt(void **state)
{
	(void)state;
	struct set s = full_set();

	s.rsdp[32]++; /* extended checksum only: the ACPI 1.0 part is fine */
	assert_int_equal(acpi_scan(P_RSDP, fake_map, collect, &tabs), 0);
	assert_false(tabs.xsdt);
	expect_five();
	assert_true(warned("extended checksum"));
	s.rsdp[32]--;

	/* Unbelievable length. */
	nwarnings = 0;
	put32(s.rsdp, 20, 5000);
	fix_sum(s.rsdp, 36, 32);
	assert_int_equal(acpi_scan(P_RSDP, fake_map, collect, &tabs), 0);
	assert_false(tabs.xsdt);
	assert_true(warned("length 5000 is not believable, using the RSDT"));

	/* Believable but beyond what can be mapped. */
	nwarnings = 0;
	put32(s.rsdp, 20, 40);
	fix_sum(s.rsdp, 36, 32);
	assert_int_equal(acpi_scan(P_RSDP, fake_map, collect, &tabs), 0);
	assert_false(tabs.xsdt);
	assert_true(warned("40 bytes cannot be mapped, using the RSDT"));
}

static void test_both_roots_bad(void **state)
{
	(void)state;
	struct set s = full_set();
	s.xsdt[9]++;
	s.rsdt[9]++;
	assert_int_equal(acpi_scan(P_RSDP, fake_map, collect, &tabs), -1);
	assert_int_equal(tabs.count, 0);
	assert_true(warned("XSDT at 0x7ffe0000"));
	assert_true(warned("RSDT at 0x7ffe0800: checksum"));
	assert_true(warned("no usable root table"));

	/* XSDT bad and no RSDT address. */
	nwarnings = 0;
	put32(s.rsdp, 16, 0);
	fix_sum(s.rsdp, 20, 8);
	fix_sum(s.rsdp, 36, 32);
	assert_int_equal(acpi_scan(P_RSDP, fake_map, collect, &tabs), -1);
	assert_true(warned("RSDT address is 0"));
}

static void test_bad_table_checksum_skipped(void **state)
{
	(void)state;
	struct set s = full_set();
	char want[128];

	s.apic[44 + 3] = 7; /* a processor's APIC id, checksum unchanged */
	snprintf(want, sizeof(want), "acpi: table APIC at 0x7ffe2000: checksum 0x%02x is wrong (sum must be 0), skipped",
		 s.apic[9]);
	assert_int_equal(acpi_scan(P_RSDP, fake_map, collect, &tabs), 0);
	assert_true(tabs.xsdt);
	assert_int_equal(tabs.count, 4);
	assert_int_equal(tabs.skipped, 1);
	assert_int_equal(nwarnings, 1);
	assert_string_equal(warnings[0], want);
	assert_null(acpi_find(&tabs, "APIC", 0));
	assert_non_null(acpi_find(&tabs, "FACP", 0));
	assert_non_null(acpi_find(&tabs, "HPET", 0));
	assert_non_null(acpi_find(&tabs, "SPCR", 0));
	assert_non_null(acpi_find(&tabs, "MCFG", 0));

	/* The same without a warn function. */
	assert_int_equal(acpi_scan(P_RSDP, fake_map, NULL, &tabs), 0);
	assert_int_equal(tabs.count, 4);
	assert_int_equal(tabs.skipped, 1);
}

static void test_table_length_short_or_huge(void **state)
{
	(void)state;
	struct set s = full_set();

	put32(s.hpet, 4, 20);
	fix_sum(s.hpet, 20, 9);
	assert_int_equal(acpi_scan(P_RSDP, fake_map, collect, &tabs), 0);
	assert_int_equal(tabs.count, 4);
	assert_int_equal(tabs.skipped, 1);
	assert_string_equal(warnings[0], "acpi: table HPET at 0x7ffe3000: length 20 is shorter than a table header, skipped");
	assert_null(acpi_find(&tabs, "HPET", 0));

	nwarnings = 0;
	put32(s.hpet, 4, 0x2000000);
	assert_int_equal(acpi_scan(P_RSDP, fake_map, collect, &tabs), 0);
	assert_int_equal(tabs.skipped, 1);
	assert_true(warned("table HPET at 0x7ffe3000: length 33554432 is not believable, skipped"));
}

static void test_truncated_root(void **state)
{
	(void)state;
	struct set s = full_set();

	/* An XSDT claiming 36 + 2 * 8 + 4 bytes: two whole entries. */
	put32(s.xsdt, 4, 36 + 2 * 8 + 4);
	seal(s.xsdt);
	assert_int_equal(acpi_scan(P_RSDP, fake_map, collect, &tabs), 0);
	assert_true(tabs.xsdt);
	assert_int_equal(tabs.count, 2);
	assert_int_equal(tabs.skipped, 0);
	assert_string_equal(tabs.table[0].signature, "FACP");
	assert_string_equal(tabs.table[1].signature, "APIC");
	assert_int_equal(nwarnings, 1);
	assert_true(warned("XSDT length 56 is not a header and whole 8-byte entries, last 4 bytes ignored"));

	/* An RSDT with 3 stray bytes after one entry. */
	rsdp(P_RSDP + 0x40, 0, (uint32_t)P_RSDT, 0);
	put32(s.rsdt, 4, 36 + 4 + 3);
	seal(s.rsdt);
	nwarnings = 0;
	assert_int_equal(acpi_scan(P_RSDP + 0x40, fake_map, collect, &tabs), 0);
	assert_false(tabs.xsdt);
	assert_int_equal(tabs.count, 1);
	assert_true(warned("RSDT length 43"));
	assert_true(warned("last 3 bytes ignored"));
}

static void test_map_null_skipped(void **state)
{
	(void)state;
	const uint64_t addrs[] = { P_FACP, P_NONE, 0, P_HPET, P_APIC };

	rsdp(P_RSDP, 2, 0, P_XSDT);
	root(P_XSDT, true, addrs, 5);
	make_fadt(P_FACP, FADT_LEN);
	make_madt(P_APIC);
	/* HPET: the header maps, the whole table (as long as it says) does not. */
	uint8_t *h = sdt(P_HPET, "HPET", 64, 1);
	put32(h, 4, 4096);
	assert_int_equal(acpi_scan(P_RSDP, fake_map, collect, &tabs), 0);
	assert_int_equal(tabs.count, 2);
	assert_int_equal(tabs.skipped, 3);
	assert_string_equal(tabs.table[0].signature, "FACP");
	assert_string_equal(tabs.table[1].signature, "APIC");
	assert_true(warned("acpi: table at 0x7ffe6000: header cannot be mapped, skipped"));
	assert_true(warned("acpi: table at 0x0: null address, skipped"));
	assert_true(warned("acpi: table HPET at 0x7ffe3000: 4096 bytes cannot be mapped, skipped"));
	assert_int_equal(nwarnings, 3);
}

static void test_too_many_tables_dropped(void **state)
{
	(void)state;
	enum { N = ACPI_MAX_TABLES + 6 };
	uint64_t addrs[N];
	char sig[5];

	for (unsigned i = 0; i < N; i++) {
		addrs[i] = 0x10000000ull + i * 0x1000ull;
		snprintf(sig, sizeof(sig), "T%03u", i);
		seal(sdt(addrs[i], sig, 40, 1));
	}
	rsdp(P_RSDP, 2, 0, P_XSDT);
	root(P_XSDT, true, addrs, N);
	assert_int_equal(acpi_scan(P_RSDP, fake_map, collect, &tabs), 0);
	assert_int_equal(tabs.count, ACPI_MAX_TABLES);
	assert_int_equal(tabs.dropped, 6);
	assert_int_equal(tabs.skipped, 0);
	assert_non_null(acpi_find(&tabs, "T063", 0));
	assert_null(acpi_find(&tabs, "T064", 0));
	assert_true(warned("table T064 at 0x10040000: more than 64 tables, dropped"));
}

static void test_find(void **state)
{
	(void)state;
	const uint64_t addrs[] = { P_FACP, 0x7FFE7000, 0x7FFE8000 };

	rsdp(P_RSDP, 2, 0, P_XSDT);
	root(P_XSDT, true, addrs, 3);
	make_fadt(P_FACP, FADT_LEN);
	seal(sdt(0x7FFE7000, "SSDT", 50, 2));
	seal(sdt(0x7FFE8000, "SSDT", 60, 2));
	assert_int_equal(acpi_scan(P_RSDP, fake_map, collect, &tabs), 0);
	assert_int_equal(tabs.count, 3);
	assert_int_equal(acpi_find(&tabs, "SSDT", 0)->length, 50);
	assert_int_equal(acpi_find(&tabs, "SSDT", 1)->length, 60);
	assert_null(acpi_find(&tabs, "SSDT", 2));
	assert_null(acpi_find(&tabs, "DSDT", 0));
	assert_null(acpi_find(&tabs, "FAC", 0));
	assert_null(acpi_find(&tabs, "FACPX", 0));
	assert_null(acpi_find(NULL, "FACP", 0));
}

/* -------------------------------------------------------------------- FADT */

static void test_fadt_x_pm_tmr_blk(void **state)
{
	(void)state;
	struct acpi_fadt_info f;
	uint8_t *t = make_fadt(P_FACP, FADT_LEN);

	put32(t, 112, 1u << 8); /* TMR_VAL_EXT */
	assert_int_equal(acpi_parse_fadt(t, FADT_LEN, collect, &f), 0);
	assert_int_equal(f.pm_timer_port, 0x608); /* X_PM_TMR_BLK wins */
	assert_true(f.pm_timer_32bit);
	assert_false(f.hw_reduced);
	assert_int_equal(f.iapc_boot_arch, 0x0002);

	/* X_PM_TMR_BLK in memory space, or at 0: PM_TMR_BLK. */
	put_gas(t, 208, ACPI_GAS_MEMORY, 32, 3, 0xFED80000);
	assert_int_equal(acpi_parse_fadt(t, FADT_LEN, collect, &f), 0);
	assert_int_equal(f.pm_timer_port, 0x408);
	put_gas(t, 208, ACPI_GAS_IO, 32, 3, 0);
	assert_int_equal(acpi_parse_fadt(t, FADT_LEN, collect, &f), 0);
	assert_int_equal(f.pm_timer_port, 0x408);
	assert_int_equal(nwarnings, 0);

	/* An I/O "port" beyond 16 bits: warned, PM_TMR_BLK. */
	put_gas(t, 208, ACPI_GAS_IO, 32, 3, 0x12345);
	assert_int_equal(acpi_parse_fadt(t, FADT_LEN, collect, &f), 0);
	assert_int_equal(f.pm_timer_port, 0x408);
	assert_true(warned("X_PM_TMR_BLK 0x12345 is not an I/O port"));
}

static void test_fadt_without_x(void **state)
{
	(void)state;
	struct acpi_fadt_info f;

	/* ACPI 1.0 length: no X_ fields, 24-bit timer. */
	uint8_t *t = make_fadt(P_FACP, 116);
	assert_int_equal(acpi_parse_fadt(t, 116, collect, &f), 0);
	assert_int_equal(f.pm_timer_port, 0x408);
	assert_false(f.pm_timer_32bit);
	assert_false(f.hw_reduced);

	/* 219 bytes: X_PM_TMR_BLK would end at 220, so it is not read (ASan
	 * would catch it: the block is exactly 219 bytes). */
	t = make_fadt(P_FACP + 0x1000, 219);
	assert_int_equal(acpi_parse_fadt(t, 219, collect, &f), 0);
	assert_int_equal(f.pm_timer_port, 0x408);
	assert_int_equal(nwarnings, 0);
}

static void test_fadt_no_timer(void **state)
{
	(void)state;
	struct acpi_fadt_info f;
	uint8_t *t = make_fadt(P_FACP, FADT_LEN);

	put8(t, 91, 0); /* PM_TMR_LEN */
	assert_int_equal(acpi_parse_fadt(t, FADT_LEN, collect, &f), 0);
	assert_int_equal(f.pm_timer_port, 0);
	put8(t, 91, 4);
	put32(t, 112, (1u << 20) | (1u << 8)); /* HW_REDUCED_ACPI */
	assert_int_equal(acpi_parse_fadt(t, FADT_LEN, collect, &f), 0);
	assert_true(f.hw_reduced);
	assert_true(f.pm_timer_32bit);
	assert_int_equal(f.pm_timer_port, 0);
	assert_int_equal(nwarnings, 0);
}

static void test_fadt_too_short(void **state)
{
	(void)state;
	struct acpi_fadt_info f;
	uint8_t *t = sdt(P_FACP, "FACP", 115, 1);
	assert_int_equal(acpi_parse_fadt(t, 115, collect, &f), -1);
	assert_true(warned("FADT length 115 is shorter than the 116 bytes needed"));
	assert_int_equal(acpi_parse_fadt(t, 115, NULL, &f), -1);
}

/* -------------------------------------------------------------------- HPET */

static void test_hpet(void **state)
{
	(void)state;
	struct acpi_hpet_info h;
	uint8_t *t = make_hpet(P_HPET);

	put8(t, 52, 2);
	assert_int_equal(acpi_parse_hpet(t, 56, collect, &h), 0);
	assert_int_equal(h.base, 0xFED00000);
	assert_int_equal(h.block_id, 0x8086A201);
	assert_int_equal(h.number, 2);
	assert_int_equal(h.min_tick, 0x80);
	assert_int_equal(nwarnings, 0);

	assert_int_equal(acpi_parse_hpet(t, 55, collect, &h), -1);
	assert_true(warned("HPET length 55 is shorter than the 56 bytes needed"));

	put_gas(t, 40, ACPI_GAS_IO, 8, 0, 0x500);
	assert_int_equal(acpi_parse_hpet(t, 56, collect, &h), -1);
	assert_true(warned("HPET base 0x500 in address space 1 is not memory"));
	put_gas(t, 40, ACPI_GAS_MEMORY, 64, 0, 0);
	assert_int_equal(acpi_parse_hpet(t, 56, NULL, &h), -1);
}

/* -------------------------------------------------------------------- SPCR */

static void test_spcr_port(void **state)
{
	(void)state;
	struct acpi_spcr_info s;
	uint8_t *t = make_spcr(P_SPCR, 2, ACPI_GAS_IO, 0x3F8, 1, 7);

	assert_int_equal(acpi_parse_spcr(t, 80, collect, &s), 0);
	assert_int_equal(s.interface_type, 0);
	assert_int_equal(s.base.space_id, ACPI_GAS_IO);
	assert_int_equal(s.base.address, 0x3F8);
	assert_int_equal(s.base.access_size, 1);
	assert_int_equal(s.base.bit_width, 8);
	assert_int_equal(s.baud, 115200);
	assert_int_equal(s.baud_code, 7);
	assert_int_equal(s.pci_vendor, 0xFFFF);
	assert_int_equal(s.pci_device, 0xFFFF);
	assert_int_equal(s.uart_clock, 0); /* revision 2: not read */
	assert_int_equal(nwarnings, 0);
}

static void test_spcr_mmio(void **state)
{
	(void)state;
	struct acpi_spcr_info s;
	uint8_t *t = make_spcr(P_SPCR, 3, ACPI_GAS_MEMORY, 0xFE032000, 3, 6);

	put16(t, 64, 0x9A28); /* device */
	put16(t, 66, 0x8086); /* vendor */
	put8(t, 68, 0);
	put8(t, 69, 0x1E);
	put8(t, 70, 2);
	put8(t, 75, 1);
	put32(t, 76, 100000000);
	seal(t);
	assert_int_equal(acpi_parse_spcr(t, 80, collect, &s), 0);
	assert_int_equal(s.interface_type, 0x12);
	assert_int_equal(s.base.space_id, ACPI_GAS_MEMORY);
	assert_int_equal(s.base.address, 0xFE032000);
	assert_int_equal(s.base.access_size, 3);
	assert_int_equal(s.baud, 57600);
	assert_int_equal(s.pci_vendor, 0x8086);
	assert_int_equal(s.pci_device, 0x9A28);
	assert_int_equal(s.pci_bus, 0);
	assert_int_equal(s.pci_dev, 0x1E);
	assert_int_equal(s.pci_fn, 2);
	assert_int_equal(s.pci_segment, 1);
	assert_int_equal(s.uart_clock, 100000000);

	/* Access sizes pass through as the table gives them. */
	for (uint8_t a = 0; a <= 4; a++) {
		put8(t, 43, a);
		assert_int_equal(acpi_parse_spcr(t, 80, collect, &s), 0);
		assert_int_equal(s.base.access_size, a);
	}
	assert_int_equal(nwarnings, 0);
}

static void test_spcr_baud_codes(void **state)
{
	(void)state;
	static const struct {
		uint8_t code;
		uint32_t baud;
		bool warn;
	} cases[] = {
		{ 0, 0, false },      { 3, 9600, false }, { 4, 19200, false }, { 6, 57600, false },
		{ 7, 115200, false }, { 1, 0, true },     { 2, 0, true },      { 5, 0, true },
		{ 8, 0, true },       { 0xFF, 0, true },
	};
	struct acpi_spcr_info s;
	uint8_t *t = make_spcr(P_SPCR, 2, ACPI_GAS_IO, 0x3F8, 1, 0);

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		nwarnings = 0;
		put8(t, 58, cases[i].code);
		assert_int_equal(acpi_parse_spcr(t, 80, collect, &s), 0);
		assert_int_equal(s.baud, cases[i].baud);
		assert_int_equal(s.baud_code, cases[i].code);
		assert_int_equal(nwarnings, cases[i].warn ? 1 : 0);
		if (cases[i].warn)
			assert_true(warned("baud rate code"));
	}
}

static void test_spcr_bad(void **state)
{
	(void)state;
	struct acpi_spcr_info s;
	uint8_t *t = make_spcr(P_SPCR, 2, ACPI_GAS_IO, 0x3F8, 1, 7);

	assert_int_equal(acpi_parse_spcr(t, 79, collect, &s), -1);
	assert_true(warned("SPCR length 79 is shorter than the 80 bytes needed"));
	put_gas(t, 40, ACPI_GAS_PCI, 8, 1, 0x10);
	assert_int_equal(acpi_parse_spcr(t, 80, collect, &s), -1);
	assert_true(warned("address space 2"));
	put_gas(t, 40, ACPI_GAS_IO, 8, 1, 0);
	assert_int_equal(acpi_parse_spcr(t, 80, NULL, &s), -1);
}

/* -------------------------------------------------------------------- MCFG */

static void test_mcfg_segments(void **state)
{
	(void)state;
	struct acpi_mcfg_info m;
	uint8_t *t = make_mcfg(P_MCFG, 3, 8);

	assert_int_equal(acpi_parse_mcfg(t, 44 + 3 * 16 + 8, collect, &m), 0);
	assert_int_equal(m.count, 3);
	assert_int_equal(m.dropped, 0);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(m.seg[i].base, 0xB0000000ull + i * 0x10000000ull);
		assert_int_equal(m.seg[i].segment, i);
		assert_int_equal(m.seg[i].bus_start, 0);
		assert_int_equal(m.seg[i].bus_end, 0xFF >> i);
	}
	assert_int_equal(nwarnings, 1);
	assert_true(warned("MCFG ends in a partial 8-byte entry, ignored"));

	/* No entries at all. */
	nwarnings = 0;
	t = make_mcfg(P_MCFG + 0x1000, 0, 0);
	assert_int_equal(acpi_parse_mcfg(t, 44, collect, &m), 0);
	assert_int_equal(m.count, 0);
	assert_int_equal(nwarnings, 0);

	assert_int_equal(acpi_parse_mcfg(t, 43, collect, &m), -1);
	assert_true(warned("MCFG length 43 is shorter than the 44 bytes needed"));
}

static void test_mcfg_many_and_empty_range(void **state)
{
	(void)state;
	struct acpi_mcfg_info m;
	uint8_t *t = make_mcfg(P_MCFG, ACPI_MCFG_MAX + 4, 0);

	put8(t, 44 + 1 * 16 + 10, 0x80); /* entry 1: buses 0x80-0x7F */
	assert_int_equal(acpi_parse_mcfg(t, 44 + (ACPI_MCFG_MAX + 4) * 16, collect, &m), 0);
	assert_int_equal(m.count, ACPI_MCFG_MAX);
	assert_int_equal(m.dropped, 3);
	assert_int_equal(m.seg[0].segment, 0);
	assert_int_equal(m.seg[1].segment, 2);
	assert_true(warned("MCFG entry 1: bus range 128-127 is empty, ignored"));
	assert_true(warned("3 more segments"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_checksum, reset),
		cmocka_unit_test_teardown(test_full_v2_xsdt, reset),
		cmocka_unit_test_teardown(test_v0_rsdt, reset),
		cmocka_unit_test_teardown(test_bad_rsdp, reset),
		cmocka_unit_test_teardown(test_bad_xsdt_falls_back_to_rsdt, reset),
		cmocka_unit_test_teardown(test_xsdt_unusable_other_ways, reset),
		cmocka_unit_test_teardown(test_bad_extended_checksum_uses_rsdt, reset),
		cmocka_unit_test_teardown(test_both_roots_bad, reset),
		cmocka_unit_test_teardown(test_bad_table_checksum_skipped, reset),
		cmocka_unit_test_teardown(test_table_length_short_or_huge, reset),
		cmocka_unit_test_teardown(test_truncated_root, reset),
		cmocka_unit_test_teardown(test_map_null_skipped, reset),
		cmocka_unit_test_teardown(test_too_many_tables_dropped, reset),
		cmocka_unit_test_teardown(test_find, reset),
		cmocka_unit_test_teardown(test_fadt_x_pm_tmr_blk, reset),
		cmocka_unit_test_teardown(test_fadt_without_x, reset),
		cmocka_unit_test_teardown(test_fadt_no_timer, reset),
		cmocka_unit_test_teardown(test_fadt_too_short, reset),
		cmocka_unit_test_teardown(test_hpet, reset),
		cmocka_unit_test_teardown(test_spcr_port, reset),
		cmocka_unit_test_teardown(test_spcr_mmio, reset),
		cmocka_unit_test_teardown(test_spcr_baud_codes, reset),
		cmocka_unit_test_teardown(test_spcr_bad, reset),
		cmocka_unit_test_teardown(test_mcfg_segments, reset),
		cmocka_unit_test_teardown(test_mcfg_many_and_empty_range, reset),
	};
	return cmocka_run_group_tests_name("acpi", tests, NULL, NULL);
}
