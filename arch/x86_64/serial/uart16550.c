/*
 * uart16550.c - polled output on a 16550-compatible UART.
 *
 * Output waits for LSR.THRE (transmit holding register empty; with FIFOs
 * enabled: the whole transmit FIFO empty) and then writes up to fifo_depth
 * bytes, so a real UART at 115200 baud never drops a byte however fast we
 * produce them.  On port I/O the burst is one "rep outsb": the same
 * back-to-back writes to THR as a loop of outb, without the per-byte call
 * and branch.  Under QEMU 7.2 (TCG) every byte written costs 1.3 to 2 us of
 * host time whatever the guest does (the emulated UART writes each byte
 * to its character device with a writev of its own); medians of 9
 * interleaved 32 KiB runs: 5525 cycles per byte through the loop of
 * uart_out, 5146 with rep outsb, 5126 for bare outb without the LSR
 * polls, and 106 for one LSR read.  The rest is the emulator's.  Under
 * KVM with software paging (uart_measure(), scenario=boot's "serial port
 * access" line) a port read or write is one VM exit of about 11 us, and
 * rep outsb still exits once a byte (7.9 us a byte): no string batching
 * to win there (docs/running.md, "KVM backends tried").
 *
 * Registers are reached by port I/O or MMIO with a stride, as the ACPI
 * SPCR table describes the firmware's console.
 */
#include "arch/x86_64/serial/uart16550.h"

#include "arch/x86_64/x86.h"
#include "kernel/lib/stats.h"

#include <arch/cpu.h>

enum {
	UART_THR = 0, /* transmit holding (DLAB=0)       */
	UART_DLL = 0, /* divisor low (DLAB=1)            */
	UART_IER = 1, /* interrupt enable (DLAB=0)       */
	UART_DLM = 1, /* divisor high (DLAB=1)           */
	UART_FCR = 2, /* FIFO control (write)            */
	UART_IIR = 2, /* interrupt identification (read) */
	UART_LCR = 3, /* line control                    */
	UART_MCR = 4, /* modem control                   */
	UART_LSR = 5, /* line status                     */
	UART_SCR = 7, /* scratch                         */
};

#define LSR_THRE 0x20
#define LCR_DLAB 0x80
#define LCR_8N1  0x03
#define UART_CLOCK 1843200u /* 1.8432 MHz reference: divisor = 115200 / baud */

static uint8_t uart_in(struct uart16550 *u, unsigned reg)
{
	if (u->space == UART_SPACE_PIO)
		return inb((uint16_t)(u->base + reg));
	volatile uint8_t *p = u->mmio + reg * u->stride;
	if (u->width == 4)
		return (uint8_t)*(volatile uint32_t *)p;
	return *p;
}

static void uart_out(struct uart16550 *u, unsigned reg, uint8_t v)
{
	if (u->space == UART_SPACE_PIO) {
		outb((uint16_t)(u->base + reg), v);
		return;
	}
	volatile uint8_t *p = u->mmio + reg * u->stride;
	if (u->width == 4)
		*(volatile uint32_t *)p = v;
	else
		*p = v;
}

bool uart_probe(struct uart16550 *u)
{
	uint8_t saved = uart_in(u, UART_SCR);
	bool ok = true;

	if (uart_in(u, UART_LSR) == 0xFF)
		return false; /* floating bus: nothing there */
	for (unsigned pattern = 0x5A; pattern <= 0xA5; pattern += 0x4B) {
		uart_out(u, UART_SCR, (uint8_t)pattern);
		if (uart_in(u, UART_SCR) != pattern)
			ok = false;
	}
	uart_out(u, UART_SCR, saved);
	return ok;
}

void uart_init(struct uart16550 *u)
{
	uart_out(u, UART_IER, 0x00); /* polled: no interrupts */
	if (u->baud) {
		uint32_t div = UART_CLOCK / 16 / u->baud;
		uart_out(u, UART_LCR, LCR_DLAB);
		uart_out(u, UART_DLL, (uint8_t)div);
		uart_out(u, UART_DLM, (uint8_t)(div >> 8));
	}
	uart_out(u, UART_LCR, LCR_8N1);
	uart_out(u, UART_FCR, 0x07); /* enable and clear both FIFOs, trigger 1 */
	uart_out(u, UART_MCR, 0x03); /* DTR, RTS */
	/* IIR bits 7:6 read 11 when the FIFOs really are enabled. */
	u->fifo_depth = (uart_in(u, UART_IIR) & 0xC0) == 0xC0 ? 16 : 1;
}

void uart_write(struct uart16550 *u, const void *data, size_t n)
{
	const uint8_t *p = data;

	while (n) {
		while (!(uart_in(u, UART_LSR) & LSR_THRE))
			__asm__ volatile("pause");
		size_t burst = n < u->fifo_depth ? n : u->fifo_depth;
		if (u->space == UART_SPACE_PIO) {
			outsb((uint16_t)(u->base + UART_THR), p, burst);
		} else {
			for (size_t i = 0; i < burst; i++)
				uart_out(u, UART_THR, p[i]);
		}
		p += burst;
		n -= burst;
	}
}

/* ---------------------------------------------------------------- cost */

#define MEASURE_ROUNDS 5   /* medians of 5 */
#define MEASURE_BATCH 16   /* accesses timed together: one TSC span, not one per access */
#define MEASURE_STRING 64

void uart_measure(struct uart16550 *u, struct uart_cost *c)
{
	uint64_t lsr[MEASURE_ROUNDS], scr[MEASURE_ROUNDS], str[MEASURE_ROUNDS];
	static const uint8_t pattern[MEASURE_STRING];
	uint8_t saved = uart_in(u, UART_SCR);

	for (int i = 0; i < MEASURE_ROUNDS; i++) {
		uint64_t t0 = arch_rdtsc();
		for (int b = 0; b < MEASURE_BATCH; b++)
			(void)uart_in(u, UART_LSR);
		uint64_t t1 = arch_rdtsc();
		for (int b = 0; b < MEASURE_BATCH; b++)
			uart_out(u, UART_SCR, 0);
		uint64_t t2 = arch_rdtsc();
		if (u->space == UART_SPACE_PIO)
			outsb((uint16_t)(u->base + UART_SCR), pattern, MEASURE_STRING);
		else
			for (int b = 0; b < MEASURE_STRING; b++)
				uart_out(u, UART_SCR, pattern[b]);
		uint64_t t3 = arch_rdtsc();
		lsr[i] = (t1 - t0) / MEASURE_BATCH;
		scr[i] = (t2 - t1) / MEASURE_BATCH;
		str[i] = t3 - t2;
	}
	uart_out(u, UART_SCR, saved);
	c->lsr_read = median_u64(lsr, MEASURE_ROUNDS);
	c->scr_write = median_u64(scr, MEASURE_ROUNDS);
	c->string = median_u64(str, MEASURE_ROUNDS);
	c->string_bytes = MEASURE_STRING;
}
