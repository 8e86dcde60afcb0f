/*
 * xhci_regs.h - xHCI register offsets, bit fields, TRB and context
 * layouts, named as in the xHCI 1.2 specification (section numbers in
 * the comments).  Definitions only; no code.
 */
#ifndef KPROF_KERNEL_XHCI_REGS_H
#define KPROF_KERNEL_XHCI_REGS_H

#include <stdint.h>

/* Capability registers (5.3), from BAR0. */
#define XHCI_CAPLENGTH   0x00 /* byte: operational registers' offset   */
#define XHCI_HCIVERSION  0x02 /* 16 bits, BCD                          */
#define XHCI_HCSPARAMS1  0x04
#define XHCI_HCSPARAMS2  0x08
#define XHCI_HCSPARAMS3  0x0C
#define XHCI_HCCPARAMS1  0x10
#define XHCI_DBOFF       0x14
#define XHCI_RTSOFF      0x18

#define HCSPARAMS1_MAX_SLOTS(v) ((v) & 0xFF)
#define HCSPARAMS1_MAX_INTRS(v) (((v) >> 8) & 0x7FF)
#define HCSPARAMS1_MAX_PORTS(v) ((v) >> 24)
#define HCSPARAMS2_MAX_SCRATCHPAD(v) ((((v) >> 21) & 0x1F) << 5 | ((v) >> 27))
#define HCCPARAMS1_AC64  (1u << 0)
#define HCCPARAMS1_CSZ   (1u << 2)
#define HCCPARAMS1_PPC   (1u << 3)
#define HCCPARAMS1_XECP(v) ((v) >> 16) /* dwords from BAR0 */

/* Operational registers (5.4), from BAR0 + CAPLENGTH. */
#define XHCI_USBCMD   0x00
#define XHCI_USBSTS   0x04
#define XHCI_PAGESIZE 0x08
#define XHCI_DNCTRL   0x14
#define XHCI_CRCR     0x18 /* 64 bits */
#define XHCI_DCBAAP   0x30 /* 64 bits */
#define XHCI_CONFIG   0x38
#define XHCI_PORTSC(n) (0x400 + 0x10 * ((n) - 1)) /* n: 1-based port */

#define USBCMD_RS    (1u << 0)  /* Run/Stop                 */
#define USBCMD_HCRST (1u << 1)  /* Host Controller Reset    */
#define USBCMD_INTE  (1u << 2)  /* Interrupter Enable       */
#define USBCMD_HSEE  (1u << 3)  /* Host System Error Enable */

#define USBSTS_HCH  (1u << 0)   /* HCHalted                 */
#define USBSTS_HSE  (1u << 2)   /* Host System Error        */
#define USBSTS_EINT (1u << 3)   /* Event Interrupt          */
#define USBSTS_PCD  (1u << 4)   /* Port Change Detect       */
#define USBSTS_CNR  (1u << 11)  /* Controller Not Ready     */
#define USBSTS_HCE  (1u << 12)  /* Host Controller Error    */

#define CRCR_RCS (1u << 0)      /* Ring Cycle State         */
#define CRCR_CS  (1u << 1)      /* Command Stop             */
#define CRCR_CA  (1u << 2)      /* Command Abort            */
#define CRCR_CRR (1u << 3)      /* Command Ring Running     */

/* PORTSC (5.4.8). */
#define PORTSC_CCS  (1u << 0)   /* Current Connect Status   */
#define PORTSC_PED  (1u << 1)   /* Port Enabled/Disabled (RW1CS: writing 1 disables) */
#define PORTSC_OCA  (1u << 3)
#define PORTSC_PR   (1u << 4)   /* Port Reset               */
#define PORTSC_PLS_SHIFT 5      /* Port Link State, 4 bits  */
#define PORTSC_PLS(v) (((v) >> 5) & 0xF)
#define PORTSC_PP   (1u << 9)   /* Port Power               */
#define PORTSC_SPEED(v) (((v) >> 10) & 0xF)
#define PORTSC_PIC_MASK (3u << 14)
#define PORTSC_LWS  (1u << 16)
#define PORTSC_CSC  (1u << 17)
#define PORTSC_PEC  (1u << 18)
#define PORTSC_WRC  (1u << 19)  /* Warm Port Reset Change   */
#define PORTSC_OCC  (1u << 20)
#define PORTSC_PRC  (1u << 21)  /* Port Reset Change        */
#define PORTSC_PLC  (1u << 22)
#define PORTSC_CEC  (1u << 23)
#define PORTSC_CAS  (1u << 24)  /* Cold Attach Status (USB 3): warm reset needed */
#define PORTSC_WCE  (1u << 25)
#define PORTSC_WDE  (1u << 26)
#define PORTSC_WOE  (1u << 27)
#define PORTSC_WPR  (1u << 31)  /* Warm Port Reset          */
#define PORTSC_CHANGE_BITS (PORTSC_CSC | PORTSC_PEC | PORTSC_WRC | PORTSC_OCC | PORTSC_PRC | PORTSC_PLC | PORTSC_CEC)
/* Bits written back unchanged; everything else is written 0 (RW1C change
 * bits and PED must not be written 1 by accident). */
#define PORTSC_PRESERVE (PORTSC_PP | PORTSC_PIC_MASK | PORTSC_WCE | PORTSC_WDE | PORTSC_WOE)

#define PLS_U0          0
#define PLS_RX_DETECT   5
#define PLS_SS_INACTIVE 6
#define PLS_POLLING     7
#define PLS_COMPLIANCE  10

/* Runtime registers (5.5), from BAR0 + RTSOFF: interrupter 0. */
#define XHCI_IR0      0x20
#define XHCI_IR_SIZE  0x20 /* each interrupter register set */
#define XHCI_IMAN     0x00
#define XHCI_IMOD     0x04
#define XHCI_ERSTSZ   0x08
#define XHCI_ERSTBA   0x10 /* 64 bits */
#define XHCI_ERDP     0x18 /* 64 bits */
#define IMAN_IP  (1u << 0)
#define IMAN_IE  (1u << 1)
#define ERDP_EHB (1u << 3)  /* Event Handler Busy (RW1C) */

/* Extended capabilities (7). */
#define XECP_ID(v)   ((v) & 0xFF)
#define XECP_NEXT(v) (((v) >> 8) & 0xFF) /* dwords */
#define XECP_LEGACY     1
#define XECP_PROTOCOL   2
#define USBLEGSUP_BIOS_OWNED (1u << 16)
#define USBLEGSUP_OS_OWNED   (1u << 24)
#define USBLEGCTLSTS         4            /* byte offset from USBLEGSUP */
/* USB SMI, Host System Error SMI, SMI on OS Ownership, PCI Command, BAR */
#define USBLEGCTLSTS_SMI_ENABLES 0x0000E011u
#define USBLEGCTLSTS_SMI_EVENTS  0xE0000000u /* RW1C */

/* Intel PCH configuration registers for port routing (not in xHCI). */
#define INTEL_XUSB2PR    0xD0 /* USB 2 ports routed to xHCI            */
#define INTEL_XUSB2PRM   0xD4 /* which of them may be                  */
#define INTEL_USB3_PSSEN 0xD8 /* SuperSpeed enabled on these ports     */
#define INTEL_USB3PRM    0xDC /* which of them may be                  */

/* TRBs (6.4). */
struct xhci_trb {
	uint64_t param;
	uint32_t status;
	uint32_t control;
};
_Static_assert(sizeof(struct xhci_trb) == 16, "TRB size");

#define TRB_CYCLE (1u << 0)
#define TRB_ENT   (1u << 1)  /* Evaluate Next TRB; on a Link TRB: TC    */
#define TRB_TC    (1u << 1)  /* Toggle Cycle (Link TRB)                 */
#define TRB_ISP   (1u << 2)  /* Interrupt on Short Packet               */
#define TRB_CH    (1u << 4)  /* Chain                                   */
#define TRB_IOC   (1u << 5)  /* Interrupt On Completion                 */
#define TRB_IDT   (1u << 6)  /* Immediate Data                          */
#define TRB_BSR   (1u << 9)  /* Block Set Address Request (Address Device) */
#define TRB_DIR_IN (1u << 16) /* Data/Status stage direction             */
#define TRB_TYPE(t) ((uint32_t)(t) << 10)
#define TRB_GET_TYPE(c) (((c) >> 10) & 0x3F)
#define TRB_TRT(t) ((uint32_t)(t) << 16) /* Setup: 0 none, 2 OUT, 3 IN  */
#define TRB_SLOT(s) ((uint32_t)(s) << 24)
#define TRB_EP(e)   ((uint32_t)(e) << 16)
#define TRB_GET_SLOT(c) ((c) >> 24)
#define TRB_GET_EP(c)   (((c) >> 16) & 0x1F)
#define TRB_LEN(n)     ((uint32_t)(n) & 0x1FFFF)
#define TRB_TD_SIZE(n) ((uint32_t)(n) << 17)
#define TRB_COMPLETION(s) ((s) >> 24)
#define TRB_RESIDUAL(s)   ((s) & 0xFFFFFF)

enum xhci_trb_type {
	TRB_NORMAL = 1, TRB_SETUP = 2, TRB_DATA = 3, TRB_STATUS = 4, TRB_LINK = 6,
	TRB_ENABLE_SLOT = 9, TRB_DISABLE_SLOT = 10, TRB_ADDRESS_DEVICE = 11, TRB_CONFIGURE_ENDPOINT = 12,
	TRB_EVALUATE_CONTEXT = 13, TRB_RESET_ENDPOINT = 14, TRB_STOP_ENDPOINT = 15, TRB_SET_TR_DEQUEUE = 16,
	TRB_NOOP_CMD = 23,
	TRB_TRANSFER_EVENT = 32, TRB_COMMAND_COMPLETION = 33, TRB_PORT_STATUS_CHANGE = 34,
	TRB_HOST_CONTROLLER_EVENT = 37,
};

/* Completion codes (6.4.5). */
enum xhci_completion {
	CC_SUCCESS = 1, CC_DATA_BUFFER = 2, CC_BABBLE = 3, CC_USB_TRANSACTION = 4, CC_TRB = 5, CC_STALL = 6,
	CC_RESOURCE = 7, CC_BANDWIDTH = 8, CC_NO_SLOTS = 9, CC_SLOT_NOT_ENABLED = 11, CC_EP_NOT_ENABLED = 12,
	CC_SHORT_PACKET = 13, CC_PARAMETER = 17, CC_CONTEXT_STATE = 19, CC_COMMAND_RING_STOPPED = 24,
	CC_COMMAND_ABORTED = 25, CC_STOPPED = 26,
};

/* Event Ring Segment Table entry (6.5). */
struct xhci_erst_entry {
	uint64_t base;
	uint32_t size; /* TRBs */
	uint32_t reserved;
};
_Static_assert(sizeof(struct xhci_erst_entry) == 16, "ERST entry size");

/* Contexts (6.2): dword fields of the slot and endpoint contexts. */
#define SLOT_ROUTE(r)        ((uint32_t)(r) & 0xFFFFF)       /* dw0 */
#define SLOT_SPEED(s)        ((uint32_t)(s) << 20)           /* dw0 */
#define SLOT_MTT             (1u << 25)                      /* dw0 */
#define SLOT_HUB             (1u << 26)                      /* dw0 */
#define SLOT_ENTRIES(n)      ((uint32_t)(n) << 27)           /* dw0 */
#define SLOT_ROOT_PORT(p)    ((uint32_t)(p) << 16)           /* dw1 */
#define SLOT_NUM_PORTS(n)    ((uint32_t)(n) << 24)           /* dw1 */
#define SLOT_TT_SLOT(s)      ((uint32_t)(s) & 0xFF)          /* dw2 */
#define SLOT_TT_PORT(p)      ((uint32_t)(p) << 8)            /* dw2 */
#define SLOT_TTT(t)          ((uint32_t)(t) << 16)           /* dw2 */
#define SLOT_GET_ADDRESS(v)  ((v) & 0xFF)                    /* dw3 */
#define SLOT_GET_STATE(v)    ((v) >> 27)                     /* dw3 */

#define EP_GET_STATE(v)      ((v) & 7)                       /* dw0 */
#define EP_INTERVAL(i)       ((uint32_t)(i) << 16)           /* dw0 */
#define EP_CERR(n)           ((uint32_t)(n) << 1)            /* dw1 */
#define EP_TYPE(t)           ((uint32_t)(t) << 3)            /* dw1 */
#define EP_MAX_BURST(b)      ((uint32_t)(b) << 8)            /* dw1 */
#define EP_MPS(m)            ((uint32_t)(m) << 16)           /* dw1 */
#define EP_AVG_TRB_LEN(n)    ((uint32_t)(n) & 0xFFFF)        /* dw4 */
#define EP_MAX_ESIT_LO(n)    ((uint32_t)(n) << 16)           /* dw4 */
#define EP_STATE_HALTED      2

enum xhci_ep_type {
	EP_ISOCH_OUT = 1, EP_BULK_OUT = 2, EP_INTERRUPT_OUT = 3, EP_CONTROL = 4,
	EP_ISOCH_IN = 5, EP_BULK_IN = 6, EP_INTERRUPT_IN = 7,
};

#define INPUT_DROP 0 /* dword of the Input Control Context: Drop flags */
#define INPUT_ADD  1 /* Add flags: bit 0 slot, bit n endpoint DCI n    */

#endif /* KPROF_KERNEL_XHCI_REGS_H */
