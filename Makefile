# SPDX-License-Identifier: MIT
# Makefile - build, boot and test testbed.
#
#   make / make iso   build/kernel.elf and build/testbed.iso (BIOS + UEFI hybrid)
#   make run          boot the ISO in QEMU, serial console on this terminal
#   make test         host unit tests + the QEMU test matrix; "N passed, N failed"
#   make debug        QEMU paused with a gdb stub, gdb attached with symbols
#   make bench        boot with bench=all, print the "bench:" lines, keep them in build/bench.json
#   make bench-compare tests/bench-baseline.json's ratios again: -icount ones >5% worse fail
#   make plot         boot the story with storm.trace=on; PNG plots in build/plots/
#   make kernel-alone build/kernel-alone.elf: the kernel without lab/ and tests/
#   make qr-check     the QR encoder's symbols decoded by zbarimg
#   make mutants      apply each bug of tests/mutants/, check a test kills it
#   make fuzz         run every libFuzzer target for FUZZ_SECONDS (default 60)
#   make test-clang   build the kernel with clang (build/clang/) and boot it once
#   make lab-start LAB=name  a branch lab/NAME with the lab's starting point (docs/labs/)
#   make grade LAB=name      the lab's grader: points per test and the score
#   make labs-check   every lab: main gets every point, its starting point none
#   make deps         install the Debian packages the others need
#
# Variables: TOPO (tests/topologies/<name>.topo), FIRMWARE=bios|uefi,
# ACCEL=tcg|kvm, ARGS="kernel command line", CROSS_COMPILE=, CC=,
# C=1|2 (sparse, as Linux's kbuild runs it), CHECK=.

TOPO     ?=
FIRMWARE ?=
ACCEL    ?= tcg
ARGS     ?=

# Toolchain, as Linux does it: CROSS_COMPILE prefixes the binutils and gcc;
# CC=clang replaces the compiler alone (told the target when cross). On a
# host that is not x86-64 (an arm64 laptop), Debian's x86-64 cross tools
# are the default: make deps installs them.
HOST_ARCH ?= $(shell uname -m)
ifeq ($(origin CROSS_COMPILE),undefined)
ifneq ($(HOST_ARCH),x86_64)
CROSS_COMPILE := x86_64-linux-gnu-
endif
endif
ifeq ($(origin CC),default)
CC := $(CROSS_COMPILE)gcc
endif
CLANG_TARGET := $(if $(findstring clang,$(CC)),$(if $(CROSS_COMPILE),\
	--target=$(patsubst %-,%,$(notdir $(CROSS_COMPILE)))))
LD      := $(CROSS_COMPILE)ld
NM      := $(CROSS_COMPILE)nm
OBJCOPY := $(CROSS_COMPILE)objcopy
NASM    ?= nasm
HOSTCC  ?= cc
PYTHON  ?= python3
AWK     ?= awk

B := build

# Quiet by default, kbuild style: "  CC  kernel/main.c". make V=1 shows commands.
ifeq ($(V),1)
Q :=
quiet = @true
else
Q := @
quiet = @printf '  %-7s %s\n'
endif
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

CFLAGS := -std=gnu11 -O2 -g \
	-ffreestanding -mno-red-zone -mgeneral-regs-only -fno-pic -fno-pie \
	-mcmodel=kernel -fno-stack-protector -fno-common -fno-strict-aliasing \
	-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
	-fno-asynchronous-unwind-tables \
	-Wall -Wextra -Werror -Wno-unused-parameter \
	-iquote include -MMD -MP -DTESTBED_VERSION='"$(VERSION)"' $(CLANG_TARGET)
NASMFLAGS := -f elf64 -g -F dwarf -Werror
LDFLAGS := -nostdlib -static -z max-page-size=0x1000 -z noexecstack \
	$(shell $(LD) --help 2>/dev/null | grep -q no-warn-rwx-segments && echo --no-warn-rwx-segments)

# The kernel proper (kernel/, drivers/, boot/) sees only include/; the lab
# (lab/: the story, the storm, the shell, the benchmarks) and the in-kernel
# tests see lab/'s headers too. The kernel reaches the lab through
# include/lab.h alone, and links without it (kernel-alone).
CORE_C     := $(wildcard kernel/*.c drivers/*.c)
CORE_ASM   := $(wildcard boot/*.asm kernel/*.asm)
CORE_OBJ   := $(CORE_C:%.c=$(B)/%.o) $(CORE_ASM:%.asm=$(B)/%.asm.o)
LAB_C      := $(wildcard lab/*.c tests/kernel/*.c)
LAB_ASM    := $(wildcard lab/*.asm tests/kernel/*.asm)
LAB_OBJ    := $(LAB_C:%.c=$(B)/%.o) $(LAB_ASM:%.asm=$(B)/%.asm.o)
KERNEL_OBJ := $(CORE_OBJ) $(LAB_OBJ)
$(LAB_OBJ) $(LAB_C:%.c=$(B)/%.o.check): private CFLAGS += -iquote lab

# Sparse, Linux's checker, as kbuild runs it: make C=1 checks each C file
# of the kernel, the lab and the in-kernel tests that is compiled, before
# compiling it; make C=2 checks every one of them, compiled or not. Its
# flags are the compiler's that sparse reads (sparse knows no -iquote: the
# folders become -I), and -Wsparse-error makes any warning fail the build.
# __CHECKER__, which sparse defines, turns on include/types.h's
# annotations: __iomem, __rcu, __acquires() and the others.
CHECK ?= sparse
CHECKFLAGS = $(filter -std=% -ffreestanding -I% -D%,$(subst -iquote ,-I,$(CFLAGS))) \
	-D__x86_64__ -m64 -Wsparse-error
define check_c
	$(quiet) CHECK $<
	$(Q)$(CHECK) $(CHECKFLAGS) $<
endef

# Modules that also build for the host, and their unit tests: the pure
# ones, and the virtio drivers, whose registers and DMA memory the host
# tests give them through a fake PCI function (tests/host/virtio_fake.c).
# One name a line: a new module is one more line. A name that is no file
# fails the build (no wildcard to drop it quietly).
HOST_MODULES := \
	kernel/acpi_parse.c \
	kernel/bootmem.c \
	kernel/cmdline.c \
	kernel/cpumask.c \
	kernel/dma_debug.c \
	kernel/format.c \
	kernel/iommu.c \
	kernel/keyseq.c \
	kernel/ksyms.c \
	kernel/ktest.c \
	kernel/logring.c \
	kernel/logview.c \
	kernel/mb2.c \
	kernel/memmap.c \
	kernel/numa.c \
	kernel/page_alloc.c \
	kernel/qr.c \
	kernel/slab.c \
	kernel/swiotlb_pool.c \
	drivers/usb_kbd.c \
	drivers/virtio.c \
	drivers/virtio_blk.c \
	drivers/virtqueue.c \
	drivers/xhci.c
HOST_TESTS   := $(wildcard tests/host/*.c) tests/kernel/ktest_test.c
HOST_CFLAGS  := -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter \
	-iquote include -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -DHOST_TEST

.PHONY: all iso run debug bench bench-compare plot test host-test qr-check deps plot-deps clean kernel-alone mutants \
	lab-start grade labs-check \
	fuzz fuzz-replay fuzz-deps test-clang check-rcu check-rcu-3 sim sim-plot
all: iso
iso: $(B)/testbed.iso

# --- kernel -----------------------------------------------------------------

$(B)/%.o: %.c $(if $(filter 1 2,$(C)),| deps) $(if $(filter 2,$(C)),$(B)/%.o.check)
	@mkdir -p $(dir $@)
	$(if $(filter 1,$(C)),$(check_c))
	$(quiet) CC $<
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# make C=2: a check per object, no file made, so it runs whether the object
# is remade or not (order-only above: a check never makes one out of date).
# A static pattern rule: its targets are named, so make does not take them
# for intermediate files, which it would skip for an object up to date.
$(patsubst %.c,$(B)/%.o.check,$(CORE_C) $(LAB_C)): $(B)/%.o.check: %.c FORCE
	$(check_c)
FORCE:                  # no file, no recipe: always remade, as kbuild's FORCE

$(B)/%.asm.o: %.asm | deps
	@mkdir -p $(dir $@)
	$(quiet) NASM $<
	$(Q)$(NASM) $(NASMFLAGS) $< -o $@

# The symbol table for backtraces (see include/ksyms.h): link once with an
# empty table, list the text symbols, link again with them. Text comes
# first in the image, so its addresses do not move between the links; the
# last step checks that.
$(B)/ksyms0.c: scripts/ksyms.awk
	@mkdir -p $(B)
	$(Q)$(AWK) -f scripts/ksyms.awk < /dev/null > $@
$(B)/kernel.pass1.elf: $(KERNEL_OBJ) $(B)/ksyms0.o linker.ld
	$(quiet) LD $@
	$(Q)$(LD) $(LDFLAGS) -T linker.ld -o $@ $(KERNEL_OBJ) $(B)/ksyms0.o
$(B)/ksyms1.c: $(B)/kernel.pass1.elf scripts/ksyms.awk
	$(quiet) KSYMS $@
	$(Q)$(NM) -n $< | $(AWK) -f scripts/ksyms.awk > $@
$(B)/kernel.elf: $(KERNEL_OBJ) $(B)/ksyms1.o linker.ld
	$(quiet) LD $@
	$(Q)$(LD) $(LDFLAGS) -T linker.ld -o $@ $(KERNEL_OBJ) $(B)/ksyms1.o
	$(Q)$(NM) -n $@ | $(AWK) -f scripts/ksyms.awk | cmp -s - $(B)/ksyms1.c || \
		{ echo "ksyms: text addresses moved between links" >&2; rm -f $@; exit 1; }
$(B)/ksyms%.o: $(B)/ksyms%.c
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# The kernel without the lab and the in-kernel tests: it must link (main.c
# has weak stand-ins for include/lab.h's two entries). make test builds it.
$(B)/kernel-alone.elf: $(CORE_OBJ) $(B)/ksyms0.o linker.ld
	$(quiet) LD $@
	$(Q)$(LD) $(LDFLAGS) -T linker.ld -o $@ $(CORE_OBJ) $(B)/ksyms0.o
kernel-alone: $(B)/kernel-alone.elf

# --- ISO: GRUB for BIOS (El Torito + MBR) and UEFI (EFI system partition) ---
#
# grub-mkrescue makes GRUB's half once: an ISO holding only grub.cfg, whose
# files (GRUB's modules, its El Torito image, efi.img) are taken out into
# $(B)/grub/tree and whose boot options xorriso reads back into
# $(B)/grub/mkisofs ("-report_el_torito as_mkisofs": what Debian's
# RepackBootableISO page does to rebuild an ISO with its boot equipment).
# Each new kernel is then added by one xorriso call with those options:
# 0.1 s of CPU instead of grub-mkrescue's 0.8 (the mutants rebuild the
# ISO some 150 times). The options are read, not written here, so they
# stay whatever this host's grub-mkrescue does. GRUB's translations, fonts
# and themes are left out: the menu is plain text on BIOS and UEFI alike,
# and each ISO is 10 MB instead of 21 (xorriso writes it for every kernel).

$(B)/grub/mkisofs: iso/grub.cfg | deps
	$(quiet) GRUB $(B)/grub
	$(Q)rm -rf $(B)/grub
	$(Q)mkdir -p $(B)/grub/in/boot/grub
	$(Q)cp iso/grub.cfg $(B)/grub/in/boot/grub/grub.cfg
	$(Q)grub-mkrescue --locales= --fonts= --themes= -o $(B)/grub/grub.iso $(B)/grub/in > $(B)/grub/grub-mkrescue.log 2>&1 || \
		{ cat $(B)/grub/grub-mkrescue.log; exit 1; }
	$(Q)xorriso -osirrox on -indev $(B)/grub/grub.iso -extract / $(B)/grub/tree \
		> $(B)/grub/extract.log 2>&1 || { cat $(B)/grub/extract.log; exit 1; }
	$(Q)chmod -R u+w $(B)/grub/tree
	$(Q)rm -f $(B)/grub/tree/boot.catalog      # xorriso writes it anew (-c)
	$(Q)xorriso -indev $(B)/grub/grub.iso -report_el_torito as_mkisofs 2> /dev/null | \
		grep -v '^--modification-date' > $@.tmp
	$(Q)grep -q -- '^-b ' $@.tmp && grep -q -- '^-e ' $@.tmp || \
		{ echo "iso: no BIOS and EFI boot images in $(B)/grub/grub.iso" >&2; exit 1; }
	$(Q)mv $@.tmp $@

$(B)/testbed.iso: $(B)/kernel.elf $(B)/grub/mkisofs | deps
	$(quiet) ISO $@
	$(Q)$(OBJCOPY) --strip-debug $(B)/kernel.elf $(B)/grub/kernel.elf
	$(Q)eval xorriso -as mkisofs -quiet $$(cat $(B)/grub/mkisofs) -o $@ \
		-graft-points $(B)/grub/tree /boot/kernel.elf=$(B)/grub/kernel.elf \
		> $(B)/grub/xorriso.log 2>&1 || { cat $(B)/grub/xorriso.log; exit 1; }

# --- running ----------------------------------------------------------------

# make run (and make debug) boot story-icount when no TOPO is given: the story
# machine under QEMU's -icount, where the story's verdicts are the same on
# every boot (docs/story.md); make bench boots story, under plain TCG.
RUNFLAGS = --topo $(or $(TOPO),story-icount) --accel $(ACCEL) $(if $(FIRMWARE),--firmware $(FIRMWARE)) --args "$(ARGS)"

run: $(B)/testbed.iso | deps
	$(PYTHON) tests/run.py run $(RUNFLAGS)

bench: $(B)/testbed.iso | deps
	$(PYTHON) scripts/bench.py run --topo $(or $(TOPO),story) --accel $(ACCEL) $(if $(FIRMWARE),--firmware $(FIRMWARE)) \
		--args "$(ARGS)" --json $(B)/bench.json

bench-compare: $(B)/testbed.iso | deps
	$(PYTHON) scripts/bench.py compare --accel $(ACCEL) --json $(B)/bench-compare.json

plot: $(B)/testbed.iso | deps plot-deps
	$(PYTHON) scripts/plot.py

debug: $(B)/testbed.iso | deps
	$(PYTHON) tests/run.py run --debug $(RUNFLAGS)

# --- tests ------------------------------------------------------------------

# One object per file (its .d names the headers it read): a change to one
# module recompiles that module, as a mutant's does, then the link.
HOST_OBJ := $(patsubst %.c,$(B)/host/obj/%.o,$(HOST_MODULES) $(HOST_TESTS))
$(B)/host/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(quiet) HOSTCC $<
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -MMD -MP -c $< -o $@
$(B)/host/unit: $(HOST_OBJ)
	@mkdir -p $(dir $@)
	$(quiet) HOSTLD $@
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(HOST_OBJ) -o $@

host-test: $(B)/host/unit
	$(B)/host/unit

# kernel/qr.c on the host, writing PNGs; tests/qr/qr_check.py decodes them
# with zbarimg (an independent decoder) and compares.
$(B)/host/qr_encode: kernel/qr.c tests/qr/qr_encode.c include/qr.h include/types.h
	@mkdir -p $(dir $@)
	$(quiet) HOSTCC $@
	$(Q)$(HOSTCC) $(HOST_CFLAGS) kernel/qr.c tests/qr/qr_encode.c -o $@

qr-check: $(B)/host/qr_encode | deps
	$(PYTHON) tests/qr/qr_check.py $(B)/host/qr_encode

# make check-rcu: every interleaving of a small world on kernel/rcu.c (tests/check/rcu_check.c).
RCU_CHECK_SRC := kernel/rcu.c kernel/softirq.c tests/check/rcu_check.c
RCU_WORLD     ?= 2 2 2
$(B)/check/rcu_check: $(RCU_CHECK_SRC) $(wildcard include/*.h)
	@mkdir -p $(dir $@)
	$(quiet) HOSTCC $@
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(RCU_CHECK_SRC) -o $@

check-rcu: $(B)/check/rcu_check
	$(B)/check/rcu_check $(RCU_WORLD)

# The longer search: three CPUs (up to 500,000 states a mode: a minute or two).
check-rcu-3: $(B)/check/rcu_check
	$(B)/check/rcu_check 3 2 2

# make sim: kernel/rcu.c on a simulated machine of up to 4096 CPUs (tests/sim/rcu_sim.c).
RCU_SIM_SRC := kernel/rcu.c kernel/softirq.c tests/sim/rcu_sim.c
SIM_ARGS    ?= all
$(B)/sim/rcu_sim: $(RCU_SIM_SRC) $(wildcard include/*.h)
	@mkdir -p $(dir $@)
	$(quiet) HOSTCC $@
	$(Q)$(HOSTCC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter \
		-iquote include -DHOST_TEST -DMAX_CPUS=4096 $(RCU_SIM_SRC) -o $@

sim: $(B)/sim/rcu_sim
	$(B)/sim/rcu_sim $(SIM_ARGS)

sim-plot: $(B)/sim/rcu_sim | plot-deps
	$(PYTHON) scripts/sim_plot.py

# --- fuzzing (the variables: make test needs them) -----------------------------
#
# One libFuzzer target per parser or state machine that takes input from
# outside (tests/fuzz/, docs/testing.md). make fuzz runs each for
# FUZZ_SECONDS with clang; make test replays the saved corpora
# (tests/fuzz/corpus/TARGET/) with gcc and the same sanitizers.

FUZZ_TARGETS := mb2 memmap acpi_root madt srat slit mcfg hpet fadt dmar ivrs spcr dsdt_s5 cmdline format \
	swiotlb_slots virtqueue virtio_blk numa_build usb_kbd xhci_events ioremap_range
ACPI_TABLES  := madt srat slit mcfg hpet fadt dmar ivrs spcr
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_LIB     := $(filter-out kernel/ktest.c kernel/ksyms.c drivers/virtio.c drivers/virtio_blk.c \
	drivers/xhci.c,\
	$(HOST_MODULES)) tests/host/host.c
FUZZ_CFLAGS  := -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter \
	-iquote include -iquote tests/host -DHOST_TEST -fno-omit-frame-pointer
fuzz_src = $(if $(filter $(ACPI_TABLES),$1),tests/fuzz/acpi_tables.c,tests/fuzz/$1.c)
# (upper case in make itself: a $$(shell tr) per table cost every make 0.1 s)
upper    = $(if $2,$(call upper,$(subst $(firstword $2),$(word 2,$2),$1),$(wordlist 3,$(words $2),$2)),$1)
UPPER    := a A b B c C d D e E f F g G h H i I j J k K l L m M n N o O p P q Q r R s S t T u U \
	v V w W x X y Y z Z
fuzz_def = $(if $(filter $(ACPI_TABLES),$1),-DTABLE=$(call upper,$1,$(UPPER)))
# a target's own sources beyond FUZZ_LIB: the virtio drivers and their fake device; the
# xHCI driver and its fake controller, which takes its DMA memory and clock from virtio's
VIRTIO_FAKE := drivers/virtio.c drivers/virtio_blk.c tests/host/virtio_fake.c
fuzz_own = $(if $(filter virtio_blk,$1),$(VIRTIO_FAKE))$(if $(filter xhci_events,$1),$(VIRTIO_FAKE) \
	drivers/xhci.c tests/host/xhci_fake.c)

test: $(B)/testbed.iso $(B)/host/unit $(B)/kernel-alone.elf $(B)/check/rcu_check \
		$(B)/sim/rcu_sim $(FUZZ_TARGETS:%=$(B)/fuzz-replay/%) $(B)/host/qr_encode | deps
	$(PYTHON) tests/test_run.py
	$(PYTHON) tests/test_scripts.py
	$(PYTHON) scripts/tree_check.py
	$(PYTHON) scripts/check_commits.py
	$(PYTHON) tests/qr/qr_check.py $(B)/host/qr_encode
	$(B)/check/rcu_check 2 2 2
	$(B)/sim/rcu_sim agree > $(B)/sim/agree.txt 2>/dev/null || { cat $(B)/sim/agree.txt; exit 1; }
	$(B)/sim/rcu_sim agree 2>/dev/null | cmp -s - $(B)/sim/agree.txt || \
		{ echo "sim: two runs with the same seed differ"; exit 1; }
	tail -1 $(B)/sim/agree.txt
	$(B)/sim/rcu_sim readers > $(B)/sim/readers.txt 2>/dev/null || \
		{ grep '^sim:' $(B)/sim/readers.txt; exit 1; }
	grep '^sim:' $(B)/sim/readers.txt | tail -1
	B=$(B) $(PYTHON) scripts/fuzz.py replay $(FUZZ_TARGETS)
	$(PYTHON) scripts/docs_check.py
	$(PYTHON) scripts/interface_check.py
	$(PYTHON) tests/run.py test --accel $(ACCEL) --host $(B)/host/unit --matrix tests/matrix \
		--every-case
	$(PYTHON) scripts/story_excerpt.py --check


# The objects know their headers (-MMD); the link compiles the target's own
# source too, so it depends on every header, as that source may use any.
$(B)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(quiet) FUZZCC $<
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP \
		-c $< -o $@
$(B)/fuzz-replay/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(quiet) HOSTCC $<
	$(Q)$(HOSTCC) $(FUZZ_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=all -MMD -MP \
		-c $< -o $@

define fuzz_rules
$(B)/fuzz/$1: $(call fuzz_src,$1) $(wildcard tests/fuzz/*.h include/*.h tests/host/*.h) \
		$(FUZZ_LIB:%.c=$(B)/fuzz/obj/%.o) \
		$(patsubst %.c,$(B)/fuzz/obj/%.o,$(call fuzz_own,$1))
	$$(quiet) FUZZLD $$@
	$$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(call fuzz_def,$1) -fsanitize=fuzzer,address,undefined \
		$(call fuzz_src,$1) $(FUZZ_LIB:%.c=$(B)/fuzz/obj/%.o) \
		$(patsubst %.c,$(B)/fuzz/obj/%.o,$(call fuzz_own,$1)) -ldl -o $$@
$(B)/fuzz-replay/$1: $(call fuzz_src,$1) $(wildcard tests/fuzz/*.h include/*.h tests/host/*.h) \
		tests/fuzz/replay.c \
		$(FUZZ_LIB:%.c=$(B)/fuzz-replay/obj/%.o) \
		$(patsubst %.c,$(B)/fuzz-replay/obj/%.o,$(call fuzz_own,$1))
	$$(quiet) HOSTLD $$@
	$$(Q)$(HOSTCC) $(FUZZ_CFLAGS) $(call fuzz_def,$1) -fsanitize=address,undefined \
		-fno-sanitize-recover=all $(call fuzz_src,$1) tests/fuzz/replay.c \
		$(FUZZ_LIB:%.c=$(B)/fuzz-replay/obj/%.o) \
		$(patsubst %.c,$(B)/fuzz-replay/obj/%.o,$(call fuzz_own,$1)) -ldl -o $$@
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_rules,$t)))

fuzz: $(FUZZ_TARGETS:%=$(B)/fuzz/%) | fuzz-deps
	B=$(B) $(PYTHON) scripts/fuzz.py run --seconds $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-replay: $(FUZZ_TARGETS:%=$(B)/fuzz-replay/%)
	B=$(B) $(PYTHON) scripts/fuzz.py replay $(FUZZ_TARGETS)

# The kernel built by clang, in a build folder of its own, booted once
# through the story machine's whole in-kernel suite.
test-clang: | deps
	$(MAKE) B=$(B)/clang CC=clang $(B)/clang/testbed.iso
	TESTBED_ISO=$(B)/clang/testbed.iso $(PYTHON) tests/run.py test --accel $(ACCEL) \
		--only bios-story

# Each mutant (tests/mutants/*.patch) is a plausible bug; a test must kill it.
# MUTANTS="rcu-*" runs only the mutants whose names match (globs).
mutants: $(B)/testbed.iso $(B)/host/unit $(B)/sim/rcu_sim $(B)/check/rcu_check \
		$(FUZZ_TARGETS:%=$(B)/fuzz-replay/%) | deps
	$(PYTHON) scripts/mutants.py $(MUTANTS)

# The course (docs/labs/): a lab is a page and a patch, tests/labs/NAME.patch,
# that takes a piece of the solution out (scripts/lab.py).
LAB ?=
lab-start:
	$(PYTHON) scripts/lab.py start $(LAB)
grade: | deps
	$(PYTHON) scripts/lab.py grade $(LAB)
labs-check: $(B)/testbed.iso $(B)/host/unit | deps
	$(PYTHON) scripts/lab.py check

# --- tools ------------------------------------------------------------------

# What `make deps` ensures: a command or a path, and the Debian package
# that provides it.
DEPS := \
	nasm:nasm \
	grub-mkrescue:grub-common \
	/usr/lib/grub/i386-pc:grub-pc-bin \
	/usr/lib/grub/x86_64-efi:grub-efi-amd64-bin \
	xorriso:xorriso \
	mformat:mtools \
	qemu-system-x86_64:qemu-system-x86 \
	/usr/share/OVMF:ovmf \
	python3:python3 \
	gdb:gdb \
	clang:clang \
	zbarimg:zbar-tools \
	sparse:sparse \
	$(if $(CROSS_COMPILE),$(CROSS_COMPILE)gcc:gcc-x86-64-linux-gnu \
		$(CROSS_COMPILE)ld:binutils-x86-64-linux-gnu)

# install-missing LIST: install the Debian packages of LIST ("command:package"
# or "/path:package") whose command or path is missing.
define install-missing
	@missing=""; \
	for d in $(1); do \
		what=$${d%%:*}; pkg=$${d##*:}; \
		case $$what in \
		/*) [ -e "$$what" ] ;; \
		*) command -v "$$what" > /dev/null ;; \
		esac || missing="$$missing $$pkg"; \
	done; \
	[ -z "$$missing" ] && exit 0; \
	echo "deps: missing packages:$$missing"; \
	if [ "$$(id -u)" = 0 ]; then sudo=""; \
	elif command -v sudo > /dev/null; then sudo="sudo"; \
	else echo "deps: as root, run: apt-get update && apt-get install -y$$missing"; exit 1; fi; \
	if ! command -v apt-get > /dev/null; then \
		echo "deps: no apt-get here; install the equivalents of:$$missing"; exit 1; fi; \
	$$sudo apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing
endef

deps:
	$(call install-missing,$(DEPS))

# Only make plot needs gnuplot.
plot-deps:
	$(call install-missing,gnuplot:gnuplot-nox)

# Only make fuzz needs clang with libFuzzer.
fuzz-deps:
	$(call install-missing,clang:clang /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a:libclang-rt-14-dev)

clean:
	rm -rf $(B)

# The clang build (B=$(B)/clang), the mutants' and the labs' trees keep their own:
# reading theirs too would triple what every make parses.
-include $(shell find $(B) \( -path $(B)/clang -o -path $(B)/mutants -o -path $(B)/labs \) -prune \
	-o -name '*.d' -print 2>/dev/null)
