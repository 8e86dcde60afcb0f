/*
 * serial.c - the serial console: which UART, and the console sink on it.
 *
 * For now the console is the 16550 at I/O port 0x3F8 (COM1) when a UART
 * answers there.  Text gets '\n' -> "\r\n"; binary frames go out untouched
 * through arch_serial_write_raw().
 */
#include <arch/serial.h>

#include "arch/x86_64/serial_setup.h"
#include "arch/x86_64/uart16550.h"
#include "kernel/console.h"
#include "kernel/printf.h"

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

void serial_setup_early(void)
{
	serial_uart = (struct uart16550){
		.space = UART_SPACE_PIO, .base = 0x3F8, .stride = 1, .width = 1, .baud = 115200,
	};
	if (!uart_probe(&serial_uart))
		return;
	uart_init(&serial_uart);
	serial_ok = true;
	ksnprintf(serial_desc, sizeof(serial_desc), "16550 at I/O 0x%llx, %u baud, %u-byte FIFO",
		  (unsigned long long)serial_uart.base, serial_uart.baud, serial_uart.fifo_depth);
	console_register(&serial_sink);
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

const char *arch_serial_describe(void)
{
	return serial_ok ? serial_desc : "none";
}
