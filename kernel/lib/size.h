/*
 * size.h - a byte count as people read it on the console: "2.6 MB",
 * "131 KB", "510.5 MiB", "256 MiB", without floating point.
 *
 * One formatter, the style chosen per message with flags, so that every
 * line keeps the form it has always had: decimal units where the size is
 * storage or throughput (as sticks are sold), binary ones where it is
 * memory.  Tenths are rounded down unless SIZE_ROUND says otherwise.
 */
#ifndef KPROF_KERNEL_SIZE_H
#define KPROF_KERNEL_SIZE_H

#include <stddef.h>
#include <stdint.h>

#define SIZE_MB      0x0u /* decimal: KB and MB (1000, 1000000)            */
#define SIZE_MIB     0x1u /* binary: KiB and MiB (1024, 1048576)           */
#define SIZE_ROUND   0x2u /* tenths rounded to the nearest ("9.96" -> 10.0) */
#define SIZE_SMALL_K 0x4u /* below one M: whole K, rounded ("131 KB"),
			   * rather than "0.1 MB"                         */
#define SIZE_WHOLE   0x8u /* an exact number of M without tenths ("256 MiB") */

/* Write bytes into buf (size bytes, ksnprintf's truncation) as "N.N M",
 * or as flags say; returns buf.  Any caller, any IRQL: no state. */
const char *size_format(char *buf, size_t size, uint64_t bytes, unsigned flags);

#endif /* KPROF_KERNEL_SIZE_H */
