// SPDX-License-Identifier: MIT
/*
 * shell.c - the command line (see shell.h).
 *
 * The commands are a table of { name, usage, help, fn }; fn gets argc/argv
 * and returns false for bad arguments, which prints the usage line. A line
 * is split on blanks into at most SHELL_ARGS_MAX words. History is a ring
 * of the last SHELL_HISTORY lines.
 */
#include "shell.h"
#include "acpi.h"
#include "bench.h"
#include "cmdline.h"
#include "debugexit.h"
#include "dma.h"
#include "edu.h"
#include "errno.h"
#include "fbcon.h"
#include "format.h"
#include "kbd.h"
#include "keyseq.h"
#include "kstring.h"
#include "ktest.h"
#include "mm.h"
#include "numa.h"
#include "page_alloc.h"
#include "pci.h"
#include "percpu.h"
#include "printk.h"
#include "rcu.h"
#include "results.h"
#include "sched.h"
#include "serial.h"
#include "slab.h"
#include "storm.h"
#include "story.h"
#include "swiotlb.h"
#include "torture.h"
#include "usb_kbd.h"
#include "vfs.h"
#include "virtio_blk.h"
#include "vm.h"

static int shell_off;
PARAM_CHOICE("shell", shell_off, "on", "off");

/* A decimal (or 0x hex) number, the whole word; false if it is not one. */
static bool number(const char *word, u64 *out)
{
	const char *why;

	return parse_u64(word, strlen(word), true, out, &why);
}

/*
 * Print words (blank-separated) as lines "<cmd>:   <word> <word> ...",
 * each under 72 characters after the timestamp: a list of valid choices.
 */
static void print_choices(const char *cmd, const char *words)
{
	char line[80];
	size_t used = 0;

	while (*words) {
		const char *blank = strchr(words, ' ');
		size_t len = blank ? (size_t)(blank - words) : strlen(words);

		if (used && used + 1 + len > 64) {
			printk("%s:   %s\n", cmd, line);
			used = 0;
		}
		if (len >= sizeof(line) - used - 1)     /* one word longer than a line: cut it */
			len = sizeof(line) - used - 2;
		used += snprintf(line + used, sizeof(line) - used, "%s%.*s", used ? " " : "",
				 (int)len, words);
		words += len;
		while (*words == ' ')
			words++;
	}
	if (used)
		printk("%s:   %s\n", cmd, line);
}

struct command {
	const char *name, *usage, *help;
	bool (*fn)(int argc, char **argv);
};

static const struct command commands[];

/* --- the commands ------------------------------------------------------------- */

static bool cmd_help(int argc, char **argv);

static bool cmd_topo(int argc, char **argv)
{
	numa_print(&numa);
	return argc == 1;
}

static bool cmd_mem(int argc, char **argv)
{
	page_alloc_print();
	slab_print();
	return argc == 1;
}

static bool cmd_cpus(int argc, char **argv)
{
	for (u32 cpu = 0; cpu < nr_cpus; cpu++) {
		struct percpu *pc = &percpu[cpu];
		printk("cpu %u: apic %u node %u %s ticks %llu running %s\n", cpu, pc->apic_id, pc->node,
		       pc->online ? "online" : "offline", pc->ticks,
		       pc->online && pc->current ? pc->current->name : "-");
	}
	return argc == 1;
}

/* acpi SIG: any case, as signatures are upper case ("srat" is the SRAT). */
static bool cmd_acpi(int argc, char **argv)
{
	static char signatures[4 * 5 * 40];
	char sig[5];

	if (argc != 2 || strlen(argv[1]) != 4)
		return false;
	for (u32 i = 0; i < 4; i++) {
		char c = argv[1][i];
		sig[i] = c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
	}
	sig[4] = 0;
	if (!acpi_dump(sig)) {
		printk("acpi: no table %s here; the tables this machine has:\n", sig);
		acpi_table_signatures(signatures, sizeof(signatures));
		print_choices("acpi", signatures);
	}
	return true;
}

static bool cmd_rcu(int argc, char **argv)
{
	enum rcu_mode mode;

	if (argc == 2 && !strcmp(argv[1], "modes")) {
		for (mode = 0; mode < RCU_NR_MODES; mode++)
			printk("rcu: %-8s %s\n", rcu_modes[mode].name, rcu_modes[mode].history);
		return true;
	}
	if (argc == 3 && !strcmp(argv[1], "mode")) {
		if (!rcu_mode_by_name(argv[2], &mode)) {
			printk("rcu: no mode %s; rcu modes lists them\n", argv[2]);
			return true;
		}
		rcu_barrier();
		rcu_set_mode(mode);
	} else if (argc != 1) {
		return false;
	}
	printk("rcu: mode %s, %llu grace periods, %llu forcing rounds, nr_files %llu\n", rcu_mode_name(),
	       rcu_completed_batches(), rcu_fqs_rounds(), vfs_nr_files());
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		if (percpu[cpu].online)
			printk("rcu: cpu %u qlen %llu\n", cpu, rcu_qlen(cpu));
	return true;
}

/* Was Ctrl-C typed (on the serial port or a keyboard)? Other keys typed meanwhile are dropped. */
static bool ctrl_c_typed(void)
{
	int c;

	while ((c = serial_getc()) >= 0 || (c = kbd_getc()) >= 0 || (c = usb_kbd_getc()) >= 0)
		if (c == 0x03)
			return true;
	return false;
}

static bool cmd_storm(int argc, char **argv)
{
	struct cpumask cpus = { { 0 } }, hogs = { { 0 } };
	struct storm_result r;
	const char *why = NULL;
	u64 n = 4 * vfs_max_files();

	if (argc > 4)
		return false;
	if (argc >= 2 && !number(argv[1], &n))
		return false;
	if (!cpumask_parse(argc >= 3 ? argv[2] : "all", nr_cpus, &cpus, &why) ||
	    (argc == 4 && !cpumask_parse(argv[3], nr_cpus, &hogs, &why))) {
		printk("storm: %s\n", why ? why : "bad CPU list");
		return false;
	}
	struct cpumask online = { { 0 } }, offline = { { 0 } }, online_asked;
	char online_list[64];

	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		cpumask_set(percpu[cpu].online ? &online : &offline, cpu);
	cpumask_format(&online, online_list, sizeof(online_list));
	cpumask_andnot(&online_asked, &cpus, &offline);
	if (cpumask_empty(&online_asked)) {
		printk("storm: nothing ran: CPUS %s names no online CPU; CPUS from %s would storm\n",
		       argc >= 3 ? argv[2] : "all", online_list);
		return false;
	}
	cpumask_andnot(&cpus, &online_asked, &hogs);    /* a hog CPU does not storm */
	if (cpumask_empty(&cpus)) {
		struct cpumask could = { { 0 } };
		char could_list[64];

		cpumask_andnot(&could, &online, &hogs);
		if (cpumask_empty(&could)) {
			printk("storm: nothing ran: HOGS %s takes every online CPU (%s), and a hog "
			       "does not storm\n", argv[3], online_list);
			return false;
		}
		cpumask_format(&could, could_list, sizeof(could_list));
		printk("storm: nothing ran: every online CPU of CPUS %s is in HOGS %s, and a hog "
		       "does not storm; CPUS from %s would storm\n", argv[2], argv[3], could_list);
		return false;
	}
	printk("storm: Ctrl-C stops it\n");
	storm_run_watched(storm_default_where(), n, &cpus, &hogs, &r, ctrl_c_typed);
	if (r.interrupted)
		printk("storm: stopped by Ctrl-C after %llu iterations\n", r.iterations);
	return true;
}

static bool cmd_torture(int argc, char **argv)
{
	u64 ms = 1000;
	struct torture_result r;

	if (argc > 2 || (argc == 2 && !number(argv[1], &ms)) || ms > 600000)
		return false;
	torture_run(ms, 0, &r);
	return true;
}

static bool cmd_swiotlb(int argc, char **argv)
{
	struct swiotlb_stats st;

	story_swiotlb_table();
	swiotlb_get_stats(&st);
	printk("swiotlb: %llu maps, %llu unmaps, %llu bytes copied, %llu refused (full), "
	       "%u of %u slabs in use, %u at most\n", st.maps, st.unmaps, st.bytes_copied,
	       st.full, st.used_slabs, st.slabs, st.peak_slabs);
	return argc == 1;
}

static void print_device(const struct device *d)
{
	struct dma_stats st = dma_device_stats(d);

	printk("dma: %s mask 0x%llx coherent 0x%llx: %llu mappings, %llu bounced, %llu refused\n",
	       d->name, d->dma_mask, d->coherent_dma_mask, st.mappings, st.bounces,
	       st.errors);
}

static bool cmd_dma(int argc, char **argv)
{
	struct virtio_blk *vb = virtio_blk_get();
	struct edu *e = edu_get();

	if (vb)
		print_device(virtio_blk_device(vb));
	if (e)
		print_device(&e->pci->dma);
	if (!vb && !e)
		printk("dma: no DMA devices\n");
	return argc == 1;
}

static bool cmd_pci(int argc, char **argv)
{
	pci_print();
	return argc == 1;
}

/* What a virtio_blk_read()/write() error means, in words. */
static const char *blk_error(int err)
{
	switch (-err) {
	case EINVAL: return "the device or driver refused the request";
	case EIO: return "the device reported an I/O error";
	case ENOMEM: return "no memory for the request";
	case ENOSPC: return "the queue is full or being rebuilt; try again";
	case ETIMEDOUT: return "the device did not answer in time";
	default: return "an error";
	}
}

/* blk | blk read SECTOR | blk write SECTOR BYTE */
static bool cmd_blk(int argc, char **argv)
{
	struct virtio_blk *vb = virtio_blk_get();
	static u8 sector[VIRTIO_BLK_SECTOR];
	u64 s, byte = 0;

	if (argc == 1) {
		struct virtio_blk_stats st;

		if (!vb) {
			printk("blk: no virtio-blk device\n");
			return true;
		}
		virtio_blk_get_stats(vb, &st);
		printk("blk: %llu sectors; %llu requests, %llu bytes, %llu bounced, %llu interrupts\n",
		       virtio_blk_capacity(vb), st.requests, st.bytes, st.bounced_bytes,
		       st.interrupts);
		return true;
	}
	/* the arguments first: what is wrong with them is said with or without a disk */
	bool is_read = !strcmp(argv[1], "read"), is_write = !strcmp(argv[1], "write");
	if (!is_read && !is_write) {
		printk("blk: no subcommand %s; read or write\n", argv[1]);
		return false;
	}
	if (argc != (is_read ? 3 : 4))
		return false;
	if (!number(argv[2], &s)) {
		printk("blk: SECTOR %s is not a number\n", argv[2]);
		return false;
	}
	if (is_write && (!number(argv[3], &byte) || byte > 0xff)) {
		printk("blk: BYTE %s is not a byte: give 0 to 255 (0x0 to 0xff)\n", argv[3]);
		return false;
	}
	if (!vb) {
		printk("blk: no virtio-blk device\n");
		return true;
	}
	u64 capacity = virtio_blk_capacity(vb);
	if (s >= capacity) {
		printk("blk: sector %llu is past the disk's end: the disk has %llu sectors of %u "
		       "bytes (0 to %llu)\n", s, capacity, VIRTIO_BLK_SECTOR,
		       capacity ? capacity - 1 : 0);
		return false;
	}
	if (is_read) {
		int err = virtio_blk_read(vb, s, sector, sizeof(sector));
		if (err) {
			printk("blk: read of sector %llu failed: %s (%d)\n", s, blk_error(err), err);
			return true;
		}
		for (u32 off = 0; off < 64; off += 16) {
			char line[64];
			size_t used = 0;
			for (u32 i = 0; i < 16; i++)
				used += snprintf(line + used, sizeof(line) - used, " %02x", sector[off + i]);
			printk("blk: %04x:%s\n", off, line);
		}
		return true;
	}
	memset(sector, (int)byte, sizeof(sector));
	int err = virtio_blk_write(vb, s, sector, sizeof(sector));
	if (err)
		printk("blk: write of sector %llu: failed: %s (%d)\n", s, blk_error(err), err);
	else
		printk("blk: write of sector %llu: done\n", s);
	return true;
}

/* Failed cases of the last `test` command: what a bare `exit` reports. */
static int last_test_failed;

/*
 * A word that picks no suite or case runs nothing (a typo must not start a
 * long run): it is named, the suites are listed, and the `exit` after it
 * fails as the unknown word would have failed the run.
 */
static bool cmd_test(int argc, char **argv)
{
	static char names[2048];
	const char *unknown;
	size_t len;

	if (argc != 2)
		return false;
	unknown = ktest_first_unmatched(argv[1], &len);
	if (unknown) {
		printk("test: no suite or case matches '%.*s'; nothing ran. The suites "
		       "(all: every one; SUITE.CASE, * and ? pick cases):\n", (int)len, unknown);
		ktest_suite_names(names, sizeof(names));
		print_choices("test", names);
		last_test_failed = 1;
		return false;
	}
	last_test_failed = ktest_run(argv[1]);
	printk("test: %d failed\n", last_test_failed);
	results_begin("tests");         /* and as a QR code, to take home */
	results_add_ktest();
	results_show();
	return true;
}

static bool cmd_dmesg(int argc, char **argv)
{
	u64 lines = 0;

	if (argc > 2 || (argc == 2 && (!number(argv[1], &lines) || !lines)))
		return false;
	printk_dump_log(lines);
	return true;
}

static bool cmd_bench(int argc, char **argv)
{
	static char names[2048];
	const char *unknown;
	size_t len;

	if (argc != 2)
		return false;
	unknown = bench_first_unknown(argv[1], &len);
	if (unknown) {
		printk("bench: no benchmark named '%.*s'; nothing ran. The benchmarks (or all):\n",
		       (int)len, unknown);
		bench_names(names, sizeof(names));
		print_choices("bench", names);
		return false;
	}
	bench_run(argv[1]);
	return true;
}

static bool cmd_story(int argc, char **argv)
{
	static struct story_result res;

	story_run(&res);
	return argc == 1;
}

static bool cmd_reboot(int argc, char **argv)
{
	if (argc != 1)
		return false;
	acpi_reboot();
	return true;
}

/*
 * exit [pass|fail]: leave QEMU through isa-debug-exit, by default with the
 * outcome of the last `test` (pass when none ran). This is how a test that
 * types at the shell ends its boot (tests/sessions.py); on a machine
 * without the device it says so and the shell goes on.
 */
static bool cmd_exit(int argc, char **argv)
{
	enum debugexit_code code = last_test_failed ? EXIT_FAIL : EXIT_PASS;

	if (argc > 2)
		return false;
	if (argc == 2 && !strcmp(argv[1], "pass"))
		code = EXIT_PASS;
	else if (argc == 2 && !strcmp(argv[1], "fail"))
		code = EXIT_FAIL;
	else if (argc == 2)
		return false;
	printk("exit: %s\n", code == EXIT_PASS ? "pass" : "fail");
	debugexit(code);
	printk("exit: no debug-exit device here (not QEMU, or no -device isa-debug-exit)\n");
	return true;
}

static bool cmd_poweroff(int argc, char **argv)
{
	if (argc != 1)
		return false;
	acpi_poweroff();
	return true;
}

static const struct command commands[] = {
	{ "help", "help", "this list", cmd_help },
	{ "topo", "topo", "NUMA nodes, their CPUs and memory", cmd_topo },
	{ "mem", "mem", "free memory per node and zone, slab caches", cmd_mem },
	{ "cpus", "cpus", "CPUs: APIC ID, node, ticks, running thread", cmd_cpus },
	{ "acpi", "acpi SIG", "hex-dump an ACPI table (SRAT, APIC, FACP, ...)", cmd_acpi },
	{ "rcu", "rcu [modes | mode NAME]", "RCU state; the modes and their history; switch mode", cmd_rcu },
	{ "storm", "storm [N [CPUS [HOGS]]]", "the open/close storm (N per CPU)", cmd_storm },
	{ "torture", "torture [MS]", "rcutorture-style check for MS milliseconds", cmd_torture },
	{ "swiotlb", "swiotlb", "every policy's pool here, and the live pool's use", cmd_swiotlb },
	{ "dma", "dma", "DMA devices: masks, mappings, bounces", cmd_dma },
	{ "pci", "pci", "PCI functions and BARs", cmd_pci },
	{ "blk", "blk [read SECTOR | write SECTOR BYTE]", "the virtio disk", cmd_blk },
	{ "test", "test SUITE[,SUITE...]|all", "run KTAP suites", cmd_test },
	{ "dmesg", "dmesg [LINES]", "the kernel log, or its last LINES lines (on the screen: PgUp/PgDn scroll back)", cmd_dmesg },
	{ "bench", "bench NAME[,NAME...]|all", "run benchmarks", cmd_bench },
	{ "story", "story", "the 2.6.14 story again", cmd_story },
	{ "reboot", "reboot", "reset the machine", cmd_reboot },
	{ "poweroff", "poweroff", "power off (ACPI S5)", cmd_poweroff },
	{ "exit", "exit [pass|fail]", "leave QEMU (isa-debug-exit); default: the last test's outcome", cmd_exit },
};

static bool cmd_help(int argc, char **argv)
{
	for (u32 i = 0; i < ARRAY_SIZE(commands); i++)
		printk("  %-40s %s\n", commands[i].usage, commands[i].help);
	return argc == 1;
}

bool shell_execute(const char *line)
{
	char buf[SHELL_LINE_MAX], *argv[SHELL_ARGS_MAX];
	int argc = 0;

	if (strlen(line) >= sizeof(buf)) {
		printk("shell: the line is longer than %d characters; not run\n", SHELL_LINE_MAX - 1);
		return false;
	}
	kstrlcpy(buf, line, sizeof(buf));
	for (char *p = buf; *p;) {
		while (*p == ' ' || *p == '\t')
			*p++ = 0;
		if (!*p)
			break;
		if (argc == SHELL_ARGS_MAX) {
			printk("shell: more than %d words\n", SHELL_ARGS_MAX);
			return false;
		}
		argv[argc++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	if (!argc)
		return true;
	for (u32 i = 0; i < ARRAY_SIZE(commands); i++) {
		if (strcmp(argv[0], commands[i].name))
			continue;
		if (commands[i].fn(argc, argv))
			return true;
		printk("usage: %s\n", commands[i].usage);
		return false;
	}
	printk("shell: no command %s; try help\n", argv[0]);
	return false;
}

/* --- the line editor ---------------------------------------------------------- */

static char history[SHELL_HISTORY][SHELL_LINE_MAX];
static u32 history_count;

/* Page Up/Down move the screen's view over the log: a page, or half with Shift. */
static void scroll_back(int key)
{
	struct fbcon_info info;

	fbcon_get_info(&info);
	int step = (int)(info.rows > 4 ? info.rows - 2 : 1) / ((key & KEY_SHIFT) ? 2 : 1);
	console_lock();         /* no console write draws on the screen meanwhile */
	fbcon_view_scroll((key & ~KEY_SHIFT) == KEY_PGUP ? step : -step);
	console_unlock();
}

/* The live screen again (the view and the QR code gone), owning the consoles. */
static void screen_live(bool hide_qr)
{
	console_lock();
	if (hide_qr)
		fbcon_hide_qr();
	else
		fbcon_view_live();
	console_unlock();
}

/* The next input from any keyboard or the serial port: a byte or a KEY_ code. */
static int raw_byte(void)
{
	for (;;) {
		int c = serial_getc();
		if (c < 0)
			c = kbd_getc();
		if (c < 0)
			c = usb_kbd_getc();
		if (c >= 0)
			return c;
		msleep(10);
	}
}

/*
 * The next byte for the line editor. Any key hides the results' QR code;
 * Page Up/Down (the i8042's KEY_ codes) move the screen's view and are
 * not bytes; any other key but ESC brings the view back to the live
 * screen. ESC starts a sequence read_line() decodes (keyseq.h): Page
 * Up/Down arrive that way from the USB keyboard and a serial terminal
 * (ESC [ 5 ~).
 */
static int next_byte(void)
{
	for (;;) {
		int c = raw_byte();

		screen_live(true);
		if ((c & ~KEY_SHIFT) == KEY_PGUP || (c & ~KEY_SHIFT) == KEY_PGDN) {
			scroll_back(c);
			continue;
		}
		if (c == 27)
			return c;
		screen_live(false);
		if (c <= 0xff)
			return c;
	}
}

static void echo(const char *s)
{
	printk("%s", s);
}

static void replace_line(char *line, u32 *len, const char *with)
{
	while (*len) {
		echo("\b \b");
		(*len)--;
	}
	kstrlcpy(line, with, SHELL_LINE_MAX);
	*len = (u32)strlen(line);
	echo(line);
}

/*
 * Read a line into line[SHELL_LINE_MAX + 1]: it keeps one character past
 * the shell's limit, so that shell_execute() sees a line too long and says
 * so rather than run what was cut; later characters are dropped unechoed.
 */
static void read_line(char *line)
{
	u32 len = 0, back = 0;          /* back: how far up the history we are */

	line[0] = 0;
	for (;;) {
		int c = next_byte();
		if (c == '\r' || c == '\n') {
			echo("\n");
			line[len] = 0;
			return;
		}
		if (c == 27) {                          /* ESC [ A / B: history; ESC [ 5 ~ / 6 ~: pages */
			struct keyseq seq;
			enum keyseq_key key;

			keyseq_start(&seq);
			while ((key = keyseq_feed(&seq, raw_byte())) == KEYSEQ_MORE)
				;
			if (key == KEYSEQ_PGUP || key == KEYSEQ_PGDN) {
				scroll_back(key == KEYSEQ_PGUP ? KEY_PGUP : KEY_PGDN);
				continue;
			}
			screen_live(false);
			if (key == KEYSEQ_UP && back < history_count && back < SHELL_HISTORY) {
				back++;
				replace_line(line, &len, history[(history_count - back) % SHELL_HISTORY]);
			} else if (key == KEYSEQ_DOWN && back > 0) {
				back--;
				replace_line(line, &len, back ? history[(history_count - back) % SHELL_HISTORY] : "");
			}
			continue;
		}
		if (c == '\b' || c == 127) {
			if (len) {
				len--;
				echo("\b \b");
			}
		} else if (c == 21) {                   /* Ctrl-U */
			replace_line(line, &len, "");
		} else if (c == 3) {                    /* Ctrl-C */
			echo("^C\n");
			line[0] = 0;
			return;
		} else if (c >= ' ' && c < 127 && len < SHELL_LINE_MAX) {
			char s[2] = { (char)c, 0 };
			line[len++] = (char)c;
			line[len] = 0;
			echo(s);
		}
	}
}

void shell_run(void)
{
	char line[SHELL_LINE_MAX + 1];

	kbd_init();
	printk("testbed shell: type help\n");
	for (;;) {
		echo("testbed> ");
		read_line(line);
		if (line[0] && strlen(line) < SHELL_LINE_MAX && (!history_count ||
				strcmp(line, history[(history_count - 1) % SHELL_HISTORY]))) {
			kstrlcpy(history[history_count % SHELL_HISTORY], line, SHELL_LINE_MAX);
			history_count++;
		}
		shell_execute(line);
	}
}

bool shell_enabled(void)
{
	return !shell_off;
}
