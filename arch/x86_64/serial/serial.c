/*
 * serial.c - the serial console: which UART, and the console sink on it.
 *
 * At boot the console is the 16550 at I/O port 0x3F8 (COM1) when a UART
 * answers there.  Once ACPI is read, the SPCR table (the firmware's own
 * serial console: port I/O or MMIO with a register stride, and a baud
 * rate) takes over if it names another 16550, and receives the text it
 * missed from the console backlog.  Text gets '\n' -> "\r\n"; binary
 * frames go out untouched through arch_serial_write_raw().
 */
#include <arch/dev/serial.h>

#include <arch/mmu.h>

#include "arch/x86_64/platform_x86.h"
#include "arch/x86_64/serial/serial_setup.h"
#include "arch/x86_64/serial/uart16550.h"
#include "kernel/arch_services.h"
#include "kernel/lib/printf.h"

static struct uart16550 serial_uart;
static bool serial_ok;
static char serial_desc[80];

static void serial_sink_write(struct console_sink *sink, const char *s, size_t n)
{
	(void)sink;
	size_t start = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\n')
			continue;
		uart_write(&serial_uart, s + start, i - start);
		uart_write(&serial_uart, "\r\n", 2);
		start = i + 1;
	}
	uart_write(&serial_uart, s + start, n - start);
}

static struct console_sink serial_sink = { .name = "serial", .write = serial_sink_write };

/* Choose u for the console, describe it and register the sink (with the
 * backlog when the console moves to a port found late). */
static void serial_use(const struct uart16550 *u, bool replay)
{
	unsigned long flags = console_lock();
	serial_uart = *u;
	console_unlock(flags);
	if (u->space == UART_SPACE_PIO)
		ksnprintf(serial_desc, sizeof(serial_desc), "16550 at I/O 0x%llx, %u baud, %u-byte FIFO",
			  (unsigned long long)u->base, u->baud, u->fifo_depth);
	else
		ksnprintf(serial_desc, sizeof(serial_desc), "16550 at MMIO 0x%llx (stride %u), %u baud, %u-byte FIFO",
			  (unsigned long long)u->base, u->stride, u->baud, u->fifo_depth);
	if (serial_ok) {
		if (replay) /* the text so far went to the old port only */
			console_unregister(&serial_sink);
		else
			return;
	}
	serial_ok = true;
	if (replay)
		console_register_replay(&serial_sink);
	else
		console_register(&serial_sink);
}

void serial_setup_early(void)
{
	serial_uart = (struct uart16550){
		.space = UART_SPACE_PIO, .base = 0x3F8, .stride = 1, .width = 1, .baud = 115200,
	};
	if (!uart_probe(&serial_uart))
		return;
	uart_init(&serial_uart);
	serial_use(&serial_uart, false);
}

void serial_setup_spcr(void)
{
	const struct acpi_table_ref *t = x86.have_acpi ? acpi_find(&x86.acpi, "SPCR", 0) : 0;
	struct acpi_spcr_info spcr;
	struct uart16550 u = { 0 };

	if (!t || acpi_parse_spcr(t->va, t->length, 0, &spcr))
		return;
	if (spcr.interface_type != 0 && spcr.interface_type != 1 && spcr.interface_type != 0x12) {
		kprintf("serial: the SPCR console is interface type 0x%x, not a 16550; keeping %s\n",
			spcr.interface_type, arch_serial_describe());
		return;
	}
	u.baud = spcr.baud;
	u.base = spcr.base.address;
	if (spcr.base.space_id == ACPI_GAS_IO) {
		u.space = UART_SPACE_PIO;
		u.stride = u.width = 1;
		if (serial_ok && serial_uart.space == UART_SPACE_PIO && serial_uart.base == u.base) {
			kprintf("serial: the SPCR console is this port\n");
			return;
		}
	} else {
		u.space = UART_SPACE_MMIO;
		/* Access size 3 (dword) or a 32-bit register width: 4-byte stride. */
		u.width = u.stride = (spcr.base.access_size == 3 || spcr.base.bit_width == 32) ? 4 : 1;
		u.mmio = kva_map_phys(u.base, 8 * u.stride, MAP_WRITE | MAP_UNCACHED);
		if (!u.mmio)
			return;
	}
	if (!uart_probe(&u)) {
		kprintf("serial: no UART answers where the SPCR table says (0x%llx); keeping %s\n",
			(unsigned long long)u.base, arch_serial_describe());
		return;
	}
	uart_init(&u);
	serial_use(&u, true);
	kprintf("serial: console moved to the SPCR port: %s\n", serial_desc);
}

bool arch_serial_present(void)
{
	return serial_ok;
}

void arch_serial_write_raw(const void *data, size_t n)
{
	if (serial_ok)
		uart_write(&serial_uart, data, n);
}

bool arch_serial_measure(uint64_t *read, uint64_t *write, uint64_t *string, uint32_t *string_bytes)
{
	struct uart_cost c;

	if (!serial_ok)
		return false;
	unsigned long flags = console_lock(); /* the port's registers are the console's */
	uart_measure(&serial_uart, &c);
	console_unlock(flags);
	*read = c.lsr_read;
	*write = c.scr_write;
	*string = c.string;
	*string_bytes = c.string_bytes;
	return true;
}

const char *arch_serial_describe(void)
{
	return serial_ok ? serial_desc : "none";
}
