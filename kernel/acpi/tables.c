/*
 * tables.c - from the RSDP to the list of valid ACPI tables.
 *
 * acpi_scan() checks the RSDP (checksum, and the extended checksum from
 * revision 2), walks the XSDT (64-bit entries) or, when there is none or it
 * is broken, the RSDT (32-bit entries), and validates every table listed:
 * mappable, a sane length of at least a header, a zero checksum.  A bad
 * table is skipped with a warning naming it; the others still count.
 *
 * Physical memory is reached only through the caller's map function: the
 * header first (36 bytes, to learn the length), then the whole table.
 */
#include "kernel/acpi/acpi.h"

#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"

#include <stdarg.h>

#define RSDP_V1_LEN   20                  /* bytes the first checksum covers  */
#define RSDP_MAX_LEN  4096                /* sanity limit on rsdp.length      */
#define TABLE_MAX_LEN (16u * 1024 * 1024) /* sanity limit on a table's length */
#define WARN_MAX      160                 /* longest warning line             */

void acpi_warnf(acpi_warn_fn warn, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	if (!warn)
		return;
	va_start(ap, fmt);
	kvsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warn(msg);
}

uint8_t acpi_checksum(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	while (n--)
		sum = (uint8_t)(sum + *b++);
	return sum;
}

/* A signature fit to print: non-printable bytes become '?'. */
static void printable_sig(char out[5], const char sig[4])
{
	for (int i = 0; i < 4; i++)
		out[i] = (sig[i] >= 0x20 && sig[i] < 0x7F) ? sig[i] : '?';
	out[4] = '\0';
}

/*
 * Map the table at phys whole and check it.  Returns it, or NULL with the
 * reason in why.  name gets "table SIG" (or just "table" when not even
 * the header could be mapped), for the caller's warning.
 */
static const struct acpi_sdt_header *load_table(uint64_t phys, acpi_map_fn map, char *name, size_t name_size,
						char *why, size_t why_size)
{
	const struct acpi_sdt_header *h;
	char sig[5];
	uint32_t len;

	ksnprintf(name, name_size, "table");
	if (phys == 0) {
		ksnprintf(why, why_size, "null address");
		return NULL;
	}
	h = map(phys, sizeof(*h));
	if (!h) {
		ksnprintf(why, why_size, "header cannot be mapped");
		return NULL;
	}
	printable_sig(sig, h->signature);
	ksnprintf(name, name_size, "table %s", sig);
	len = h->length;
	if (len < sizeof(*h)) {
		ksnprintf(why, why_size, "length %u is shorter than a table header", len);
		return NULL;
	}
	if (len > TABLE_MAX_LEN || phys > UINT64_MAX - len) {
		ksnprintf(why, why_size, "length %u is not believable", len);
		return NULL;
	}
	h = map(phys, len);
	if (!h) {
		ksnprintf(why, why_size, "%u bytes cannot be mapped", len);
		return NULL;
	}
	if (acpi_checksum(h, len) != 0) {
		ksnprintf(why, why_size, "checksum 0x%02x is wrong (sum must be 0)", h->checksum);
		return NULL;
	}
	return h;
}

/* The XSDT or RSDT at phys, checked, with its signature; NULL with a warning. */
static const struct acpi_sdt_header *load_root(uint64_t phys, const char *sig, acpi_map_fn map, acpi_warn_fn warn,
					       const char *fallback)
{
	const struct acpi_sdt_header *h;
	char name[16], why[64], found[5];

	h = load_table(phys, map, name, sizeof(name), why, sizeof(why));
	if (!h) {
		acpi_warnf(warn, "acpi: %s at 0x%llx: %s, %s", sig, (unsigned long long)phys, why, fallback);
		return NULL;
	}
	if (memcmp(h->signature, sig, 4) != 0) {
		printable_sig(found, h->signature);
		acpi_warnf(warn, "acpi: %s at 0x%llx: signature is %s, %s", sig, (unsigned long long)phys, found, fallback);
		return NULL;
	}
	return h;
}

/* Validate the RSDP; on success *xsdt_ok says whether its XSDT address may be used. */
static int check_rsdp(uint64_t rsdp_phys, acpi_map_fn map, acpi_warn_fn warn, struct acpi_tables *out,
		      const struct acpi_rsdp **rsdp_out, bool *xsdt_ok)
{
	const struct acpi_rsdp *r;
	uint32_t len;

	*xsdt_ok = false;
	r = map(rsdp_phys, RSDP_V1_LEN);
	if (!r) {
		acpi_warnf(warn, "acpi: RSDP at 0x%llx cannot be mapped", (unsigned long long)rsdp_phys);
		return -1;
	}
	if (memcmp(r->signature, "RSD PTR ", 8) != 0) {
		acpi_warnf(warn, "acpi: RSDP at 0x%llx: no \"RSD PTR \" signature", (unsigned long long)rsdp_phys);
		return -1;
	}
	if (acpi_checksum(r, RSDP_V1_LEN) != 0) {
		acpi_warnf(warn, "acpi: RSDP at 0x%llx: checksum 0x%02x is wrong (sum must be 0)",
		      (unsigned long long)rsdp_phys, r->checksum);
		return -1;
	}
	out->revision = r->revision;
	memcpy(out->oem_id, r->oem_id, 6);
	out->oem_id[6] = '\0';
	*rsdp_out = r;
	if (r->revision < 2)
		return 0;

	/* ACPI 2.0+: the rest of the structure has its own checksum.  If it is
	 * broken, the ACPI 1.0 part (and its RSDT) is still good. */
	r = map(rsdp_phys, sizeof(*r));
	if (!r) {
		acpi_warnf(warn, "acpi: RSDP at 0x%llx: revision %u part cannot be mapped, using the RSDT",
		      (unsigned long long)rsdp_phys, out->revision);
		return 0;
	}
	len = r->length;
	if (len < sizeof(*r) || len > RSDP_MAX_LEN) {
		acpi_warnf(warn, "acpi: RSDP at 0x%llx: length %u is not believable, using the RSDT",
		      (unsigned long long)rsdp_phys, len);
		return 0;
	}
	r = map(rsdp_phys, len);
	if (!r) {
		acpi_warnf(warn, "acpi: RSDP at 0x%llx: %u bytes cannot be mapped, using the RSDT",
		      (unsigned long long)rsdp_phys, len);
		return 0;
	}
	if (acpi_checksum(r, len) != 0) {
		acpi_warnf(warn, "acpi: RSDP at 0x%llx: extended checksum 0x%02x is wrong (sum must be 0), using the RSDT",
		      (unsigned long long)rsdp_phys, r->extended_checksum);
		return 0;
	}
	*rsdp_out = r;
	*xsdt_ok = true;
	return 0;
}

static void add_table(struct acpi_tables *out, uint64_t phys, const struct acpi_sdt_header *h, acpi_warn_fn warn)
{
	struct acpi_table_ref *ref;
	char sig[5];

	if (out->count >= ACPI_MAX_TABLES) {
		printable_sig(sig, h->signature);
		acpi_warnf(warn, "acpi: table %s at 0x%llx: more than %u tables, dropped", sig, (unsigned long long)phys,
		      (unsigned)ACPI_MAX_TABLES);
		out->dropped++;
		return;
	}
	ref = &out->table[out->count++];
	memcpy(ref->signature, h->signature, 4);
	ref->signature[4] = '\0';
	ref->phys = phys;
	ref->length = h->length;
	ref->va = h;
}

int acpi_scan(uint64_t rsdp_phys, acpi_map_fn map, acpi_warn_fn warn, struct acpi_tables *out)
{
	const struct acpi_sdt_header *root = NULL, *h;
	const struct acpi_rsdp *rsdp = NULL;
	const uint8_t *entries;
	uint32_t entry_size, n, body;
	bool xsdt_ok;
	char name[16], why[64];

	memset(out, 0, sizeof(*out));
	out->rsdp_phys = rsdp_phys;
	if (check_rsdp(rsdp_phys, map, warn, out, &rsdp, &xsdt_ok) < 0)
		return -1;

	if (xsdt_ok) {
		if (rsdp->xsdt_address == 0)
			acpi_warnf(warn, "acpi: RSDP revision %u has no XSDT, using the RSDT", out->revision);
		else
			root = load_root(rsdp->xsdt_address, "XSDT", map, warn, "using the RSDT");
		out->xsdt = root != NULL;
	}
	if (!root) {
		if (rsdp->rsdt_address == 0) {
			acpi_warnf(warn, "acpi: no usable root table (RSDT address is 0)");
			return -1;
		}
		root = load_root(rsdp->rsdt_address, "RSDT", map, warn, "no usable root table");
		if (!root)
			return -1;
	}

	entry_size = out->xsdt ? 8 : 4;
	body = root->length - (uint32_t)sizeof(*root);
	n = body / entry_size;
	if (body % entry_size)
		acpi_warnf(warn, "acpi: %s length %u is not a header and whole %u-byte entries, last %u bytes ignored",
		      out->xsdt ? "XSDT" : "RSDT", root->length, entry_size, body % entry_size);
	entries = (const uint8_t *)(root + 1);

	for (uint32_t i = 0; i < n; i++) {
		uint64_t phys = 0;

		if (out->xsdt) {
			memcpy(&phys, entries + (size_t)i * 8, 8);
		} else {
			uint32_t p32;
			memcpy(&p32, entries + (size_t)i * 4, 4);
			phys = p32;
		}
		h = load_table(phys, map, name, sizeof(name), why, sizeof(why));
		if (!h) {
			acpi_warnf(warn, "acpi: %s at 0x%llx: %s, skipped", name, (unsigned long long)phys, why);
			out->skipped++;
			continue;
		}
		add_table(out, phys, h, warn);
	}
	return 0;
}

const struct acpi_table_ref *acpi_find(const struct acpi_tables *t, const char *signature, unsigned index)
{
	if (!t || !signature || strlen(signature) != 4)
		return NULL;
	for (uint32_t i = 0; i < t->count && i < ACPI_MAX_TABLES; i++) {
		if (memcmp(t->table[i].signature, signature, 4) != 0)
			continue;
		if (index-- == 0)
			return &t->table[i];
	}
	return NULL;
}
