/*
 * pdb_build.c - kp_pdb_write() (pdb.h): the kernel's PDB, made by LLVM's
 * assembler and linker from a stand-in PE image.
 *
 * In a temporary directory, where the tools run (so that every path they
 * record is the same relative name, whatever the directory):
 *
 *   kernel.s    one section, .text, that starts at RVA 0x1000 (lld-link
 *               puts the first section right after the header page) and
 *               reaches to two pages before the image's end: `.org` moves
 *               to each public's RVA - 0x1000 and a global label marks
 *               it, so the public's section:offset is the kernel
 *               function's offset from the image base.  The last page is
 *               left for the .rdata section lld-link adds (the debug
 *               directory and the RSDS record), so SizeOfImage comes out
 *               equal to the kernel's image size.
 *   kernel.obj  `llvm-mc -filetype=obj -triple=x86_64-pc-windows-msvc`
 *   <ELF name>  `lld-link /dll /noentry /fixed /base:<image base> /debug
 *               /pdb:<name>.pdb /pdbaltpath:%_PDB% /pdbsourcepath:/kprof
 *               /Brepro`: a DLL without entry point or exports, never
 *               relocated; /Brepro makes the TimeDateStamp and the PDB
 *               GUID hashes of the contents and /pdbsourcepath a fixed
 *               directory in the PDB's records, so the same kernel always
 *               gives the same PDB identity; /pdbaltpath:%_PDB% puts the
 *               PDB's bare file name into the RSDS record, the name WPA
 *               looks for on its symbol path.
 *
 * The PE's CheckSum is then written (pe_checksum.c), its identity read
 * back (pe_ident.c), the PDB copied to its place and the PE beside it as
 * <name>.dll (the image the PDB was linked with, which a PE tool can hold
 * against the PDB and the ETL), and the directory removed.  The tools are looked up on PATH (Debian: llvm-mc in
 * package llvm, lld-link in package lld; tools/deps.sh installs both).
 */
#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np (glibc 2.29) */
#include "tools/kprof/export/etl/pdb.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/kprof/export/etl/pdb_symbols.h"
#include "tools/kprof/util/outfile.h"

#define PE_FIRST_SECTION_RVA 0x1000u
#define PE_PAGE 0x1000u

extern char **environ;

/* kernel.s: the publics as labels at their offsets in .text. */
static bool write_assembly(const char *path, const struct kp_pdb_symbols *s)
{
	FILE *f = fopen(path, "w");
	uint32_t end = s->image_size >= 3 * PE_PAGE ? s->image_size - 2 * PE_PAGE : 0;

	if (!f)
		return false;
	fprintf(f, "# kprof: the kernel's functions at their offsets from 0x%llx\n\t.section .text,\"xr\"\n",
		(unsigned long long)s->image_base);
	for (size_t i = 0; i < s->n; i++) {
		if (!i || s->pub[i].rva != s->pub[i - 1].rva)
			fprintf(f, "\t.org 0x%x\n", s->pub[i].rva - PE_FIRST_SECTION_RVA);
		fprintf(f, "\t.globl \"%s\"\n\"%s\":\n", s->pub[i].name, s->pub[i].name);
	}
	if (s->pub[s->n - 1].rva - PE_FIRST_SECTION_RVA >= end)
		end = s->pub[s->n - 1].rva - PE_FIRST_SECTION_RVA + 1;
	fprintf(f, "\t.org 0x%x\n", end);
	return fclose(f) == 0;
}

/* Run argv[0] (from PATH) in directory dir, with stdout and stderr
 * appended to dir/tools.log (log); true on exit 0, else why in why[]. */
static bool run_tool(char *const argv[], const char *dir, const char *log, char *why, size_t whylen)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status, err;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addchdir_np(&fa, dir);
	posix_spawn_file_actions_addopen(&fa, 1, "tools.log", O_WRONLY | O_CREAT | O_APPEND, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err) {
		snprintf(why, whylen, "%s: %s%s", argv[0], strerror(err),
			 err == ENOENT ? " (not on PATH; Debian packages llvm and lld, see tools/deps.sh)" : "");
		return false;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			snprintf(why, whylen, "%s: waitpid: %s", argv[0], strerror(errno));
			return false;
		}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return true;
	char line[200] = "";
	FILE *f = fopen(log, "r");
	while (f && fgets(line, sizeof(line), f)) /* its first line says why */
		if (line[0] != '\n')
			break;
	if (f)
		fclose(f);
	line[strcspn(line, "\n")] = 0;
	snprintf(why, whylen, "%s failed (%s %d): %s", argv[0], WIFEXITED(status) ? "exit" : "signal",
		 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), line);
	return false;
}

/* dir/name into out; false if it does not fit. */
static bool path_in(char *out, size_t size, const char *dir, const char *name)
{
	int n = snprintf(out, size, "%s/%s", dir, name);
	return n >= 0 && (size_t)n < size;
}

/* Copy the PDB or the image out of the temporary directory. */
static bool copy_file(const char *from, const char *to, char *why, size_t whylen)
{
	FILE *in = fopen(from, "rb"), *out;
	char buf[65536];
	size_t n;
	bool ok = true;

	if (!in) {
		snprintf(why, whylen, "lld-link wrote no %s", from);
		return false;
	}
	if (!(out = kp_out_open(to))) {
		fclose(in);
		snprintf(why, whylen, "cannot create %s", to);
		return false;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)))
		ok &= fwrite(buf, 1, n, out) == n;
	ok &= !ferror(in);
	fclose(in);
	if (kp_out_close(out, to) || !ok) {
		snprintf(why, whylen, "cannot write %s", to);
		return false;
	}
	return true;
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			if (path_in(path, sizeof(path), dir, e->d_name))
				unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(dir);
}

static bool link_pdb(const char *tmp, const char *elf_path, const char *pdb_path, const char *image_path,
		     const struct kp_pdb_symbols *s, struct kp_pdb_identity *id, char *why, size_t whylen)
{
	char asm_path[4096], log[4096], out[4096], pdb[4096], base[64], pdbarg[KP_PDB_NAME_MAX + 8];
	char outarg[KP_PDB_NAME_MAX + 8];
	const char *name = strrchr(elf_path, '/') ? strrchr(elf_path, '/') + 1 : elf_path;
	const char *dot = strrchr(name, '.');
	int stem = dot && dot != name ? (int)(dot - name) : (int)strlen(name);

	if (strlen(name) + 5 >= KP_PDB_NAME_MAX || !path_in(asm_path, sizeof(asm_path), tmp, "kernel.s") ||
	    !path_in(log, sizeof(log), tmp, "tools.log") || !path_in(out, sizeof(out), tmp, name)) {
		snprintf(why, whylen, "a path is too long (%s)", elf_path);
		return false;
	}
	snprintf(pdbarg, sizeof(pdbarg), "/pdb:%.*s.pdb", stem, name);
	if (!path_in(pdb, sizeof(pdb), tmp, pdbarg + 5)) {
		snprintf(why, whylen, "a path is too long (%s)", tmp);
		return false;
	}
	snprintf(outarg, sizeof(outarg), "/out:%s", name);
	snprintf(base, sizeof(base), "/base:0x%llx", (unsigned long long)s->image_base);
	char *mc[] = { "llvm-mc", "-filetype=obj", "-triple=x86_64-pc-windows-msvc", "kernel.s", "-o", "kernel.obj",
		       NULL };
	char *ld[] = { "lld-link", "/nologo", "/dll", "/noentry", "/fixed", "/machine:x64", "/nodefaultlib",
		       base, "/debug", pdbarg, "/pdbaltpath:%_PDB%", "/pdbsourcepath:/kprof", "/Brepro",
		       outarg, "kernel.obj", NULL };

	if (!write_assembly(asm_path, s)) {
		snprintf(why, whylen, "cannot write %s: %s", asm_path, strerror(errno));
		return false;
	}
	if (!run_tool(mc, tmp, log, why, whylen) || !run_tool(ld, tmp, log, why, whylen))
		return false;
	if (!kp_pe_checksum(out, why, whylen) || !kp_pe_identity(out, id, why, whylen))
		return false;
	snprintf(id->image_name, sizeof(id->image_name), "%s", name);
	return copy_file(pdb, pdb_path, why, whylen) && copy_file(out, image_path, why, whylen);
}

bool kp_pdb_write(const char *elf_path, const char *pdb_path, struct kp_pdb_identity *id, char *why,
		  size_t whylen)
{
	struct kp_pdb_symbols s;
	const char *tmpdir = getenv("TMPDIR");
	const char *dot = strrchr(pdb_path, '.');
	char tmp[4096], image[4096];
	bool ok;

	if (!dot || strcmp(dot, ".pdb") || strlen(pdb_path) >= sizeof(image)) {
		snprintf(why, whylen, "%s: a PDB's name ends in .pdb", pdb_path);
		return false;
	}
	snprintf(image, sizeof(image), "%.*s.dll", (int)(dot - pdb_path), pdb_path);
	if (!kp_pdb_symbols_read(elf_path, &s, why, whylen))
		return false;
	snprintf(tmp, sizeof(tmp), "%s/kprof-pdb-XXXXXX", tmpdir && tmpdir[0] ? tmpdir : "/tmp");
	if (!mkdtemp(tmp)) {
		snprintf(why, whylen, "cannot make a temporary directory %s: %s", tmp, strerror(errno));
		kp_pdb_symbols_free(&s);
		return false;
	}
	ok = link_pdb(tmp, elf_path, pdb_path, image, &s, id, why, whylen);
	if (ok && id->image_size != s.image_size)
		fprintf(stderr, "kprof: warning: the PDB's image is 0x%x bytes, the kernel's 0x%x (a function in its "
				"last page)\n", id->image_size, s.image_size);
	if (!ok) {
		unlink(pdb_path);
		unlink(image);
	}
	remove_dir(tmp);
	kp_pdb_symbols_free(&s);
	return ok;
}
