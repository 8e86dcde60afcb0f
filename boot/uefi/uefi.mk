# boot/uefi/uefi.mk - build the kprof UEFI loader, $(BUILD)/boot/BOOTX64.EFI.
#
# Included by the top-level Makefile, which must set BUILD (the build
# directory) before the include; paths are relative to the repository root.
# Uses Debian's GNU-EFI 3.0.15 (package gnu-efi).  The tools and GNU-EFI
# paths below may be overridden; the kernel's CC/CFLAGS are not used.

# Defining rules here must not change the includer's default goal.
UEFI_SAVED_GOAL := $(.DEFAULT_GOAL)

UEFI_CC      ?= gcc
UEFI_LD      ?= ld
UEFI_OBJCOPY ?= objcopy
UEFI_EFI_INC ?= /usr/include/efi
UEFI_EFI_LIB ?= /usr/lib

UEFI_LOADER := $(BUILD)/boot/BOOTX64.EFI

UEFI_OBJDIR := $(BUILD)/boot/uefi
UEFI_C_SRCS := acpi.c cmdline.c cmdline_parse.c console.c elfload.c exitbs.c \
	       fatal.c fileio.c gop.c loader.c memory.c mmap_convert.c \
	       pagetables.c stick.c stick_disk.c
UEFI_S_SRCS := handoff.S
UEFI_COMMON := $(addprefix $(UEFI_OBJDIR)/,bootmap.o diskid.o fat.o fat_dir.o gpt.o stickext.o usbpath.o)
UEFI_KLIB   := $(UEFI_OBJDIR)/crc32.o
UEFI_C_OBJS := $(addprefix $(UEFI_OBJDIR)/,$(UEFI_C_SRCS:.c=.o))
UEFI_S_OBJS := $(addprefix $(UEFI_OBJDIR)/,$(UEFI_S_SRCS:.S=.o))
UEFI_OBJS   := $(UEFI_C_OBJS) $(UEFI_S_OBJS) $(UEFI_COMMON) $(UEFI_KLIB)
UEFI_SO     := $(UEFI_OBJDIR)/bootx64.so

UEFI_CPPFLAGS := -I. -I$(UEFI_EFI_INC) -I$(UEFI_EFI_INC)/x86_64 \
		 -DGNU_EFI_USE_MS_ABI -MMD -MP
UEFI_CFLAGS   := -std=c11 -O2 -g -Wall -Wextra -Werror \
		 -fpic -ffreestanding -fno-stack-protector -fno-stack-check \
		 -fshort-wchar -mno-red-zone -maccumulate-outgoing-args
UEFI_LDFLAGS  := -shared -Bsymbolic -nostdlib -znocombreloc \
		 -T $(UEFI_EFI_LIB)/elf_x86_64_efi.lds
UEFI_SECTIONS := -j .text -j .sdata -j .data -j .dynamic -j .dynsym \
		 -j .rel -j .rela -j .rel.* -j .rela.* -j .reloc

# The object's .d also names its source with an empty rule (as -MP does
# for the headers), so that a source moved or renamed under an object that
# keeps its name (crc32.o) does not stop a build folder made before.
UEFI_DEP_SRC = printf '%s:\n' $< >> $(@:.o=.d)

$(UEFI_C_OBJS): $(UEFI_OBJDIR)/%.o: boot/uefi/%.c
	@mkdir -p $(@D)
	$(quiet) EFICC $<
	$(Q)$(UEFI_CC) $(UEFI_CPPFLAGS) $(UEFI_CFLAGS) -c $< -o $@ && $(UEFI_DEP_SRC)

$(UEFI_COMMON): $(UEFI_OBJDIR)/%.o: boot/common/%.c
	@mkdir -p $(@D)
	$(quiet) EFICC $<
	$(Q)$(UEFI_CC) $(UEFI_CPPFLAGS) $(UEFI_CFLAGS) -c $< -o $@ && $(UEFI_DEP_SRC)

# The kernel's CRC-32 (the GPT header's), pure C with no kernel state.
$(UEFI_KLIB): $(UEFI_OBJDIR)/%.o: kernel/lib/codec/%.c
	@mkdir -p $(@D)
	$(quiet) EFICC $<
	$(Q)$(UEFI_CC) $(UEFI_CPPFLAGS) $(UEFI_CFLAGS) -c $< -o $@ && $(UEFI_DEP_SRC)

$(UEFI_S_OBJS): $(UEFI_OBJDIR)/%.o: boot/uefi/%.S
	@mkdir -p $(@D)
	$(quiet) EFIAS $<
	$(Q)$(UEFI_CC) $(UEFI_CPPFLAGS) $(UEFI_CFLAGS) -c $< -o $@ && $(UEFI_DEP_SRC)

$(UEFI_SO): $(UEFI_OBJS)
	$(quiet) EFILD $@
	$(Q)$(UEFI_LD) $(UEFI_LDFLAGS) $(UEFI_EFI_LIB)/crt0-efi-x86_64.o \
		$(UEFI_OBJS) -L$(UEFI_EFI_LIB) -lefi -lgnuefi -o $@

$(UEFI_LOADER): $(UEFI_SO)
	@mkdir -p $(@D)
	$(quiet) EFIAPP $@
	$(Q)$(UEFI_OBJCOPY) $(UEFI_SECTIONS) --target efi-app-x86_64 \
		--subsystem=10 $< $@

# Flags live here: rebuild when they change.
$(UEFI_OBJS): boot/uefi/uefi.mk

-include $(UEFI_OBJS:.o=.d)

.DEFAULT_GOAL := $(UEFI_SAVED_GOAL)
