/*
 * pci_model.c - the modelled PCI configuration space of pci_model.h: the
 * <arch/dev/pci.h> hooks over the functions the tests put on the machine.
 */
#include "support/pci_model.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include <arch/dev/pci.h>

#include "kernel/acpi/acpi.h"

bool pci_model_legacy_on;
unsigned pci_model_decode_violations;
static struct pci_model_fn *fns[PCI_MODEL_FNS];
static unsigned nfns;

void pci_model_reset(void)
{
	nfns = 0;
	pci_model_legacy_on = true;
	pci_model_decode_violations = 0;
}

struct pci_model_fn *pci_model_add(struct pci_model_fn *f, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t vendor,
				   uint16_t device, uint8_t cls, uint8_t sub, uint8_t pif, uint8_t header)
{
	assert_true(nfns < PCI_MODEL_FNS);
	memset(f, 0, sizeof(*f));
	f->bus = bus, f->dev = dev, f->fn = fn;
	memcpy(f->cfg + 0, &vendor, 2);
	memcpy(f->cfg + 2, &device, 2);
	f->cfg[0x09] = pif, f->cfg[0x0A] = sub, f->cfg[0x0B] = cls;
	f->cfg[0x0E] = header;
	fns[nfns++] = f;
	return f;
}

struct pci_model_fn *pci_model_lookup(uint8_t bus, uint8_t dev, uint8_t fn)
{
	for (unsigned i = 0; i < nfns; i++)
		if (fns[i]->bus == bus && fns[i]->dev == dev && fns[i]->fn == fn)
			return fns[i];
	return NULL;
}

uint32_t pci_model_cfg32(const struct pci_model_fn *f, unsigned off)
{
	uint32_t v;
	memcpy(&v, f->cfg + off, 4);
	return v;
}

void pci_model_set_cfg32(struct pci_model_fn *f, unsigned off, uint32_t v)
{
	memcpy(f->cfg + off, &v, 4);
}

void pci_model_set_bar(struct pci_model_fn *f, unsigned i, uint32_t value, uint32_t mask)
{
	pci_model_set_cfg32(f, 0x10 + 4 * i, value);
	f->bar_mask[i] = mask;
}

bool arch_pci_mcfg(struct acpi_mcfg_info *out)
{
	memset(out, 0, sizeof(*out));
	return false;
}

bool arch_pci_legacy_present(void)
{
	return pci_model_legacy_on;
}

uint32_t arch_pci_legacy_read(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off, unsigned width)
{
	struct pci_model_fn *f = pci_model_lookup(bus, dev, fn);
	uint32_t v = 0;

	assert_true(off % width == 0 && off < 256);
	if (!f)
		return width == 4 ? 0xFFFFFFFFu : width == 2 ? 0xFFFF : 0xFF;
	if (f->on_read)
		f->on_read(f, (uint16_t)(off & ~3u));
	memcpy(&v, f->cfg + off, width);
	return v;
}

void arch_pci_legacy_write(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off, unsigned width, uint32_t v)
{
	struct pci_model_fn *f = pci_model_lookup(bus, dev, fn);

	assert_true(off % width == 0 && off < 256);
	if (!f)
		return;
	if (off >= 0x10 && off < 0x28 && width == 4 && !(f->cfg[0x0E] & 0x7F)) {
		unsigned i = (off - 0x10) / 4;
		uint32_t old = pci_model_cfg32(f, off);
		if (v == 0xFFFFFFFFu && (f->cfg[4] & 3))
			pci_model_decode_violations++;
		/* Only implemented address bits stick; the type bits are read-only. */
		uint32_t type = old & ((old & 1) ? 0x3u : 0xFu);
		if (i > 0 && f->bar_mask[i] == 0xFFFFFFFFu)
			type = 0; /* the upper half of a 64-bit BAR: all bits address */
		v = (v & f->bar_mask[i]) | type;
	}
	if (f->on_write)
		v = f->on_write(f, off, width, v);
	memcpy(f->cfg + off, &v, width);
}
