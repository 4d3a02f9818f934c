/*
 * serial.c - polled 16550 UART driver for COM1, and the serial console.
 *
 * Registers (offsets from the base port; DLAB is bit 7 of LCR):
 *   +0 data (DLAB=0) / divisor low (DLAB=1)   +3 LCR line control
 *   +1 IER (DLAB=0)  / divisor high (DLAB=1)  +4 MCR modem control
 *   +2 FCR FIFO control                       +5 LSR line status
 * Output is polled: wait until LSR says the transmit holding register is
 * empty, then write the byte. The wait is bounded, so a wedged or absent
 * UART slows printing down instead of hanging the kernel.
 */
#include "serial.h"
#include "param.h"
#include "printk.h"
#include "x86.h"

#define COM1            0x3f8
#define UART_DATA       0
#define UART_IER        1
#define UART_FCR        2
#define UART_LCR        3
#define UART_MCR        4
#define UART_LSR        5
#define LSR_THRE        0x20            /* transmit holding register empty */
#define LCR_DLAB        0x80
#define LCR_8N1         0x03
#define MCR_LOOPBACK    0x10
#define MCR_DTR_RTS_OUT2 0x0b
#define TX_SPIN_MAX     100000

static bool present;

void serial_putc(char c)
{
	if (!present)
		return;
	for (int i = 0; i < TX_SPIN_MAX && !(inb(COM1 + UART_LSR) & LSR_THRE); i++)
		cpu_relax();
	outb(COM1 + UART_DATA, (u8)c);
}

static void serial_write(struct console *con, const char *s, size_t n)
{
	(void)con;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			serial_putc('\r');
		serial_putc(s[i]);
	}
}

static struct console serial_console = {
	.name = "serial",
	.write = serial_write,
};

bool serial_init(void)
{
	u16 divisor = 115200 / SERIAL_BAUD;

	outb(COM1 + UART_IER, 0x00);                    /* no interrupts (yet) */
	outb(COM1 + UART_LCR, LCR_DLAB);
	outb(COM1 + UART_DATA, divisor & 0xff);
	outb(COM1 + UART_IER, divisor >> 8);
	outb(COM1 + UART_LCR, LCR_8N1);
	outb(COM1 + UART_FCR, 0xc7);                    /* FIFOs on, cleared, 14-byte trigger */

	/* Loopback: a byte written comes straight back if a UART is there. */
	outb(COM1 + UART_MCR, MCR_LOOPBACK | MCR_DTR_RTS_OUT2);
	outb(COM1 + UART_DATA, 0xae);
	for (int i = 0; i < 1000 && !(inb(COM1 + UART_LSR) & 0x01); i++)
		cpu_relax();
	present = inb(COM1 + UART_DATA) == 0xae;
	outb(COM1 + UART_MCR, MCR_DTR_RTS_OUT2);        /* normal operation */
	if (present)
		console_register(&serial_console, true);
	return present;
}

int serial_getc(void)
{
	if (!present || !(inb(COM1 + UART_LSR) & 0x01))        /* LSR bit 0: data ready */
		return -1;
	return inb(COM1 + UART_DATA);
}
