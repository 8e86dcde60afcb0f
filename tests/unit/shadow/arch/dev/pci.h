/*
 * shadow arch/dev/pci.h - the architecture's PCI hooks are plain function
 * declarations (no port I/O in the header), so host tests use the real
 * header and define the functions over a modelled configuration space
 * (tests/unit/kernel/pci/test_pci.c).
 */
#ifndef KPROF_SHADOW_ARCH_PCI_H
#define KPROF_SHADOW_ARCH_PCI_H

#include "../../../../../arch/x86_64/include/arch/dev/pci.h"

#endif
