/*
 * test_pci.c - kernel/pci/ against a modelled configuration space: the
 * bus walk through bridges (secondary bus numbers, multi-function
 * devices, a bridge loop), finding functions by class and location, and
 * BAR decoding and sizing (32- and 64-bit memory, I/O, unimplemented,
 * the upper half of a 64-bit BAR) through the legacy mechanism, whose
 * model (tests/unit/support/pci_model.c) gives BARs their real write-all-ones
 * semantics; and the same
 * walk through an ECAM window (plain memory, mapped by a fake
 * kva_map_phys); and the Intel port routing of the xHCI driver
 * (kernel/usb/xhci/pci/xhci_intel.c), which is PCI configuration only.
 *
 * Modules: kernel/usb/xhci/pci (the Intel port routing, xhci_intel.c)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <arch/dev/pci.h>

#include "support/pci_model.h"
#include "shadow.h"

#include "kernel/mm/kva.h"
#include "kernel/pci/pci.h"
#include "kernel/usb/xhci/xhci.h"

/* ------------------------------------------------ the modelled machine */

static struct pci_model_fn fns[16];
static unsigned nfns;

static struct pci_model_fn *add_fn(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t vendor, uint16_t device,
				   uint8_t cls, uint8_t sub, uint8_t pif, uint8_t header)
{
	return pci_model_add(&fns[nfns++], bus, dev, fn, vendor, device, cls, sub, pif, header);
}

/* ECAM windows point at a fake physical range; kva_map_phys returns the
 * host buffer for it. */
static uint8_t *ecam;
#define ECAM_PHYS 0xB0000000ull
#define ECAM_BUSES 8
static unsigned maps;

void *kva_map_phys(uint64_t pa, size_t size, unsigned prot)
{
	assert_true(pa >= ECAM_PHYS && pa + size <= ECAM_PHYS + ((uint64_t)ECAM_BUSES << 20));
	maps++;
	return ecam + (pa - ECAM_PHYS);
}

/*
 * bus 0: 00.0 host bridge; 01.0 bridge -> bus 2 (multi-function), 01.2
 *        xHCI, 01.5 EHCI (Intel); 03.0 bridge -> bus 5; 06.0 single
 *        function, and a ghost "06.1" that must never be seen
 * bus 2: 00.0 EHCI
 * bus 5: 04.0 xHCI; 07.0 a bridge claiming bus 2 again (a loop: ignored)
 */
static int build(void **state)
{
	struct pci_model_fn *f;

	nfns = 0;
	pci_model_reset();
	add_fn(0, 0, 0, 0x8086, 0x29c0, 0x06, 0x00, 0x00, 0x00);
	f = add_fn(0, 1, 0, 0x8086, 0x1234, 0x06, 0x04, 0x00, 0x81);
	f->cfg[0x18] = 0, f->cfg[0x19] = 2, f->cfg[0x1A] = 2;
	f = add_fn(0, 1, 2, 0x1b36, 0x000d, 0x0C, 0x03, 0x30, 0x00);
	pci_model_set_bar(f, 0, 0xfebf0004, 0xFFFFC000); /* 64-bit, 16 KiB */
	pci_model_set_bar(f, 1, 0x00000001, 0xFFFFFFFF); /* its upper half: 0x1_febf0000 */
	pci_model_set_bar(f, 2, 0xe0000008, 0xFFF00000); /* 32-bit prefetchable, 1 MiB */
	pci_model_set_bar(f, 3, 0x0000c001, 0xFFFFFFE0); /* I/O, 32 ports */
	pci_model_set_bar(f, 4, 0x00000000, 0x00000000); /* not implemented */
	pci_model_set_bar(f, 5, 0x0000d001, 0x0000FFF0); /* I/O, upper 16 bits unimplemented */
	f->cfg[4] = PCI_COMMAND_MEMORY | PCI_COMMAND_IO;
	add_fn(0, 1, 5, 0x8086, 0x1e2d, 0x0C, 0x03, 0x20, 0x00);
	f = add_fn(0, 3, 0, 0x8086, 0x1235, 0x06, 0x04, 0x00, 0x01);
	f->cfg[0x19] = 5;
	add_fn(0, 6, 0, 0x1af4, 0x1000, 0x02, 0x00, 0x00, 0x00);
	add_fn(0, 6, 1, 0xdead, 0xbeef, 0x0C, 0x03, 0x30, 0x00);
	add_fn(2, 0, 0, 0x8086, 0x1e26, 0x0C, 0x03, 0x20, 0x00);
	add_fn(5, 4, 0, 0x1033, 0x0194, 0x0C, 0x03, 0x30, 0x00);
	f = add_fn(5, 7, 0, 0x8086, 0x1236, 0x06, 0x04, 0x00, 0x01);
	f->cfg[0x19] = 2;
	return 0;
}

/* ------------------------------------------------------------- walking */

struct seen {
	char list[16][12];
	unsigned n;
};

static bool record(const struct pci_func *f, void *ctx)
{
	struct seen *s = ctx;
	snprintf(s->list[s->n++], sizeof(s->list[0]), "%02x:%02x.%x", f->addr.bus, f->addr.dev, f->addr.fn);
	return false;
}

static void check_walk(void)
{
	struct seen s = { .n = 0 };
	static const char *const want[] = { "00:00.0", "00:01.0", "02:00.0", "00:01.2", "00:01.5",
					    "00:03.0", "05:04.0", "05:07.0", "00:06.0" };

	assert_int_equal(pci_enumerate(record, &s), 9);
	assert_int_equal(s.n, 9);
	for (unsigned i = 0; i < 9; i++)
		assert_string_equal(s.list[i], want[i]);
}

static void test_walk_legacy(void **state)
{
	assert_int_equal(pci_config_init(NULL), PCI_ACCESS_LEGACY);
	check_walk();
}

static void test_find(void **state)
{
	struct pci_func f;

	pci_config_init(NULL);
	assert_true(pci_find_class(0x0C, 0x03, 0x30, 0, &f));
	assert_int_equal(f.addr.bus, 0);
	assert_int_equal(f.addr.dev, 1);
	assert_int_equal(f.addr.fn, 2);
	assert_int_equal(f.vendor, 0x1b36);
	assert_true(pci_find_class(0x0C, 0x03, 0x30, 1, &f));
	assert_int_equal(f.addr.bus, 5);
	assert_int_equal(f.device, 0x0194);
	assert_false(pci_find_class(0x0C, 0x03, 0x30, 2, &f)); /* the ghost stays hidden */
	assert_true(pci_find_class(0x0C, 0x03, 0xFF, 2, &f));  /* any prog-if: 3rd is EHCI on bus 0 */
	assert_int_equal(f.prog_if, 0x20);

	assert_true(pci_find_location((struct pci_addr){ 0, 5, 4, 0 }, &f));
	assert_int_equal(f.class_code, 0x0C);
	assert_int_equal(f.header_type, 0);
	assert_false(pci_find_location((struct pci_addr){ 0, 5, 5, 0 }, &f));
	assert_false(pci_find_location((struct pci_addr){ 1, 0, 0, 0 }, &f)); /* legacy: segment 0 only */
}

static void test_bars(void **state)
{
	struct pci_addr a = { 0, 0, 1, 2 };
	struct pci_bar b;

	pci_config_init(NULL);
	assert_int_equal(pci_bar_read(a, 0, &b), 0);
	assert_false(b.io);
	assert_true(b.is64);
	assert_false(b.prefetch);
	assert_int_equal(b.base, 0x1febf0000ull);
	assert_int_equal(b.size, 0x4000);
	assert_int_equal(pci_bar_read(a, 1, &b), -1); /* upper half */

	assert_int_equal(pci_bar_read(a, 2, &b), 0);
	assert_false(b.is64);
	assert_true(b.prefetch);
	assert_int_equal(b.base, 0xe0000000);
	assert_int_equal(b.size, 0x100000);

	assert_int_equal(pci_bar_read(a, 3, &b), 0);
	assert_true(b.io);
	assert_int_equal(b.base, 0xc000);
	assert_int_equal(b.size, 32);

	assert_int_equal(pci_bar_read(a, 4, &b), 0);
	assert_int_equal(b.size, 0);

	assert_int_equal(pci_bar_read(a, 5, &b), 0);
	assert_true(b.io);
	assert_int_equal(b.size, 16);
	assert_int_equal(pci_bar_read(a, 6, &b), -1);

	/* Sizing restored every BAR and the command register, and never
	 * wrote all ones while the function decoded. */
	struct pci_model_fn *f = pci_model_lookup(0, 1, 2);
	uint32_t bar0, bar1;
	memcpy(&bar0, f->cfg + 0x10, 4);
	memcpy(&bar1, f->cfg + 0x14, 4);
	assert_int_equal(bar0, 0xfebf0004);
	assert_int_equal(bar1, 1);
	assert_int_equal(f->cfg[4], PCI_COMMAND_MEMORY | PCI_COMMAND_IO);
	assert_int_equal(pci_model_decode_violations, 0);

	assert_int_equal(pci_enable(a, PCI_COMMAND_MASTER), PCI_COMMAND_MEMORY | PCI_COMMAND_IO | PCI_COMMAND_MASTER);
}

static void test_bar_decode(void **state)
{
	struct pci_bar b;

	/* 64-bit prefetchable above 4 GiB, 4 GiB in size. */
	pci_bar_decode(0x0000000c, 0x00000008, 0x0000000c, 0xFFFFFFFF, &b);
	assert_true(b.is64 && b.prefetch && !b.io);
	assert_int_equal(b.base, 0x800000000ull);
	assert_int_equal(b.size, 0x100000000ull);
	/* 32-bit 4 KiB. */
	pci_bar_decode(0xfeb00000, 0, 0xFFFFF000, 0, &b);
	assert_int_equal(b.size, 0x1000);
	/* Nothing sticks: not implemented. */
	pci_bar_decode(0, 0, 0, 0, &b);
	assert_int_equal(b.size, 0);
}

/* The same machine seen through an ECAM window over buses 0-7: the
 * model's configuration bytes copied into the window's memory. */
static void test_walk_ecam(void **state)
{
	struct acpi_mcfg_info mcfg = { .count = 1 };

	ecam = calloc(ECAM_BUSES, 1u << 20);
	assert_non_null(ecam);
	memset(ecam, 0xFF, (size_t)ECAM_BUSES << 20);
	for (unsigned i = 0; i < nfns; i++)
		memcpy(ecam + ((size_t)fns[i].bus << 20 | (size_t)fns[i].dev << 15 | (size_t)fns[i].fn << 12), fns[i].cfg,
		       256);
	mcfg.seg[0].base = ECAM_PHYS;
	mcfg.seg[0].bus_start = 0;
	mcfg.seg[0].bus_end = ECAM_BUSES - 1;
	pci_model_legacy_on = false; /* ECAM alone must do */
	maps = 0;
	assert_int_equal(pci_config_init(&mcfg), PCI_ACCESS_ECAM);
	check_walk();
	assert_int_equal(maps, 3); /* buses 0, 2 and 5, each mapped once */

	/* Writes land in the window. */
	pci_write16((struct pci_addr){ 0, 5, 4, 0 }, PCI_COMMAND, PCI_COMMAND_MEMORY);
	assert_int_equal(ecam[(5 << 20) | (4 << 15) | PCI_COMMAND], PCI_COMMAND_MEMORY);
	/* A bus outside the window, with no legacy mechanism: all ones. */
	assert_int_equal(pci_read32((struct pci_addr){ 0, 9, 0, 0 }, 0), 0xFFFFFFFFu);
	free(ecam);
	ecam = NULL;
}

static void test_no_access(void **state)
{
	pci_config_init(NULL);
	assert_int_equal(pci_access_method(), PCI_ACCESS_LEGACY);
	assert_int_equal(pci_init(), PCI_ACCESS_LEGACY); /* chosen once: kept */
	pci_model_legacy_on = false;
	assert_int_equal(pci_config_init(NULL), PCI_ACCESS_NONE);
	assert_int_equal(pci_init(), PCI_ACCESS_NONE); /* nothing chosen: asks again, finds nothing */
	assert_int_equal(pci_enumerate(NULL, NULL), 0);
	assert_false(pci_present((struct pci_addr){ 0, 0, 0, 0 }));
}

/* Intel port routing (kernel/usb/xhci/pci/xhci_intel.c): the shared ports are
 * switched to the xHCI, as far as the mask registers allow, only on an
 * Intel xHCI with an Intel EHCI beside it. */
static struct pci_model_fn *intel_xhci(void)
{
	struct pci_model_fn *f = pci_model_lookup(0, 1, 2);
	uint32_t usb2_mask = 0x3FFF, ss_mask = 0x3F;

	f->cfg[0] = 0x86, f->cfg[1] = 0x80; /* vendor 0x8086 */
	memcpy(f->cfg + INTEL_XUSB2PRM, &usb2_mask, 4);
	memcpy(f->cfg + INTEL_USB3PRM, &ss_mask, 4);
	return f;
}

static void test_intel_port_routing(void **state)
{
	struct usb_hci hc = { .pci = { 0, 0, 1, 2 }, .vendor = 0x8086 };
	struct pci_model_fn *f = intel_xhci();

	pci_config_init(NULL);
	shadow_console[0] = 0;
	xhci_intel_route_ports(&hc);
	assert_int_equal(pci_model_cfg32(f, INTEL_USB3_PSSEN), 0x3F);
	assert_int_equal(pci_model_cfg32(f, INTEL_XUSB2PR), 0x3FFF);
	assert_non_null(strstr(shadow_console, "Intel port routing: SuperSpeed on ports 0x3f, USB 2 ports 0x3fff"));
}

static void test_intel_routing_needs_ehci(void **state)
{
	struct usb_hci hc = { .pci = { 0, 0, 1, 2 }, .vendor = 0x8086 };
	struct pci_model_fn *f = intel_xhci();

	/* Without an Intel EHCI the ports are the xHCI's already. */
	for (unsigned i = 0; i < nfns; i++)
		if (fns[i].cfg[0x09] == 0x20)
			fns[i].cfg[0] = 0x33, fns[i].cfg[1] = 0x11; /* not Intel any more */
	pci_config_init(NULL);
	xhci_intel_route_ports(&hc);
	assert_int_equal(pci_model_cfg32(f, INTEL_USB3_PSSEN), 0);
	assert_int_equal(pci_model_cfg32(f, INTEL_XUSB2PR), 0);
	/* Nor on another vendor's xHCI. */
	build(state);
	f = intel_xhci();
	hc.vendor = 0x1b36;
	pci_config_init(NULL);
	xhci_intel_route_ports(&hc);
	assert_int_equal(pci_model_cfg32(f, INTEL_XUSB2PR), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_walk_legacy, build),
		cmocka_unit_test_setup(test_find, build),
		cmocka_unit_test_setup(test_bars, build),
		cmocka_unit_test_setup(test_bar_decode, build),
		cmocka_unit_test_setup(test_walk_ecam, build),
		cmocka_unit_test_setup(test_no_access, build),
		cmocka_unit_test_setup(test_intel_port_routing, build),
		cmocka_unit_test_setup(test_intel_routing_needs_ehci, build),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
