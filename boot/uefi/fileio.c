/*
 * fileio.c - whole-file reads, and file sizes, from the volume the loader
 * was started from (EFI_SIMPLE_FILE_SYSTEM_PROTOCOL on
 * LoadedImage->DeviceHandle).
 */
#include "boot/uefi/ldr.h"

EFI_STATUS ldr_open_volume(struct ldr_ctx *ctx)
{
	EFI_SIMPLE_FILE_SYSTEM_PROTOCOL *fs;
	EFI_STATUS st;

	st = BS->HandleProtocol(ctx->loaded_image->DeviceHandle,
				&gEfiSimpleFileSystemProtocolGuid,
				(void **)&fs);
	if (EFI_ERROR(st)) {
		ldr_err(st, L"the boot device has no file system protocol");
		return st;
	}
	st = fs->OpenVolume(fs, &ctx->root);
	if (EFI_ERROR(st)) {
		ldr_err(st, L"cannot open the boot volume");
		ctx->root = NULL;
	}
	return st;
}

static EFI_STATUS ldr_file_size(EFI_FILE_HANDLE fh, const CHAR16 *path,
				UINT64 *size)
{
	EFI_FILE_INFO *info = NULL;
	UINTN info_size = 0;
	EFI_STATUS st;

	st = fh->GetInfo(fh, &gEfiFileInfoGuid, &info_size, NULL);
	if (st == EFI_BUFFER_TOO_SMALL) {
		st = BS->AllocatePool(EfiLoaderData, info_size, (void **)&info);
		if (!EFI_ERROR(st))
			st = fh->GetInfo(fh, &gEfiFileInfoGuid, &info_size,
					 info);
	}
	if (EFI_ERROR(st)) {
		ldr_err(st, L"cannot get the size of %s", path);
	} else if (info->Attribute & EFI_FILE_DIRECTORY) {
		st = EFI_UNSUPPORTED;
		ldr_err(st, L"%s is a directory", path);
	} else {
		*size = info->FileSize;
	}
	if (info)
		BS->FreePool(info);
	return st;
}

/*
 * The size of the file at path without reading it; EFI_NOT_FOUND silently
 * (the caller says what a missing file means), other failures print.
 */
EFI_STATUS ldr_file_stat(struct ldr_ctx *ctx, const CHAR16 *path, UINT64 *size)
{
	EFI_FILE_HANDLE fh;
	EFI_STATUS st;

	st = ctx->root->Open(ctx->root, &fh, (CHAR16 *)path, EFI_FILE_MODE_READ, 0);
	if (st == EFI_NOT_FOUND)
		return st;
	if (EFI_ERROR(st)) {
		ldr_err(st, L"cannot open %s", path);
		return st;
	}
	st = ldr_file_size(fh, path, size);
	fh->Close(fh);
	return st;
}

/*
 * Read path (absolute, backslashes) into a new pool buffer with one spare
 * NUL byte after the data.  EFI_NOT_FOUND is returned silently so callers
 * can treat a missing optional file as normal; other failures print.
 */
EFI_STATUS ldr_read_file(struct ldr_ctx *ctx, const CHAR16 *path,
			 UINTN max_size, void **buf, UINTN *size)
{
	EFI_FILE_HANDLE fh;
	UINT64 fsize = 0;
	UINTN done = 0, chunk;
	UINT8 *data = NULL;
	EFI_STATUS st;

	st = ctx->root->Open(ctx->root, &fh, (CHAR16 *)path,
			     EFI_FILE_MODE_READ, 0);
	if (st == EFI_NOT_FOUND)
		return st;
	if (EFI_ERROR(st)) {
		ldr_err(st, L"cannot open %s", path);
		return st;
	}
	st = ldr_file_size(fh, path, &fsize);
	if (EFI_ERROR(st))
		goto out;
	if (fsize > max_size) {
		st = EFI_BAD_BUFFER_SIZE;
		ldr_err(st, L"%s is %ld bytes, more than the %ld allowed",
			path, fsize, (UINT64)max_size);
		goto out;
	}
	st = BS->AllocatePool(EfiLoaderData, fsize + 1, (void **)&data);
	if (EFI_ERROR(st)) {
		ldr_err(st, L"no memory for %s (%ld bytes)", path, fsize);
		goto out;
	}
	while (done < fsize) {
		chunk = fsize - done;
		st = fh->Read(fh, &chunk, data + done);
		if (EFI_ERROR(st)) {
			ldr_err(st, L"cannot read %s", path);
			goto out;
		}
		if (chunk == 0) {
			st = EFI_END_OF_FILE;
			ldr_err(st, L"%s ends after %ld of %ld bytes", path,
				(UINT64)done, fsize);
			goto out;
		}
		done += chunk;
	}
	data[fsize] = 0;
	*buf = data;
	*size = fsize;
	data = NULL;
out:
	if (data)
		BS->FreePool(data);
	fh->Close(fh);
	return st;
}
