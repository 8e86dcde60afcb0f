/*
 * test_usb_handoff.c - usb_handoff_all() (kernel/usb/handoff/) against a
 * modelled machine: PCI configuration space through the legacy mechanism
 * (tests/unit/support/pci_model.c: BARs with real sizing semantics), EHCI controllers whose legacy
 * support capability sits in configuration space (EECP) and whose
 * firmware lets go after a few reads, or never, and whose Run/Stop does
 * or does not halt them; an xHCI controller whose USBLEGSUP is in MMIO
 * (the xHCI driver's hand-off, through hci_take_from_firmware); UHCI and
 * OHCI (reported only).  A virtual clock runs with every delay, so the
 * bounded waits are measured as they run on the machine.
 *
 * Modules: kernel/usb/xhci/pci (its firmware hand-off, xhci_takeover.c)
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
#include "kernel/usb/handoff/handoff.h"

/* ---------------------------------------------------- configuration space */

/* A controller: its PCI function (tests/unit/support/pci_model.c) and what the
 * firmware and the registers do. */
struct model_fn {
	struct pci_model_fn pci; /* first: the model's hooks get it        */
	uint16_t eecp;         /* EHCI: USBLEGSUP's offset (0: none)        */
	int release_after;     /* reads of USBLEGSUP after OS Owned; -1 never */
	int reads;
	uint8_t *mmio;         /* BAR0's registers                          */
	bool halts;            /* EHCI: Run/Stop 0 sets HCHalted            */
};

static struct model_fn fns[8];
static unsigned nfns;
static uint64_t now_us;

static uint8_t mmio[4][0x1000] __attribute__((aligned(16)));
#define MMIO_PHYS 0xFE000000ull

static uint32_t cfg32(struct model_fn *f, unsigned off)
{
	return pci_model_cfg32(&f->pci, off);
}

static void set_cfg32(struct model_fn *f, unsigned off, uint32_t v)
{
	pci_model_set_cfg32(&f->pci, off, v);
}

/* The firmware's SMI handler lets go of an EHCI some reads of USBLEGSUP
 * after OS Owned. */
static void ehci_cfg_read(struct pci_model_fn *p, uint16_t off)
{
	struct model_fn *f = (struct model_fn *)p;

	if (f->eecp && off == f->eecp && (cfg32(f, f->eecp) & (1u << 24)) && f->release_after >= 0 &&
	    ++f->reads > f->release_after)
		set_cfg32(f, f->eecp, cfg32(f, f->eecp) & ~(1u << 16));
}

static uint32_t ehci_cfg_write(struct pci_model_fn *p, uint16_t off, unsigned width, uint32_t v)
{
	struct model_fn *f = (struct model_fn *)p;

	if (f->eecp && off == f->eecp + 4 && width == 4) /* USBLEGCTLSTS: events RW1C */
		v = (v & 0x1FFFFFFFu) | (cfg32(f, off) & 0xE0000000u & ~v);
	return v;
}

void *kva_map_phys(uint64_t pa, size_t size, unsigned prot)
{
	(void)prot;
	assert_true(pa >= MMIO_PHYS && pa + size <= MMIO_PHYS + sizeof(mmio));
	return mmio[(pa - MMIO_PHYS) / sizeof(mmio[0])];
}

/* ------------------------------------------------------------ registers */

static uint32_t *reg(uint8_t *base, unsigned off)
{
	return (uint32_t *)(base + off);
}

static struct model_fn *owner(const volatile void *r)
{
	for (unsigned i = 0; i < nfns; i++)
		if (fns[i].mmio && (const uint8_t *)r >= fns[i].mmio && (const uint8_t *)r < fns[i].mmio + 0x1000)
			return &fns[i];
	fail_msg("register access outside every BAR");
	return NULL;
}

/* xHCI: USBLEGSUP at 0x500 (xECP 0x140), BIOS Owned let go like EHCI's. */
#define XHCI_LEGSUP 0x500

uint32_t xhci_read32(const volatile void *r)
{
	struct model_fn *f = owner(r);
	unsigned off = (unsigned)((const uint8_t *)r - f->mmio);

	if (off == XHCI_LEGSUP && (*reg(f->mmio, off) & (1u << 24)) && f->release_after >= 0 &&
	    ++f->reads > f->release_after)
		*reg(f->mmio, off) &= ~(1u << 16);
	return *(const volatile uint32_t *)r;
}

void xhci_write32(volatile void *r, uint32_t v)
{
	struct model_fn *f = owner(r);
	unsigned off = (unsigned)((uint8_t *)r - f->mmio);

	if (off == XHCI_LEGSUP + 4) /* USBLEGCTLSTS: events RW1C */
		v = (v & 0x1FFFFFFFu) | (*reg(f->mmio, off) & 0xE0000000u & ~v);
	*(volatile uint32_t *)r = v;
}

uint64_t xhci_time_us(void) { return now_us; }
void xhci_delay_us(uint64_t us) { now_us += us; }

/* EHCI: capability registers 0x00-0x1F, operational from 0x20. */
#define EHCI_OP 0x20

uint32_t handoff_read32(const volatile void *r)
{
	owner(r);
	return *(const volatile uint32_t *)r;
}

void handoff_write32(volatile void *r, uint32_t v)
{
	struct model_fn *f = owner(r);
	unsigned off = (unsigned)((uint8_t *)r - f->mmio);

	if (off == EHCI_OP + 4) { /* USBSTS: RW1C */
		*reg(f->mmio, off) &= ~(v & 0x3Fu);
		return;
	}
	*(volatile uint32_t *)r = v;
	if (off == EHCI_OP && !(v & 1) && f->halts)
		*reg(f->mmio, EHCI_OP + 4) |= 1u << 12;
}

uint64_t handoff_time_us(void) { return now_us; }
void handoff_delay_us(uint64_t us) { now_us += us; }

/* ---------------------------------------------------------------- machine */

static struct model_fn *add_fn(uint8_t dev, uint16_t device, uint8_t pif, unsigned bar)
{
	struct model_fn *f = &fns[nfns++];

	memset(f, 0, sizeof(*f));
	pci_model_add(&f->pci, 0, dev, 0, 0x8086, device, 0x0C, 0x03, pif, 0x00);
	f->pci.bar_mask[0] = 0xFFFFF000u;
	f->pci.on_read = ehci_cfg_read;
	f->pci.on_write = ehci_cfg_write;
	f->release_after = 3;
	f->mmio = mmio[bar];
	memset(f->mmio, 0, sizeof(mmio[0]));
	set_cfg32(f, 0x10, (uint32_t)MMIO_PHYS + bar * 0x1000u);
	f->pci.cfg[4] = PCI_COMMAND_MEMORY;
	return f;
}

/* An EHCI the firmware runs: EECP 0x68 (as on Intel chipsets), the
 * legacy support capability there, every SMI on, the schedule running. */
static struct model_fn *add_ehci(uint8_t dev, unsigned bar, int release_after, bool halts)
{
	struct model_fn *f = add_fn(dev, 0x1e26, 0x20, bar);

	f->eecp = 0x68;
	f->release_after = release_after;
	f->halts = halts;
	set_cfg32(f, 0x68, 0x00010001u);              /* BIOS Owned, id 1, no next */
	set_cfg32(f, 0x6C, 0xE000E03Fu);              /* every SMI enable, events pending */
	*reg(f->mmio, 0x00) = 0x01000020u;            /* CAPLENGTH 0x20, HCIVERSION 1.0 */
	*reg(f->mmio, 0x08) = 0x68u << 8;             /* HCCPARAMS.EECP */
	*reg(f->mmio, EHCI_OP) = 0x00080001u;         /* running */
	*reg(f->mmio, EHCI_OP + 4) = 0x0000003Fu;     /* running, status bits set */
	*reg(f->mmio, EHCI_OP + 8) = 0x3Fu;           /* interrupts on */
	return f;
}

static struct model_fn *add_xhci(uint8_t dev, unsigned bar)
{
	struct model_fn *f = add_fn(dev, 0x1e31, 0x30, bar);

	*reg(f->mmio, 0x00) = 0x01000020u;             /* CAPLENGTH 0x20, 1.0 */
	*reg(f->mmio, 0x10) = (XHCI_LEGSUP / 4) << 16; /* HCCPARAMS1.xECP */
	*reg(f->mmio, XHCI_LEGSUP) = 0x00010001u;      /* BIOS Owned, id 1 */
	*reg(f->mmio, XHCI_LEGSUP + 4) = 0xE000E011u;  /* SMI enables, events */
	return f;
}

static int setup(void **state)
{
	(void)state;
	nfns = 0;
	pci_model_reset();
	now_us = 0;
	shadow_console[0] = 0;
	assert_int_equal(pci_config_init(NULL), PCI_ACCESS_LEGACY);
	return 0;
}

static bool said(const char *text)
{
	return strstr(shadow_console, text) != NULL;
}

/* ------------------------------------------------------------------ tests */

static void test_every_controller(void **state)
{
	struct model_fn *x = add_xhci(0x14, 0);
	struct model_fn *e = add_ehci(0x1a, 1, 3, true);
	struct model_fn *stuck = add_ehci(0x1d, 2, -1, true);

	add_fn(0x1e, 0x2934, 0x00, 3)->pci.bar_mask[0] = 0; /* UHCI: I/O BAR in reality */
	add_fn(0x1f, 0x0035, 0x10, 3);
	assert_int_equal(usb_handoff_all(), 5);
	print_message("%s", shadow_console);

	/* xHCI: the driver's hand-off, on a controller it does not drive. */
	assert_int_equal(*reg(x->mmio, XHCI_LEGSUP) & 0x01010000u, 0x01000000u);
	assert_int_equal(*reg(x->mmio, XHCI_LEGSUP + 4), 0);
	assert_true(said("usb: 0000:00:14.0 xHCI 8086:1e31: taken from the firmware (legacy SMIs off)\n"));
	/* EHCI let go: OS Owned, BIOS Owned clear, no SMI enabled, no event
	 * pending, halted with its interrupts off and status cleared. */
	assert_int_equal(cfg32(e, 0x68), 0x01000001u);
	assert_int_equal(cfg32(e, 0x6C), 0);
	assert_int_equal(*reg(e->mmio, EHCI_OP) & 1, 0);
	assert_int_equal(*reg(e->mmio, EHCI_OP + 8), 0);
	assert_int_equal(*reg(e->mmio, EHCI_OP + 4), 1u << 12);
	assert_true(said("usb: 0000:00:1a.0 EHCI 8086:1e26: taken from the firmware (legacy SMIs off; halted)\n"));
	/* EHCI whose firmware never let go: one second, then taken anyway. */
	assert_int_equal(cfg32(stuck, 0x68), 0x01000001u);
	assert_int_equal(cfg32(stuck, 0x6C), 0);
	assert_true(said("usb: 0000:00:1d.0 EHCI 8086:1e26: firmware did not let go within 1000 ms: taken anyway "
			 "(legacy SMIs off; halted)\n"));
	assert_true(now_us >= 1000 * 1000 && now_us < 1100 * 1000);
	assert_true(said("usb: 0000:00:1e.0 UHCI 8086:2934: left to the firmware (no hand-off for UHCI"));
	assert_true(said("usb: 0000:00:1f.0 OHCI 8086:0035: left to the firmware (no hand-off for OHCI"));
}

static void test_ehci_not_owned_does_not_halt(void **state)
{
	struct model_fn *e = add_ehci(0x1a, 1, 0, false);

	set_cfg32(e, 0x68, 0x00000001u); /* the firmware never owned it */
	assert_int_equal(usb_handoff_all(), 1);
	assert_int_equal(cfg32(e, 0x68), 0x01000001u);
	assert_int_equal(cfg32(e, 0x6C), 0);
	assert_true(said("usb: 0000:00:1a.0 EHCI 8086:1e26: not the firmware's (legacy SMIs off; did not halt within "
			 "20 ms)\n"));
	assert_true(now_us >= 20 * 1000 && now_us < 30 * 1000);
}

static void test_ehci_unassigned_bar(void **state)
{
	struct model_fn *e = add_ehci(0x1a, 1, 3, true);

	set_cfg32(e, 0x10, 0);
	assert_int_equal(usb_handoff_all(), 1);
	assert_int_equal(cfg32(e, 0x68), 0x00010001u); /* untouched */
	assert_int_equal(cfg32(e, 0x6C), 0xE000E03Fu);
	assert_true(said("usb: 0000:00:1a.0 EHCI 8086:1e26: BAR0 is not an assigned memory BAR: left alone\n"));
}

static void test_ehci_without_capability(void **state)
{
	struct model_fn *e = add_ehci(0x1a, 1, 3, true);

	*reg(e->mmio, 0x08) = 0; /* EECP 0: no extended capabilities */
	assert_int_equal(usb_handoff_all(), 1);
	assert_int_equal(cfg32(e, 0x68), 0x00010001u);
	assert_true(said("usb: 0000:00:1a.0 EHCI 8086:1e26: no legacy support capability (nothing to take); halted\n"));
	assert_int_equal(*reg(e->mmio, EHCI_OP) & 1, 0);
}

static void test_no_usb(void **state)
{
	struct model_fn *f = add_fn(0x02, 0x1234, 0x00, 0);

	f->pci.cfg[0x0B] = 0x02; /* a network controller */
	assert_int_equal(usb_handoff_all(), 0);
	assert_true(said("usb: no USB host controller on PCI\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_every_controller, setup),
		cmocka_unit_test_setup(test_ehci_not_owned_does_not_halt, setup),
		cmocka_unit_test_setup(test_ehci_unassigned_bar, setup),
		cmocka_unit_test_setup(test_ehci_without_capability, setup),
		cmocka_unit_test_setup(test_no_usb, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
