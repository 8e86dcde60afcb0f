/*
 * fake_hci.h - a fake xHCI controller (fake_hci.c) implementing
 * kernel/usb/hci.h for host unit tests, with fake devices behind it: hubs
 * (fake_hub.c) and a Bulk-Only SCSI disk (fake_bot.c).
 *
 * The fake checks what a real controller and real devices would refuse
 * and counts each violation in fake_errors with a "BAD ..." line in the
 * log: a device addressed through a hub port that is not powered and
 * enabled, a route string, depth or TT that does not match the topology,
 * class requests to an unconfigured device, bulk transfers on an endpoint
 * halted in the controller or whose data toggle was reset on only one
 * side (hci_clear_halt() and CLEAR_FEATURE(ENDPOINT_HALT) must pair), a
 * CBW while the disk expects data or a CSW.  Every request is logged
 * (one line each, in order) so tests can assert exact sequences.
 * hci_controller_reset() puts every device back in its default state and
 * forgets every slot; a disk can be made to fail WRITEs or to answer
 * nothing until a bus or controller reset (the stick's recovery ladder);
 * Address Device and the device descriptor can be made to fail, and a
 * USB 3 hub port's link to need a warm reset (enumeration's tolerance).
 * Time is virtual: ke_stall_execution_processor() advances fake_now_us,
 * and hubs complete power-on and reset against it.
 * Single-threaded, reset by fake_reset() before each test.
 */
#ifndef KPROF_TESTS_FAKE_HCI_H
#define KPROF_TESTS_FAKE_HCI_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/usb/hci.h"
#include "kernel/usb/storage/stick.h"

#define FAKE_PORTS_MAX 15
#define FAKE_SLOTS_MAX 32
#define FAKE_LOG_BYTES (1 << 16)

enum fake_kind { FAKE_HUB, FAKE_DISK };

struct fake_hub;
struct fake_disk;

struct fake_dev {
	enum fake_kind kind;
	const char *name;          /* in log lines                          */
	enum usb_speed speed;
	uint8_t slot;              /* from hci_device_add, 0 before         */
	uint8_t config;            /* SET_CONFIGURATION value, 0 = none     */
	struct usb_device *host;   /* the usb_device that addressed it      */
	uint8_t dev_desc[18];
	uint8_t cfg_desc[128];
	uint16_t cfg_len;
	struct fake_hub *hub;      /* FAKE_HUB                              */
	struct fake_disk *disk;    /* FAKE_DISK                             */
	/* bulk endpoints (index: address & 15, [0] OUT, [1] IN) */
	bool ep_configured[16][2]; /* hci_configure'd                       */
	bool ep_host_halted[16][2];/* a STALL seen, no hci_clear_halt yet   */
	bool ep_dev_halted[16][2]; /* device side halt                      */
	unsigned ep_host_resets[16][2]; /* hci_clear_halt calls             */
	unsigned ep_dev_resets[16][2];  /* CLEAR_FEATURE(ENDPOINT_HALT)     */
	unsigned desc_timeouts;    /* fault: GET_DESCRIPTOR(DEVICE)s that get
				    * no answer (USB_TIMEOUT after 2 s of
				    * virtual time, the driver's control
				    * time-out), counting down              */
};

struct fake_hub {
	uint8_t nports;
	bool usb3;                 /* answers 0x2A, SuperSpeed status bits  */
	uint8_t pwr_on_2_pwr_good; /* 2 ms units                            */
	uint8_t tt_think;          /* wHubCharacteristics bits 6:5          */
	bool configured_in_hc;     /* hci_hub_configure called              */
	int depth_set;             /* SET_HUB_DEPTH value, -1 none          */
	struct fake_dev *port_dev[FAKE_PORTS_MAX + 1];
	uint16_t status[FAKE_PORTS_MAX + 1], change[FAKE_PORTS_MAX + 1];
	uint64_t powered_at[FAKE_PORTS_MAX + 1];
	uint64_t reset_done_at[FAKE_PORTS_MAX + 1];
	uint32_t last_report[FAKE_PORTS_MAX + 1]; /* status polls logged on change */
	bool never_finish_reset;   /* fault: reset never completes          */
	/* USB 3 hubs: a port's link stuck in this state (USB_SS_PORT_LS_*,
	 * 0 none) with no CONNECTION until a BH_PORT_RESET; a PORT_RESET
	 * that leaves the link in SS.Inactive, not enabled */
	uint16_t stuck_link[FAKE_PORTS_MAX + 1];
	bool hot_reset_fails[FAKE_PORTS_MAX + 1];
	bool warm_resetting[FAKE_PORTS_MAX + 1];
};

extern char fake_log[FAKE_LOG_BYTES];
extern unsigned fake_errors;
extern uint64_t fake_now_us;
/* Fault of the controller driver itself (breaking hci.h): bulk transfer
 * number N from now (1: the next) reports one byte more than it was
 * asked for; 0: none. */
extern unsigned fake_bulk_overreport;
/* Fault: the next N hci_device_add()s fail (the device did not answer
 * SET_ADDRESS: USB_ERROR, no slot kept). */
extern unsigned fake_address_failures;

/* The time-out each bulk transfer was given, in order, since fake_reset()
 * or since the test set fake_bulk_count to 0 (the first
 * FAKE_BULK_TIMEOUTS of them). */
#define FAKE_BULK_TIMEOUTS 64
extern uint32_t fake_bulk_timeout_ms[FAKE_BULK_TIMEOUTS];
extern unsigned fake_bulk_count;

/* Empty bus and log, time 0; the controller answers at PCI 0000:00:03.0
 * with nports root ports. */
void fake_reset(unsigned nports);
void fake_attach_root(unsigned port, struct fake_dev *d);
/* A zeroed device, freed by the next fake_reset() (for fake_*_new). */
struct fake_dev *fake_dev_alloc(enum fake_kind kind, const char *name, enum usb_speed speed);
void fake_log_add(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Lines matching every element of want, in that order (others may lie
 * between them); on a mismatch prints the log and returns false. */
bool fake_log_has_seq(const char *const *want);
unsigned fake_log_count(const char *needle);

/* fake_hub.c */
struct fake_dev *fake_hub_new(const char *name, enum usb_speed speed, uint8_t nports);
void fake_hub_attach(struct fake_dev *hub, unsigned port, struct fake_dev *d);
int fake_hub_control(struct fake_dev *d, const struct usb_setup *s, uint8_t *data, uint32_t *actual);

/* fake_bot.c */
struct fake_disk {
	uint32_t block_size;
	uint64_t blocks;           /* reported capacity                     */
	uint8_t *store;            /* LBAs [0, store_blocks)                */
	uint64_t store_blocks;
	uint8_t max_lun;
	bool max_lun_stalls;
	uint8_t boot_lun;          /* the LUN with the medium; the others
				    * are empty card slots (2/3A/00)      */
	bool wp_media;             /* WRITE fails 7/27/00                   */
	bool wp_mode_sense;        /* MODE SENSE reports WP                 */
	bool wp_stalls_data;       /* ... and stalls the OUT data doing so  */
	bool sync_unsupported;     /* SYNCHRONIZE CACHE: 5/20/00            */
	unsigned unit_attentions;  /* commands of opcode attention_op (0:
				    * TEST UNIT READY) answered 6/29/00     */
	uint8_t attention_op;
	uint32_t settle_ms;        /* NAKs everything (time-outs) for so
				    * long after SET_CONFIGURATION          */
	uint32_t not_ready_ms;     /* ... and answers 2/04/01 (becoming
				    * ready) to all but INQUIRY and REQUEST
				    * SENSE for so long after it            */
	bool needs_start;          /* 2/04/02 (initializing command
				    * required) to all but INQUIRY and
				    * REQUEST SENSE until START UNIT        */
	uint64_t configured_at_us; /* SET_CONFIGURATION's fake time         */
	uint8_t sync_sense[3];     /* SYNCHRONIZE CACHE fails with this
				    * key/ASC/ASCQ (key 0: passes)          */
	unsigned bogus_residues;   /* CSWs whose residue is the whole length
				    * though every byte moved              */
	/* faults, each counts down per use */
	unsigned stall_data;       /* stall the data stage, fail 3/11/00    */
	unsigned stall_csw;        /* stall the CSW read                    */
	unsigned bad_csw_sig, bad_csw_tag, big_residue, phase_error;
	unsigned read_short;       /* READ: send this many bytes less, pass  */
	bool reset_fails;          /* Bulk-Only Mass Storage Reset stalls   */
	unsigned write_errors;     /* WRITEs failed b/00/06 (I/O aborted)   */
	bool hung;                 /* answers nothing (time-outs) until a
				    * bus reset                             */
	bool hung_until_hc_reset;  /* ... until a controller reset          */
	/* device state */
	int state;                 /* fake_bot.c's BOT state                */
	uint32_t tag, expected;
	bool dir_in;
	uint8_t op;                /* opcode of the current command         */
	uint8_t lun;               /* bCBWLUN of the current command        */
	uint8_t *resp;             /* IN data of the current command        */
	uint32_t resp_len;
	uint8_t resp_buf[256];
	uint64_t out_lba;          /* WRITE target                          */
	bool out_ok;               /* WRITE allowed                         */
	bool stall_this;           /* current command's data stage stalls   */
	uint8_t csw_status;
	uint32_t csw_residue;
	uint8_t sense[3];          /* key, asc, ascq pending                */
	unsigned writes, reads, resets;
};

struct fake_dev *fake_disk_new(const char *name, enum usb_speed speed, uint32_t block_size, uint64_t blocks,
			       uint64_t store_blocks);
/* A GPT header at LBA 1 with this DiskGUID (FirstUsableLBA 34). */
void fake_disk_write_gpt(struct fake_disk *k, const uint8_t guid[16]);
/* An MBR at LBA 0 (disk signature, one FAT32 LBA entry) and a FAT32 boot
 * sector with this volume serial at part_lba (inside the store). */
void fake_disk_write_mbr(struct fake_disk *k, uint32_t signature, uint32_t part_lba, uint32_t part_blocks,
			 uint32_t serial);
int fake_disk_control(struct fake_dev *d, const struct usb_setup *s, uint8_t *data, uint32_t *actual);
int fake_disk_bulk(struct fake_dev *d, uint8_t ep, uint8_t *buf, uint32_t len, uint32_t *actual);
void fake_disk_free(struct fake_dev *d);

#endif /* KPROF_TESTS_FAKE_HCI_H */
