// SPDX-License-Identifier: MIT
/*
 * serial.c - polled 16550 UART driver, and the serial console.
 *
 * Registers (numbered from the base; DLAB is bit 7 of LCR):
 *   0 data (DLAB=0) / divisor low (DLAB=1)   3 LCR line control
 *   1 IER (DLAB=0)  / divisor high (DLAB=1)  4 MCR modem control
 *   2 FCR FIFO control                       5 LSR line status
 * Register n is at base + n * stride: I/O ports (COM1 0x3f8, COM2 0x2f8)
 * have stride 1; a 16550 in memory space (servers' BMC UARTs, SoCs) often
 * has 32-bit registers 4 bytes apart, as the SPCR's GAS says.
 *
 * The console starts on COM1 (serial_init(), before anything else: no
 * ACPI yet). Once ACPI is parsed, serial_use_spcr() moves it to the UART
 * the firmware's SPCR names, if that one answers the loopback probe,
 * printing one line on the old port and one on the new (server
 * serial-over-LAN is usually COM2 or an MMIO UART, not COM1).
 *
 * Output is polled: wait until LSR says the transmit holding register is
 * empty, then write. A 16550A's transmit FIFO holds 16 bytes, and with the
 * FIFOs on, THRE means the whole FIFO is empty: so one wait, then up to 16
 * bytes (uart.tx_burst; 1 on a UART without a working FIFO). Wander
 * Lairson Costa made Linux's 8250 console do the same ("serial/8250: Use
 * fifo in 8250 console driver", 8f3631f0f6eb, v6 posted 1 April 2022,
 * after a first version was reverted in January 2022: on a ProLiant whose
 * port reads took 1.6-1.9 us each, about 25% better). Under QEMU it saves
 * nothing measurable: the host's write per byte is the cost (docs/boot.md).
 * The wait is bounded, so a wedged or absent UART slows printing down
 * instead of hanging the kernel, and it is paid once: a wait that runs out
 * (TX_SPIN_MAX LSR reads) marks the UART stalled, and while it is, the
 * driver looks at LSR once per load and writes on without waiting, until
 * THRE shows again. A BMC's virtual UART that stops taking bytes would
 * otherwise cost every FIFO load of every line the whole bound. Linux's
 * 8250 console waits up to 10 ms per load (wait_for_xmitr, later
 * wait_for_lsr, "Wait up to 10ms for the character(s) to be sent") and
 * remembers nothing: testbed's memory of a stall is its own. Each stall
 * and each recovery is said (the first few), and counted.
 *
 * A FIFO is believed only if IIR's bits 7-6 read 11 after FCR turned it on,
 * as a 16550A answers (a 16550 with the broken FIFO answers 10, an 8250 or
 * 16450 00): the test Linux's autoconfig() makes.
 */
#include "serial.h"
#include "acpi.h"
#include "cmdline.h"
#include "io.h"
#include "format.h"
#include "param.h"
#include "printk.h"
#include "vm.h"
#include "x86.h"

#define COM1            0x3f8
#define UART_DATA       0
#define UART_IER        1
#define UART_FCR        2
#define UART_IIR        2               /* read: interrupt identification */
#define UART_LCR        3
#define UART_MCR        4
#define UART_LSR        5
#define LSR_DATA_READY  0x01
#define LSR_THRE        0x20            /* transmit holding register empty */
#define LCR_DLAB        0x80
#define LCR_8N1         0x03
#define MCR_LOOPBACK    0x10
#define MCR_DTR_RTS_OUT2 0x0b
#define IIR_FIFO_BITS   0xc0            /* 11: a 16550A's working FIFOs */
#define TX_FIFO_16550A  16
#define TX_SPIN_MAX     100000
#define UART_CLOCK_BAUD 115200          /* 1.8432 MHz / 16: divisor 1 */

/* One 16550: where its registers are and how to reach them. */
struct uart {
	bool mmio;
	u16 port;               /* I/O space: the base port */
	u8 __iomem *regs;       /* memory space: the mapped base */
	u8 stride;              /* bytes between registers */
	u8 access;              /* bytes per access: 1, 2 or 4 */
	bool present;
	u8 tx_burst;            /* bytes written per THRE: 16 with a 16550A's FIFO, else 1 */
	char name[40];          /* "I/O port 0x3f8", "MMIO 0xfe030000 stride 4" */
};

static struct uart uart = { .port = COM1, .stride = 1, .access = 1, .name = "COM1 (I/O port 0x3f8)" };

/* serial.port=spcr|com1: com1 keeps the console on COM1 whatever the SPCR says. */
static int port_com1;
PARAM_CHOICE("serial.port", port_com1, "spcr", "com1");

static u8 reg_in(const struct uart *u, u32 reg)
{
	if (!u->mmio)
		return inb((u16)(u->port + reg));
	u8 __iomem *p = u->regs + reg * u->stride;
	if (u->access == 4)
		return (u8)readl(p);
	if (u->access == 2)
		return (u8)readw(p);
	return readb(p);
}

static void reg_out(const struct uart *u, u32 reg, u8 v)
{
	if (!u->mmio) {
		outb((u16)(u->port + reg), v);
		return;
	}
	u8 __iomem *p = u->regs + reg * u->stride;
	if (u->access == 4)
		writel(v, p);
	else if (u->access == 2)
		writew(v, p);
	else
		writeb(v, p);
}

static struct serial_stats stats;
static bool tx_stalled;         /* a wait ran out: no more waiting until THRE shows */
static bool fake_stall;         /* serial_fake_stall(): THRE reads as never set */
#define STALL_REPORTS 3         /* stalls and recoveries said; the rest only counted */

/*
 * Wait (bounded) until the transmitter can take tx_burst bytes; once, not
 * at all while the UART is stalled. Its lines are printed from inside a
 * console write: printk() queues them for after it (kernel/printk.c).
 */
static void wait_thre(const struct uart *u)
{
	u32 max = tx_stalled ? 1 : TX_SPIN_MAX;

	for (u32 i = 0; i < max; i++) {
		stats.lsr_reads++;
		if ((reg_in(u, UART_LSR) & LSR_THRE) && !fake_stall) {
			if (tx_stalled) {
				tx_stalled = false;
				if (stats.recoveries++ < STALL_REPORTS)
					pr_info("serial: %s takes bytes again\n", u->name);
			}
			return;
		}
		cpu_relax();
	}
	if (!tx_stalled) {
		tx_stalled = true;
		if (stats.stalls++ < STALL_REPORTS)
			pr_warn("serial: %s was not ready for a byte in %u LSR reads; "
				"writing on without waiting until it is\n", u->name, TX_SPIN_MAX);
	}
}

void serial_fake_stall(bool on)
{
	fake_stall = on;
}

void serial_putc(char c)
{
	if (!uart.present)
		return;
	wait_thre(&uart);
	reg_out(&uart, UART_DATA, (u8)c);
	stats.bytes++;
}

/* s[0..n) with each '\n' sent as "\r\n", tx_burst bytes per wait. */
static void serial_write(struct console *con, const char *s, size_t n)
{
	const struct uart *u = &uart;
	bool cr_sent = false;
	u32 room = 0;

	(void)con;
	if (!u->present)
		return;
	for (size_t i = 0; i < n; room--, stats.bytes++) {
		if (room == 0) {
			wait_thre(u);
			room = u->tx_burst;
		}
		if (s[i] == '\n' && !cr_sent) {
			reg_out(u, UART_DATA, '\r');
			cr_sent = true;
		} else {
			reg_out(u, UART_DATA, (u8)s[i++]);
			cr_sent = false;
		}
	}
}

void serial_get_stats(struct serial_stats *out)
{
	*out = stats;
	out->tx_burst = uart.present ? uart.tx_burst : 0;
}

static struct console serial_console = {
	.name = "serial",
	.write = serial_write,
};

/*
 * Program 8N1 (and the rate, unless baud is 0: keep firmware's divisor)
 * and check with loopback that a UART is there: a byte written comes
 * straight back. Bounded; an absent UART reads all ones.
 */
static bool uart_probe(struct uart *u, u32 baud)
{
	reg_out(u, UART_IER, 0x00);                     /* no interrupts (yet) */
	if (baud) {
		u16 divisor = (u16)(UART_CLOCK_BAUD / baud);

		reg_out(u, UART_LCR, LCR_DLAB);
		reg_out(u, UART_DATA, divisor & 0xff);
		reg_out(u, UART_IER, divisor >> 8);
	}
	reg_out(u, UART_LCR, LCR_8N1);
	reg_out(u, UART_FCR, 0xc7);                     /* FIFOs on, cleared, 14-byte trigger */
	u->tx_burst = (reg_in(u, UART_IIR) & IIR_FIFO_BITS) == IIR_FIFO_BITS ? TX_FIFO_16550A : 1;
	reg_out(u, UART_MCR, MCR_LOOPBACK | MCR_DTR_RTS_OUT2);
	reg_out(u, UART_DATA, 0xae);
	for (int i = 0; i < 1000 && !(reg_in(u, UART_LSR) & LSR_DATA_READY); i++)
		cpu_relax();
	u->present = reg_in(u, UART_DATA) == 0xae;
	reg_out(u, UART_MCR, MCR_DTR_RTS_OUT2);         /* normal operation */
	return u->present;
}

bool serial_init(void)
{
	if (uart_probe(&uart, SERIAL_BAUD))
		console_register(&serial_console, true);
	return uart.present;
}

/* The UART an SPCR describes, mapped; false (said) if it cannot be used. */
static bool uart_from_spcr(const struct spcr_info *s, struct uart *u)
{
	*u = (struct uart){ .mmio = s->mmio, .stride = s->reg_stride, .access = s->access_bytes };
	if (!s->mmio) {
		u->port = (u16)s->address;
		snprintf(u->name, sizeof(u->name), "I/O port 0x%x", u->port);
		return true;
	}
	snprintf(u->name, sizeof(u->name), "MMIO 0x%llx stride %u", s->address, s->reg_stride);
	u->regs = ioremap(s->address, PAGE_SIZE, VM_UC);
	return u->regs != NULL;
}

void serial_use_spcr(void)
{
	struct uart next;
	bool was_present = uart.present;

	if (!acpi.has_spcr || !acpi.spcr.usable)
		return;
	if (!acpi.spcr.mmio && acpi.spcr.address == COM1)
		return;                 /* already there */
	if (port_com1) {
		pr_info("serial: the SPCR names another UART; staying on %s (serial.port=com1)\n",
			uart.name);
		return;
	}
	if (!uart_from_spcr(&acpi.spcr, &next) || !uart_probe(&next, acpi.spcr.baud)) {
		pr_warn("serial: the SPCR's UART (%s) does not answer; staying on %s\n", next.name,
			uart.name);
		return;
	}
	pr_info("serial: console moves to the SPCR's UART, %s\n", next.name);
	/* Only the boot CPU runs and interrupts are off: no printk is half-way through. */
	char old[sizeof(uart.name)];
	kstrlcpy(old, uart.name, sizeof(old));
	uart = next;
	tx_stalled = false;
	if (!was_present)
		console_register(&serial_console, true);        /* COM1 was absent: replay the log */
	pr_info("serial: console from the SPCR: %s (until now: %s)\n", uart.name, old);
}

int serial_getc(void)
{
	if (!uart.present || !(reg_in(&uart, UART_LSR) & LSR_DATA_READY))
		return -1;
	return reg_in(&uart, UART_DATA);
}
