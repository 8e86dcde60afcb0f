/*
 * spcr.c - the SPCR table: the serial port the firmware used as console.
 *
 * Only what kprof needs to drive a 16550: the register block (SystemIO
 * port or SystemMemory address, with its access size), the baud rate, the
 * PCI location and, from revision 3, the UART input clock.
 */
#include "kernel/acpi/acpi.h"

#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"


struct __attribute__((packed)) acpi_spcr {
	struct acpi_sdt_header hdr;
	uint8_t interface_type;    /* 0 16550, 1 16550 subset, 0x12 ...   */
	uint8_t reserved1[3];
	struct acpi_gas base;      /* register block                      */
	uint8_t interrupt_type;    /* bit 0 8259, bit 1 I/O APIC, ...     */
	uint8_t irq;               /* 8259 IRQ                            */
	uint32_t gsi;              /* global system interrupt             */
	uint8_t baud_code;         /* 3 9600, 4 19200, 6 57600, 7 115200  */
	uint8_t parity;            /* 0 none                              */
	uint8_t stop_bits;         /* 1 one stop bit                      */
	uint8_t flow_control;      /* bit 0 DCD, bit 1 RTS/CTS, bit 2 XON */
	uint8_t terminal_type;     /* 0 VT100, 1 VT100+, 2 VT-UTF8, 3 ANSI */
	uint8_t language;          /* reserved, 0                         */
	uint16_t pci_device;       /* 0xFFFF when not a PCI device        */
	uint16_t pci_vendor;       /* 0xFFFF when not a PCI device        */
	uint8_t pci_bus;
	uint8_t pci_dev;
	uint8_t pci_fn;
	uint32_t pci_flags;        /* bit 0: do not suppress PnP          */
	uint8_t pci_segment;
	uint32_t uart_clock;       /* revision 3+: Hz, 0 = unknown        */
};

_Static_assert(sizeof(struct acpi_spcr) == 80, "SPCR size");

static uint32_t baud_of(uint8_t code)
{
	switch (code) {
	case 3:
		return 9600;
	case 4:
		return 19200;
	case 6:
		return 57600;
	case 7:
		return 115200;
	default:
		return 0;
	}
}

int acpi_parse_spcr(const void *table, uint32_t len, acpi_warn_fn warn, struct acpi_spcr_info *out)
{
	const struct acpi_spcr *s = table;

	memset(out, 0, sizeof(*out));
	if (!table || len < sizeof(*s)) {
		acpi_warnf(warn, "acpi: SPCR length %u is shorter than the %u bytes needed", len, (unsigned)sizeof(*s));
		return -1;
	}
	out->base = s->base;
	if ((out->base.space_id != ACPI_GAS_IO && out->base.space_id != ACPI_GAS_MEMORY) || out->base.address == 0) {
		acpi_warnf(warn, "acpi: SPCR base 0x%llx in address space %u is neither an I/O port nor memory, ignored",
		      (unsigned long long)out->base.address, out->base.space_id);
		return -1;
	}
	out->interface_type = s->interface_type;
	out->baud_code = s->baud_code;
	out->baud = baud_of(s->baud_code);
	if (s->baud_code != 0 && out->baud == 0)
		acpi_warnf(warn, "acpi: SPCR baud rate code %u is not defined, keeping the firmware's rate", s->baud_code);
	out->pci_vendor = s->pci_vendor;
	out->pci_device = s->pci_device;
	out->pci_bus = s->pci_bus;
	out->pci_dev = s->pci_dev;
	out->pci_fn = s->pci_fn;
	out->pci_segment = s->pci_segment;
	if (s->hdr.revision >= 3)
		out->uart_clock = s->uart_clock;
	return 0;
}
