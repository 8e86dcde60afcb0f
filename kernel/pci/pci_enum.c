/*
 * pci_enum.c - the bus walk: every function of every bus reachable from
 * each segment's first bus, through PCI-to-PCI bridges (header type 1) by
 * their secondary bus numbers, as the firmware programmed them.
 *
 * A bus is visited once even if two bridges claim it (a firmware bug) or
 * a bridge names its own bus.  Functions 1-7 are probed only when
 * function 0 says it is multi-function.  One CPU at a time (pci.h).
 */
#include "kernel/pci/pci.h"

#include "kernel/lib/libk.h"

struct walk {
	pci_visit_fn visit;
	void *ctx;
	unsigned count;
	bool stop;
	uint8_t seen[256 / 8]; /* buses of the current segment visited */
};

static bool read_func(struct pci_addr a, struct pci_func *f)
{
	uint32_t id = pci_read32(a, PCI_VENDOR_ID), cls;

	if ((id & 0xFFFF) == 0xFFFF || (id & 0xFFFF) == 0)
		return false;
	cls = pci_read32(a, PCI_REVISION);
	f->addr = a;
	f->vendor = (uint16_t)id;
	f->device = (uint16_t)(id >> 16);
	f->class_code = (uint8_t)(cls >> 24);
	f->subclass = (uint8_t)(cls >> 16);
	f->prog_if = (uint8_t)(cls >> 8);
	f->header_type = pci_read8(a, PCI_HEADER_TYPE) & 0x7F;
	return true;
}

static void walk_bus(struct walk *w, uint16_t segment, uint8_t bus, unsigned depth)
{
	if (w->seen[bus / 8] & (1u << (bus % 8)) || depth > 255)
		return;
	w->seen[bus / 8] |= (uint8_t)(1u << (bus % 8));

	for (uint8_t dev = 0; dev < 32 && !w->stop; dev++) {
		struct pci_addr a = { .segment = segment, .bus = bus, .dev = dev, .fn = 0 };
		uint8_t nfn = (pci_read8(a, PCI_HEADER_TYPE) & PCI_HEADER_MULTIFUNCTION) ? 8 : 1;

		for (uint8_t fn = 0; fn < nfn && !w->stop; fn++) {
			struct pci_func f;

			a.fn = fn;
			if (!read_func(a, &f))
				continue;
			w->count++;
			if (w->visit && w->visit(&f, w->ctx)) {
				w->stop = true;
				return;
			}
			if (f.header_type == 1) {
				uint8_t secondary = pci_read8(a, PCI_SECONDARY_BUS);
				if (secondary > bus) /* 0 = not configured; lower = a loop */
					walk_bus(w, segment, secondary, depth + 1);
			}
		}
	}
}

unsigned pci_enumerate(pci_visit_fn visit, void *ctx)
{
	struct walk w = { .visit = visit, .ctx = ctx };
	struct acpi_mcfg_info mcfg;
	bool done_seg0 = false;

	/* Segments with ECAM windows, each from its first bus; segment 0
	 * from bus 0 through the legacy mechanism if no window covers it. */
	pci_config_windows(&mcfg);
	for (uint32_t i = 0; i < mcfg.count && !w.stop; i++) {
		bool again = false;
		for (uint32_t j = 0; j < i; j++)
			again |= mcfg.seg[j].segment == mcfg.seg[i].segment;
		if (!again)
			memset(w.seen, 0, sizeof(w.seen));
		walk_bus(&w, mcfg.seg[i].segment, mcfg.seg[i].bus_start, 0);
		done_seg0 |= mcfg.seg[i].segment == 0;
	}
	if (!done_seg0 && !w.stop && pci_access_method() != PCI_ACCESS_NONE) {
		memset(w.seen, 0, sizeof(w.seen));
		walk_bus(&w, 0, 0, 0);
	}
	return w.count;
}

struct class_match {
	uint8_t class_code, subclass, prog_if;
	unsigned index;
	struct pci_func *out;
	bool found;
};

static bool match_class(const struct pci_func *f, void *ctx)
{
	struct class_match *m = ctx;

	if (f->class_code != m->class_code || f->subclass != m->subclass ||
	    (m->prog_if != 0xFF && f->prog_if != m->prog_if))
		return false;
	if (m->index--)
		return false;
	*m->out = *f;
	m->found = true;
	return true;
}

bool pci_find_class(uint8_t class_code, uint8_t subclass, uint8_t prog_if, unsigned index, struct pci_func *out)
{
	struct class_match m = { class_code, subclass, prog_if, index, out, false };

	pci_enumerate(match_class, &m);
	return m.found;
}

bool pci_find_location(struct pci_addr a, struct pci_func *out)
{
	return read_func(a, out);
}
