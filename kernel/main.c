// SPDX-License-Identifier: MIT
/*
 * main.c - kernel_main(): the boot, in order.
 *
 * boot.asm calls kernel_main(magic, info) on the boot stack with the first
 * 4 GiB mapped. From there the data flows one way:
 *
 *   consoles (serial) -> CPU tables (GDT, TSS, IDT) -> TSC clock
 *     -> boot information (copied, then parsed) -> command line
 *     -> memory map (sanitized) -> page tables -> framebuffer console
 *     -> ACPI tables -> NUMA nodes -> boot allocator -> swiotlb pool -> page allocator, slab
 *     -> local APIC, I/O APIC -> clocks -> scheduler -> tick -> other CPUs
 *     -> the framebuffer drawn (its text so far, in one pass) -> user mode
 *     -> deferred memory init (a thread per node, in the background)
 *     -> PCI, drivers (virtio-blk, edu, xHCI and a USB keyboard)
 *     -> facts -> wait for deferred memory init
 *     -> tests (test=) -> exit, or (no debug-exit device) halt
 *     -> the lab (lab/: story, storm, torture, benchmarks)
 *     -> exit, or the lab's shell, or halt
 *
 * Each step only uses the ones before it, so a fault anywhere after
 * trap_init() is reported with registers and a backtrace.
 */
#include "acpi.h"
#include "apic.h"
#include "cmdline.h"
#include "cpu.h"
#include "debugexit.h"
#include "fbcon.h"
#include "format.h"
#include "fw_cfg.h"
#include "iommu.h"
#include "irqoff.h"
#include "kstring.h"
#include "ktest.h"
#include "lab.h"
#include "mb2.h"
#include "mce.h"
#include "mm.h"
#include "memmap.h"
#include "numa.h"
#include "param.h"
#include "percpu.h"
#include "printk.h"
#include "profile.h"
#include "rcu.h"
#include "results.h"
#include "sched.h"
#include "serial.h"
#include "smp.h"
#include "softirq.h"
#include "edu.h"
#include "pci.h"
#include "virtio_blk.h"
#include "usb_kbd.h"
#include "xhci.h"
#include "swiotlb.h"
#include "time.h"
#include "trap.h"
#include "user.h"
#include "vfs.h"
#include "vm.h"
#include "x86.h"

#ifndef TESTBED_VERSION
#define TESTBED_VERSION "unknown"
#endif

#define FW_CFG_CMDLINE "opt/testbed/cmdline"

/* The multiboot2 information, copied out of wherever GRUB left it. */
static u8 mb2_copy[MB2_INFO_MAX] __aligned(8);
struct boot_info boot_info;
struct memmap boot_memmap;
char kernel_cmdline[CMDLINE_MAX];

/* test=none|all|suite,suite,...: run KTAP suites, then exit QEMU. */
static char test_selection[256] = "none";
PARAM_STR("test", test_selection);

/* exit=off|on: leave QEMU through isa-debug-exit when the boot's work is done. */
static int exit_when_done;
PARAM_CHOICE("exit", exit_when_done, "off", "on");

/* Serial output from firmware and GRUB may precede us: start clean and visible. */
static void banner(void)
{
	static const char reset[] = "\033[0m\r\n";

	for (const char *p = reset; *p; p++)
		serial_putc(*p);
	printk("======== testbed %s: kernel starting ========\n", TESTBED_VERSION);
}

/* Copy the boot information into the kernel image and parse the copy. */
static void load_boot_info(u64 magic, u64 info_phys)
{
	if (magic != MB2_BOOTLOADER_MAGIC) {
		pr_err("boot: not started by a multiboot2 loader (magic 0x%llx); no boot information\n",
		       magic);
		mb2_parse(mb2_copy, 0, &boot_info);
		return;
	}
	u32 total;
	memcpy(&total, phys_to_virt(info_phys), sizeof(total));
	u32 n = MIN(total, (u32)MB2_INFO_MAX);
	if (total > MB2_INFO_MAX)
		pr_warn("boot: boot information is %u bytes; only the first %u are kept\n", total,
			MB2_INFO_MAX);
	memcpy(mb2_copy, phys_to_virt(info_phys), n);
	mb2_parse(mb2_copy, n, &boot_info);
	boot_info.info_phys = info_phys;
	pr_info("boot: %s, %s firmware, %u bytes of boot information at 0x%llx (%u tags)\n",
		boot_info.loader_name[0] ? boot_info.loader_name : "unknown loader",
		boot_info.efi ? "UEFI" : "BIOS", total, info_phys,
		boot_info.ntags);
}

/* GRUB's command line, then QEMU's fw_cfg file, then parse the result. */
static void load_cmdline(void)
{
	char extra[CMDLINE_MAX];
	long n;
	size_t used;

	used = kstrlcpy(kernel_cmdline, boot_info.cmdline, sizeof(kernel_cmdline));
	n = fw_cfg_read_file(FW_CFG_CMDLINE, extra, sizeof(extra));
	if (n >= (long)sizeof(extra))
		pr_warn("cmdline: %s is %ld bytes; only %zu used\n", FW_CFG_CMDLINE, n,
			sizeof(extra) - 1);
	if (n > 0 && used < sizeof(kernel_cmdline) - 1)
		snprintf(kernel_cmdline + used, sizeof(kernel_cmdline) - used, "%s%s",
			 used ? " " : "", extra);
	if (strlen(kernel_cmdline) >= sizeof(kernel_cmdline) - 1)
		pr_warn("cmdline: longer than %d bytes; the rest is lost\n", CMDLINE_MAX - 1);
	pr_info("cmdline: %s\n", kernel_cmdline[0] ? kernel_cmdline : "(empty)");
	cmdline_parse(kernel_cmdline, __start_params, (size_t)(__stop_params - __start_params));
}

static void print_facts(void)
{
	pr_info("cpu: %s %s (family %u model %u)%s%s\n", cpu_info.vendor,
		cpu_info.brand[0] ? cpu_info.brand : "", cpu_info.family, cpu_info.model,
		cpu_info.hypervisor ? ", hypervisor " : "", cpu_info.hypervisor_id);
	pr_info("memory: %llu MiB usable\n", (memmap_usable_bytes(&boot_memmap) >> 20));
}

static void __noreturn halt_forever(void)
{
	pr_info("testbed: halted (in QEMU: Ctrl-A then X quits)\n");
	for (;;) {
		cli();
		hlt();
	}
}

/* Without lab/ linked in (make kernel-alone), the boot ends after the facts and tests. */
__weak int lab_run(void)
{
	return 0;
}

__weak void lab_shell(void)
{
}

/*
 * The end of a test= boot on a machine without the debug-exit device (real
 * hardware, or QEMU without -device isa-debug-exit): debugexit() came back.
 * The KTAP summary is the last thing on the screen and stays there: stop
 * the other CPUs (NMI), print one final line, halt for good. No story, no
 * shell. An NMI that wakes this CPU from hlt returns into the loop.
 */
static void __noreturn tests_done_halt(void)
{
	const struct ktest_summary *sum = ktest_last_summary();

	smp_stop_others();      /* interrupts off from here; the others halt in their NMI */
	printk_panic_mode();    /* a stopped CPU may hold the printk lock: don't wait for it */
	results_begin("tests");
	results_add_ktest();
	results_show();
	pr_info("tests done: %d passed, %d failed, %d skipped; the machine is halted\n",
		sum->pass, sum->fail + sum->unknown, sum->skip);
	for (;;) {
		cli();
		hlt();
	}
}

extern char df_stack_top[], nmi_stack_top[];

/*
 * "boot: N cpus online after M ms": from kernel_main()'s first instruction
 * (this TSC reading) to the last CPU online. ktime_ns() starts later, after
 * time_init()'s early PIT measurement (2 ms), so printk's stamps undercount.
 * The part of it the boot CPU spent in the consoles' write() (a serial
 * port under QEMU costs the host a system call per byte; a real one at
 * 115200 baud, 87 us per byte) is said apart: printk() writes
 * synchronously, as Linux's does at boot.
 */
static void report_boot_time(u64 entry_tsc)
{
	u64 cycles = rdtsc() - entry_tsc, printing = printk_console_cycles();

	pr_info("boot: %u cpus online after %llu ms (%llu ms of it writing to the consoles)\n",
		nr_cpus_online, tsc_khz ? cycles / tsc_khz : 0, tsc_khz ? printing / tsc_khz : 0);
}

void kernel_main(u64 magic, u64 info_phys)
{
	u64 entry_tsc = rdtsc();

	percpu_init(0, 0, 0);   /* first: this_cpu() must work before anything uses it */
	serial_init();
	banner();
	cpu_identify();
	cpu_load_tables(&percpu[0].tables, (u64)df_stack_top, (u64)nmi_stack_top);
	trap_init();
	user_cpu_init();        /* SYSCALL, SMEP, SMAP */
	/* Mask the legacy 8259 PIC: its timer would arrive on vector 8 (#DF). */
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
	time_init();

	load_boot_info(magic, info_phys);
	load_cmdline();
	console_select();

	memmap_from_boot(&boot_info, &boot_memmap);
	memmap_print(&boot_memmap);
	if (memmap_sanitize(&boot_memmap))
		memmap_print_as(&boot_memmap, "sanitized");
	vm_init(&boot_memmap);
	fbcon_init(boot_info.has_fb ? &boot_info.fb : NULL, !boot_info.efi);

	acpi_init(&boot_info);
	serial_use_spcr();              /* the console UART the firmware names, if any */
	iommu_report();
	numa_init(&boot_memmap);
	bootmem_setup(&boot_memmap, &boot_info);
	swiotlb_init();                 /* from the boot allocator, before the page allocator takes it */
	mm_init();

	apic_init();
	percpu_init(0, apic_read_id(), numa.cpu_node[0]);   /* the boot CPU's real ID and node */
	time_calibrate();
	mce_init_cpu();
	sched_init();           /* before the first tick: sched_tick() needs a current thread */
	rcu_init();
	vfs_init();
	timer_init_cpu();
	sti();
	smp_boot();
	report_boot_time(entry_tsc);
	console_lock();                 /* no console write meanwhile */
	fbcon_start_drawing();          /* the screen shows the boot so far, in one pass */
	console_unlock();
	user_init();                    /* user space comes after SMP, as Linux's init does */
	mm_start_deferred_init();       /* the rest of memory, a thread per node */
	softirq_init();
	irqoff_start();
	profile_init();
	pci_init();
	virtio_blk_get();       /* probe the drivers: their lines come with the facts */
	edu_get();
	xhci_init();
	usb_kbd_init();
	print_facts();
	mm_wait_deferred_init();        /* the tests and the lab count all of memory */

	int failures = 0;
	ktest_set_hooks(&ktest_kernel_hooks);   /* for test= and the shell's test command */
	if (strcmp(test_selection, "none")) {
		failures = ktest_run(test_selection);
		pr_info("testbed: tests done, %d failed\n", failures);
		debugexit(failures ? EXIT_FAIL : EXIT_PASS);
		tests_done_halt();      /* only reached when no debug-exit device ended the boot */
	}
	failures += lab_run();
	if (exit_when_done)
		debugexit(failures ? EXIT_FAIL : EXIT_PASS);
	lab_shell();
	halt_forever();
}
