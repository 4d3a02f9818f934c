// SPDX-License-Identifier: MIT
/*
 * host.c - the host side of ktest: printk for the pure modules, a capture
 * of everything printed (see host.h), and made-up physical memory for the
 * allocators. main() is in main.c, so the fuzzers (tests/fuzz/) link this
 * file with their own.
 *
 * The output on stdout is plain KTAP (no timestamp prefix), which
 * tests/run.py reads like a kernel's serial log; sanitizer reports go to
 * stderr. Only what the modules under test call is provided here.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format.h"
#include "io.h"
#include "ksyms.h"
#include "ktest.h"
#include "spinlock.h"
#include "printk.h"
#include "vm.h"
#include "host.h"

/* Physical address p is host_phys_base + p (see include/vm.h). */
u8 *host_phys_base;
bool host_quiet;

static char captured[HOST_LOG_SIZE];
static size_t captured_len;

void host_log_clear(void)
{
	captured_len = 0;
	captured[0] = '\0';
}

const char *host_log(void)
{
	return captured;
}

bool host_log_has(const char *needle)
{
	return strstr(captured, needle) != NULL;
}

size_t host_log_count(const char *needle)
{
	size_t n = 0, step = strlen(needle);
	const char *p = captured;

	if (step == 0)
		return 0;
	while ((p = strstr(p, needle))) {
		n++;
		p += step;
	}
	return n;
}

/* Append text to the capture, dropping the oldest bytes when it is full. */
static void capture(const char *text, size_t len)
{
	const size_t room = sizeof(captured) - 1;

	if (len >= room) {
		text += len - room;
		len = room;
	}
	if (captured_len + len > room) {
		size_t drop = captured_len + len - room;

		memmove(captured, captured + drop, captured_len - drop);
		captured_len -= drop;
	}
	memcpy(captured + captured_len, text, len);
	captured_len += len;
	captured[captured_len] = '\0';
}

/* Strip a KERN_<LEVEL> prefix, as the kernel's printk does. */
static const char *skip_level(const char *fmt)
{
	if (fmt[0] == KERN_SOH[0] && fmt[1] >= '0' && fmt[1] <= '7')
		return fmt + 2;
	return fmt;
}

int vprintk(const char *fmt, va_list ap)
{
	char line[1024];
	char *text = line;
	va_list again;
	int n;

	fmt = skip_level(fmt);
	va_copy(again, ap);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n >= (int)sizeof(line)) {
		text = malloc((size_t)n + 1);
		if (!text) {
			va_end(again);
			abort();
		}
		vsnprintf(text, (size_t)n + 1, fmt, again);
	}
	va_end(again);
	if (!host_quiet)
		fwrite(text, 1, (size_t)n, stdout);
	capture(text, (size_t)n);
	if (text != line)
		free(text);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

int host_run_in_child(void (*fn)(void))
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		fn();
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/*
 * Reserve HOST_PHYS_SIZE bytes of address space without committing memory:
 * a page costs memory only once something touches it, and reads zero.
 */
void host_map_phys(void)
{
	void *p = mmap(NULL, HOST_PHYS_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED) {
		perror("host: mmap of the made-up physical memory");
		exit(2);
	}
	host_phys_base = p;
}

const struct host_mmio_hook *host_mmio_hook;

u64 host_mmio_read(const volatile void *addr, u32 size)
{
	u64 v;

	if (host_mmio_hook && host_mmio_hook->read(addr, size, &v))
		return v;
	switch (size) {
	case 1: return *(const volatile u8 *)addr;
	case 2: return *(const volatile u16 *)addr;
	case 4: return *(const volatile u32 *)addr;
	default: return *(const volatile u64 *)addr;
	}
}

void host_mmio_write(volatile void *addr, u32 size, u64 v)
{
	if (host_mmio_hook && host_mmio_hook->write(addr, size, v))
		return;
	switch (size) {
	case 1: *(volatile u8 *)addr = (u8)v; break;
	case 2: *(volatile u16 *)addr = (u16)v; break;
	case 4: *(volatile u32 *)addr = (u32)v; break;
	default: *(volatile u64 *)addr = v; break;
	}
}

/* A lock taken twice by the one host thread would spin forever: stop loudly. */
void spinlock_recursion(struct spinlock *l)
{
	fprintf(stderr, "spinlock recursion: lock \"%s\" taken while held\n",
		l->name ? l->name : "?");
	abort();
}

/* The host build has no kernel symbol table: every code address is unnamed. */
const char *ksym_lookup(u64 addr, u64 *offset, u64 *size)
{
	(void)addr;
	*offset = *size = 0;
	return NULL;
}
