/*
 * test_madt.c - the MADT parser (arch/x86_64/madt.c) on synthetic tables:
 * every entry type kprof reads, disabled and duplicate processors, more
 * processors than fit, and broken entries that must stop the walk.
 *
 * Each table is copied to an exactly-sized heap block, so ASan catches a
 * read past its end.
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

#include "arch/x86_64/madt.h"

/* ---------------------------------------------------------------- warnings */

#include "support/warnings.h"

/* ----------------------------------------------------------- table builder */

struct madt_builder {
	uint8_t b[8192]; /* header and entries so far */
	size_t len;
};

static struct madt_builder mb;
static uint8_t *tables[8];
static unsigned ntables;
static struct madt_info info;

static int reset(void **state)
{
	(void)state;
	for (unsigned i = 0; i < ntables; i++)
		free(tables[i]);
	ntables = 0;
	nwarnings = 0;
	memset(warnings, 0, sizeof(warnings));
	return 0;
}

static void begin(uint32_t lapic, uint32_t flags)
{
	memset(&mb, 0, sizeof(mb));
	memcpy(mb.b, "APIC", 4);
	mb.b[8] = 5;
	memcpy(mb.b + 10, "KPROF ", 6);
	memcpy(mb.b + 16, "SYNTHTBL", 8);
	memcpy(mb.b + 36, &lapic, 4);
	memcpy(mb.b + 40, &flags, 4);
	mb.len = 44;
}

/* Append an entry: type, length, then `n` body bytes (may be fewer than length - 2). */
static uint8_t *entry(uint8_t type, uint8_t length, size_t n)
{
	assert_true(mb.len + 2 + n <= sizeof(mb.b));
	uint8_t *e = mb.b + mb.len;
	e[0] = type;
	e[1] = length;
	mb.len += 2 + n;
	return e;
}

static void lapic(uint8_t uid, uint8_t id, uint32_t flags)
{
	uint8_t *e = entry(0, 8, 6);
	e[2] = uid;
	e[3] = id;
	memcpy(e + 4, &flags, 4);
}

static void ioapic(uint8_t id, uint32_t addr, uint32_t gsi_base)
{
	uint8_t *e = entry(1, 12, 10);
	e[2] = id;
	memcpy(e + 4, &addr, 4);
	memcpy(e + 8, &gsi_base, 4);
}

static void iso(uint8_t bus, uint8_t source, uint32_t gsi, uint16_t flags)
{
	uint8_t *e = entry(2, 10, 8);
	e[2] = bus;
	e[3] = source;
	memcpy(e + 4, &gsi, 4);
	memcpy(e + 8, &flags, 2);
}

static void lapic_nmi(uint8_t uid, uint16_t flags, uint8_t lint)
{
	uint8_t *e = entry(4, 6, 4);
	e[2] = uid;
	memcpy(e + 3, &flags, 2);
	e[5] = lint;
}

static void lapic_address(uint64_t addr)
{
	uint8_t *e = entry(5, 12, 10);
	memcpy(e + 4, &addr, 8);
}

static void x2apic(uint32_t id, uint32_t flags, uint32_t uid)
{
	uint8_t *e = entry(9, 16, 14);
	memcpy(e + 4, &id, 4);
	memcpy(e + 8, &flags, 4);
	memcpy(e + 12, &uid, 4);
}

static void x2apic_nmi(uint16_t flags, uint32_t uid, uint8_t lint)
{
	uint8_t *e = entry(0xA, 12, 10);
	memcpy(e + 2, &flags, 2);
	memcpy(e + 4, &uid, 4);
	e[8] = lint;
}

/* The table built so far in its own block, header length and checksum set. */
static const uint8_t *finish(uint32_t *len)
{
	uint32_t n = (uint32_t)mb.len;
	uint8_t sum = 0;

	memcpy(mb.b + 4, &n, 4);
	mb.b[9] = 0;
	for (uint32_t i = 0; i < n; i++)
		sum = (uint8_t)(sum + mb.b[i]);
	mb.b[9] = (uint8_t)(0x100 - sum);
	assert_true(ntables < sizeof(tables) / sizeof(tables[0]));
	uint8_t *t = malloc(n);
	assert_non_null(t);
	memcpy(t, mb.b, n);
	tables[ntables++] = t;
	*len = n;
	return t;
}

static int parse(void)
{
	uint32_t len;
	const uint8_t *t = finish(&len);
	return madt_parse(t, len, collect, &info);
}

/* ------------------------------------------------------------------- tests */

static void test_all_entry_types(void **state)
{
	(void)state;
	begin(0xFEE00000, 1);
	lapic(0, 0, 1);
	lapic(1, 1, 1);
	ioapic(2, 0xFEC00000, 0);
	ioapic(3, 0xFEC01000, 24);
	iso(0, 0, 2, 0);
	iso(0, 9, 9, 0x000D);
	lapic_nmi(0xFF, 0x0005, 1);
	lapic_nmi(1, 0x0000, 0);
	lapic_address(0x1FEE00000ull);
	x2apic(0x100, 1, 2);
	x2apic_nmi(0x0005, 0xFFFFFFFF, 1);
	x2apic_nmi(0x000F, 2, 0);
	entry(0x7F, 5, 3); /* unknown type: skipped by its length */
	lapic(3, 3, 1);

	assert_int_equal(parse(), 0);
	assert_int_equal(nwarnings, 0);
	assert_int_equal(info.bad_entries, 0);
	assert_int_equal(info.lapic_phys, 0x1FEE00000ull);
	assert_true(info.pcat_compat);

	assert_int_equal(info.ncpus, 4);
	assert_int_equal(info.cpus_enabled, 4);
	assert_int_equal(info.cpus_dropped, 0);
	assert_int_equal(info.cpu[0].apic_id, 0);
	assert_int_equal(info.cpu[1].apic_id, 1);
	assert_int_equal(info.cpu[1].acpi_uid, 1);
	assert_false(info.cpu[1].x2apic_entry);
	assert_int_equal(info.cpu[2].apic_id, 0x100);
	assert_int_equal(info.cpu[2].acpi_uid, 2);
	assert_true(info.cpu[2].x2apic_entry);
	assert_true(info.cpu[2].enabled);
	assert_int_equal(info.cpu[3].apic_id, 3);

	assert_int_equal(info.nioapics, 2);
	assert_int_equal(info.ioapic[0].id, 2);
	assert_int_equal(info.ioapic[0].address, 0xFEC00000);
	assert_int_equal(info.ioapic[0].gsi_base, 0);
	assert_int_equal(info.ioapic[1].id, 3);
	assert_int_equal(info.ioapic[1].address, 0xFEC01000);
	assert_int_equal(info.ioapic[1].gsi_base, 24);

	assert_int_equal(info.noverrides, 2);
	assert_int_equal(info.override[0].bus, 0);
	assert_int_equal(info.override[0].source, 0);
	assert_int_equal(info.override[0].gsi, 2);
	assert_int_equal(info.override[1].source, 9);
	assert_int_equal(info.override[1].gsi, 9);
	assert_int_equal(info.override[1].flags, 0x000D);

	assert_int_equal(info.nnmis, 4);
	assert_int_equal(info.nmi[0].acpi_uid, MADT_ALL_CPUS);
	assert_int_equal(info.nmi[0].lint, 1);
	assert_int_equal(info.nmi[0].flags, 0x0005);
	assert_int_equal(info.nmi[1].acpi_uid, 1);
	assert_int_equal(info.nmi[1].lint, 0);
	assert_int_equal(info.nmi[2].acpi_uid, MADT_ALL_CPUS);
	assert_int_equal(info.nmi[2].lint, 1);
	assert_int_equal(info.nmi[2].flags, 0x0005);
	assert_int_equal(info.nmi[3].acpi_uid, 2);
	assert_int_equal(info.nmi[3].flags, 0x000F);
}

static void test_header_only(void **state)
{
	(void)state;
	begin(0xFEE00000, 0);
	assert_int_equal(parse(), 0);
	assert_int_equal(info.lapic_phys, 0xFEE00000);
	assert_false(info.pcat_compat);
	assert_int_equal(info.ncpus, 0);
	assert_int_equal(info.bad_entries, 0);
	assert_int_equal(nwarnings, 0);
}

static void test_disabled_cpus(void **state)
{
	(void)state;
	begin(0xFEE00000, 1);
	lapic(0, 0, 1);
	lapic(1, 1, 0);      /* disabled, not online capable */
	lapic(2, 2, 2);      /* disabled, online capable */
	x2apic(300, 0, 3);   /* disabled */
	x2apic(301, 1, 4);
	assert_int_equal(parse(), 0);
	assert_int_equal(info.ncpus, 5);
	assert_int_equal(info.cpus_enabled, 2);
	assert_true(info.cpu[0].enabled);
	assert_false(info.cpu[1].enabled);
	assert_false(info.cpu[1].online_capable);
	assert_false(info.cpu[2].enabled);
	assert_true(info.cpu[2].online_capable);
	assert_false(info.cpu[3].enabled);
	assert_true(info.cpu[4].enabled);
	assert_int_equal(info.cpu[4].apic_id, 301);
}

static void test_duplicate_type0_type9(void **state)
{
	(void)state;
	begin(0xFEE00000, 1);
	lapic(0, 0, 1);      /* both enabled: the first stays */
	x2apic(0, 1, 0);
	lapic(1, 1, 0);      /* disabled type 0, then enabled type 9: type 9 wins */
	x2apic(1, 1, 7);
	x2apic(2, 1, 8);     /* enabled type 9, then disabled type 0: type 9 stays */
	lapic(9, 2, 0);
	x2apic(3, 0, 9);     /* both disabled: one entry */
	lapic(3, 3, 0);
	assert_int_equal(parse(), 0);
	assert_int_equal(nwarnings, 0);
	assert_int_equal(info.ncpus, 4);
	assert_int_equal(info.cpus_enabled, 3);
	assert_int_equal(info.cpu[0].apic_id, 0);
	assert_false(info.cpu[0].x2apic_entry);
	assert_true(info.cpu[0].enabled);
	assert_int_equal(info.cpu[1].apic_id, 1);
	assert_true(info.cpu[1].enabled);
	assert_true(info.cpu[1].x2apic_entry);
	assert_int_equal(info.cpu[1].acpi_uid, 7);
	assert_int_equal(info.cpu[2].apic_id, 2);
	assert_true(info.cpu[2].enabled);
	assert_true(info.cpu[2].x2apic_entry);
	assert_int_equal(info.cpu[2].acpi_uid, 8);
	assert_int_equal(info.cpu[3].apic_id, 3);
	assert_false(info.cpu[3].enabled);
}

static void test_300_cpus(void **state)
{
	(void)state;
	begin(0xFEE00000, 1);
	for (uint32_t i = 0; i < 200; i++)
		lapic((uint8_t)i, (uint8_t)i, 1);
	for (uint32_t i = 200; i < 300; i++)
		x2apic(i, 1, i);
	lapic(5, 5, 1); /* a duplicate of a kept CPU: not dropped */
	ioapic(0, 0xFEC00000, 0); /* entries after the dropped ones still count */
	assert_int_equal(parse(), 0);
	assert_int_equal(info.ncpus, MADT_MAX_CPUS);
	assert_int_equal(info.cpus_enabled, MADT_MAX_CPUS);
	assert_int_equal(info.cpus_dropped, 300 - MADT_MAX_CPUS);
	assert_int_equal(info.cpu[MADT_MAX_CPUS - 1].apic_id, MADT_MAX_CPUS - 1);
	assert_int_equal(info.nioapics, 1);
	assert_int_equal(info.bad_entries, 0);
}

static void test_zero_length_entry(void **state)
{
	(void)state;
	begin(0xFEE00000, 1);
	lapic(0, 0, 1);
	entry(0x7F, 0, 6);
	lapic(1, 1, 1);
	assert_int_equal(parse(), 0);
	assert_int_equal(info.ncpus, 1);
	assert_int_equal(info.bad_entries, 1);
	assert_int_equal(nwarnings, 1);
	assert_string_equal(warnings[0],
			    "madt: entry type 127 at offset 52: length 0 is less than 2, rest of the table ignored");

	/* Length 1, and no warn function. */
	begin(0xFEE00000, 1);
	entry(0, 1, 6);
	uint32_t len;
	const uint8_t *t = finish(&len);
	assert_int_equal(madt_parse(t, len, NULL, &info), 0);
	assert_int_equal(info.bad_entries, 1);
	assert_int_equal(info.ncpus, 0);
}

static void test_entry_past_end(void **state)
{
	(void)state;
	begin(0xFEE00000, 1);
	lapic(0, 0, 1);
	entry(0x30, 20, 10); /* says 20 bytes, 12 are left */
	assert_int_equal(parse(), 0);
	assert_int_equal(info.ncpus, 1);
	assert_int_equal(info.bad_entries, 1);
	assert_true(warned("entry type 48 at offset 52: length 20 runs past the end of the table"));

	/* A whole entry cut by the length passed in (not the buffer). */
	nwarnings = 0;
	begin(0xFEE00000, 1);
	lapic(0, 0, 1);
	lapic(1, 1, 1);
	uint32_t len;
	const uint8_t *t = finish(&len);
	assert_int_equal(madt_parse(t, len - 4, collect, &info), 0);
	assert_int_equal(info.ncpus, 1);
	assert_int_equal(info.bad_entries, 1);
	assert_true(warned("length 8 runs past the end"));

	/* One stray byte after the last entry. */
	nwarnings = 0;
	begin(0xFEE00000, 1);
	lapic(0, 0, 1);
	mb.b[mb.len++] = 0;
	assert_int_equal(parse(), 0);
	assert_int_equal(info.ncpus, 1);
	assert_int_equal(info.bad_entries, 1);
	assert_true(warned("1 byte left over at offset 52"));
}

static void test_entry_short_for_type(void **state)
{
	(void)state;
	begin(0xFEE00000, 1);
	ioapic(1, 0xFEC00000, 0);
	entry(1, 8, 6); /* an I/O APIC needs 12 */
	lapic(0, 0, 1);
	assert_int_equal(parse(), 0);
	assert_int_equal(info.nioapics, 1);
	assert_int_equal(info.ncpus, 0);
	assert_int_equal(info.bad_entries, 1);
	assert_true(warned("entry type 1 at offset 56: length 8 is shorter than the 12 bytes of its type"));

	/* Longer than its type needs is fine (later revisions add fields). */
	nwarnings = 0;
	begin(0xFEE00000, 1);
	uint8_t *e = entry(0, 10, 8);
	e[3] = 4;
	e[4] = 1;
	lapic(1, 1, 1);
	assert_int_equal(parse(), 0);
	assert_int_equal(info.ncpus, 2);
	assert_int_equal(info.cpu[0].apic_id, 4);
	assert_int_equal(info.bad_entries, 0);
	assert_int_equal(nwarnings, 0);
}

static void test_table_too_short(void **state)
{
	(void)state;
	begin(0xFEE00000, 1);
	uint32_t len;
	const uint8_t *t = finish(&len);
	assert_int_equal(madt_parse(t, 43, collect, &info), -1);
	assert_true(warned("madt: length 43 is shorter than the 44 bytes needed"));
	assert_int_equal(madt_parse(NULL, 100, NULL, &info), -1);
	assert_int_equal(info.ncpus, 0);
}

static void test_full_arrays(void **state)
{
	(void)state;
	begin(0xFEE00000, 1);
	for (unsigned i = 0; i < MADT_MAX_IOAPICS + 1; i++)
		ioapic((uint8_t)i, 0xFEC00000 + i * 0x1000, i * 24);
	for (unsigned i = 0; i < MADT_MAX_OVERRIDES + 1; i++)
		iso(0, (uint8_t)i, i, 0);
	for (unsigned i = 0; i < MADT_MAX_NMIS + 1; i++)
		lapic_nmi((uint8_t)i, 0, 1);
	assert_int_equal(parse(), 0);
	assert_int_equal(info.nioapics, MADT_MAX_IOAPICS);
	assert_int_equal(info.noverrides, MADT_MAX_OVERRIDES);
	assert_int_equal(info.nnmis, MADT_MAX_NMIS);
	assert_int_equal(info.bad_entries, 0);
	assert_int_equal(nwarnings, 3);
	assert_true(warned("more than 16 I/O APICs, id 16 ignored"));
	assert_true(warned("more than 32 interrupt source overrides, IRQ 32 ignored"));
	assert_true(warned("more than 16 NMI entries"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_all_entry_types, reset),
		cmocka_unit_test_teardown(test_header_only, reset),
		cmocka_unit_test_teardown(test_disabled_cpus, reset),
		cmocka_unit_test_teardown(test_duplicate_type0_type9, reset),
		cmocka_unit_test_teardown(test_300_cpus, reset),
		cmocka_unit_test_teardown(test_zero_length_entry, reset),
		cmocka_unit_test_teardown(test_entry_past_end, reset),
		cmocka_unit_test_teardown(test_entry_short_for_type, reset),
		cmocka_unit_test_teardown(test_table_too_short, reset),
		cmocka_unit_test_teardown(test_full_arrays, reset),
	};
	return cmocka_run_group_tests_name("madt", tests, NULL, NULL);
}
