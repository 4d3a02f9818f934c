// SPDX-License-Identifier: MIT
/*
 * user.c - user mode: the address space, entering and leaving it, system
 * calls (see user.h).
 *
 * Entering: user_task_run() saves its context with kjmp_set() and calls
 * user_enter() (entry.asm), which records the stack pointer as the
 * thread's kernel stack for user mode (thread->kstack_user, this CPU's
 * TSS.RSP0 and SYSCALL stack; the scheduler sets both again whenever it
 * switches to the thread) and irets to the program. Every trap from user
 * mode lands below that point, so user_task_run()'s frame survives.
 *
 * Leaving: exit() and a fault rewrite the trap frame to "return" into
 * kjmp_set()'s second return (trap_resume_at()), on user_task_run()'s own
 * stack, in the kernel, interrupts on.
 *
 * Invariants:
 *   - only pages mapped by this file have the user bit (vm_map_user());
 *   - a stack slot's pages stay mapped once mapped, counted as kept by the
 *     vm (no CPU can hold a stale TLB entry for a page given to another
 *     use); a reused slot is zeroed before its next task sees it;
 *   - the kernel reads user memory only through copy_from_user() (under
 *     fault_catch(), with SMAP's AC flag set for the copy) or through the
 *     direct map of pages it owns (the scratch, the shared page).
 */
#include "user.h"
#include "cpu.h"
#include "format.h"
#include "kstring.h"
#include "page_alloc.h"
#include "percpu.h"
#include "printk.h"
#include "sched.h"
#include "slab.h"
#include "spinlock.h"
#include "vfs.h"
#include "vm.h"
#include "x86.h"

#define USER_SLOTS (2 * MAX_CPUS)
#define STACK_ORDER 2                   /* 16 KiB: USER_STACK_SIZE */
BUILD_BUG_ON((PAGE_SIZE << STACK_ORDER) != USER_STACK_SIZE);

extern const char __user_text_start[], __user_text_end[];

/* What user_enter() loads (entry.asm reads it by offset). */
struct user_regs {
	u64 rip, rsp, rdi, rsi, rdx;
};
void user_enter(const struct user_regs *r, u64 *thread_kstack, void *tss_rsp0) __noreturn;
void syscall_entry(void);

struct user_task {
	char name[24];
	u32 slot;
	struct file *fds[USER_MAX_FDS];
	struct kjmp exit_jmp;           /* user_task_run()'s context, for exit and kills */
	long status;
	u64 syscalls;
	u64 fault;                      /* vector + 1 of the fault that killed it; 0: none */
};

static struct spinlock slot_lock = SPINLOCK_INIT("user slots");
static u64 slot_used[USER_SLOTS / 64];
static u64 slot_stack_pa[USER_SLOTS];  /* the slot's stack pages; 0: never mapped */
static void *shared_page;
static bool smap_on;

static u64 slot_top(u32 slot)
{
	return USER_STACKS + (u64)(slot + 1) * USER_SLOT_SIZE;
}

u64 user_program_va(const void *program)
{
	return USER_TEXT + (u64)((const char *)program - __user_text_start);
}

void *user_shared(void)
{
	return shared_page;
}

void user_init(void)
{
	u64 text = (u64)(__user_text_end - __user_text_start);

	if (text > USER_SHARED - USER_TEXT ||
	    (text && !vm_map_user(USER_TEXT, virt_to_phys(__user_text_start), text, false, true))) {
		pr_err("user: cannot map the programs (%llu bytes); user mode is off\n", text);
		return;
	}
	struct page *pg = alloc_pages(0, NODE_ANY, ALLOC_ZERO);
	if (!pg || !vm_map_user(USER_SHARED, page_to_phys(pg), PAGE_SIZE, false, false)) {
		pr_err("user: no shared page; user mode is off\n");
		if (pg)
			free_pages(pg, 0);
		return;
	}
	vm_count_kept(page_to_phys(pg), 1);
	shared_page = page_address(pg);
	pr_info("user: programs at 0x%llx (%llu bytes), SYSCALL, SMEP %s, SMAP %s\n", USER_TEXT,
		text, cpu_info.smep ? "on" : "unavailable", cpu_info.smap ? "on" : "unavailable");
}

void user_cpu_init(void)
{
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	wrmsr(MSR_STAR, (u64)USER_BASE_SEL << 48 | (u64)KERNEL_CS << 32);
	wrmsr(MSR_LSTAR, (u64)syscall_entry);
	wrmsr(MSR_SFMASK, RFLAGS_IF | RFLAGS_DF | RFLAGS_TF | RFLAGS_AC);
	wrmsr(MSR_KERNEL_GS_BASE, 0);   /* user mode's GS base, swapped in by SWAPGS */
	u64 cr4 = read_cr4();
	if (cpu_info.smep)
		cr4 |= CR4_SMEP;
	if (cpu_info.smap) {
		cr4 |= CR4_SMAP;
		smap_on = true;
	}
	write_cr4(cr4);
}

/* --- tasks ------------------------------------------------------------------ */

static bool map_slot(u32 slot)
{
	struct page *pg = alloc_pages(STACK_ORDER, NODE_ANY, ALLOC_ZERO);

	if (!pg)
		return false;
	if (!vm_map_user(slot_top(slot) - USER_STACK_SIZE, page_to_phys(pg), USER_STACK_SIZE, true,
			 false)) {
		free_pages(pg, STACK_ORDER);
		return false;
	}
	vm_count_kept(page_to_phys(pg), 1 << STACK_ORDER);
	slot_stack_pa[slot] = page_to_phys(pg);
	return true;
}

struct user_task *user_task_create(const char *name)
{
	if (!shared_page)
		return NULL;
	struct user_task *u = kmalloc(sizeof(*u), 0);
	if (!u)
		return NULL;
	memset(u, 0, sizeof(*u));
	kstrlcpy(u->name, name, sizeof(u->name));

	u64 flags = spin_lock_irqsave(&slot_lock);
	u32 slot = USER_SLOTS;
	for (u32 i = 0; i < USER_SLOTS; i++) {
		if (!(slot_used[i / 64] & (1UL << (i % 64)))) {
			slot_used[i / 64] |= 1UL << (i % 64);
			slot = i;
			break;
		}
	}
	spin_unlock_irqrestore(&slot_lock, flags);
	if (slot == USER_SLOTS) {
		pr_err("user: no stack slot left for %s\n", name);
		kfree(u);
		return NULL;
	}
	u->slot = slot;
	if (slot_stack_pa[slot])
		memset(phys_to_virt(slot_stack_pa[slot]), 0, USER_STACK_SIZE);
	else if (!map_slot(slot)) {
		pr_err("user: no memory for %s's stack\n", name);
		user_task_destroy(u);
		return NULL;
	}
	return u;
}

void user_task_destroy(struct user_task *u)
{
	if (!u)
		return;
	for (u32 fd = 0; fd < USER_MAX_FDS; fd++)
		if (u->fds[fd])
			file_close(u->fds[fd]);
	u64 flags = spin_lock_irqsave(&slot_lock);
	slot_used[u->slot / 64] &= ~(1UL << (u->slot % 64));
	spin_unlock_irqrestore(&slot_lock, flags);
	kfree(u);
}

void *user_task_scratch(struct user_task *u)
{
	return phys_to_virt(slot_stack_pa[u->slot] + USER_STACK_SIZE - USER_SCRATCH_SIZE);
}

u64 user_task_scratch_va(const struct user_task *u)
{
	return slot_top(u->slot) - USER_SCRATCH_SIZE;
}

u64 user_task_syscalls(const struct user_task *u)
{
	return u->syscalls;
}

u64 user_task_fault(const struct user_task *u)
{
	return u->fault;
}

long user_task_run(struct user_task *u, const void *program, u64 a0, u64 a1, u64 a2)
{
	struct thread *t = current_thread();
	struct user_regs r = {
		.rip = user_program_va(program),
		.rsp = user_task_scratch_va(u),         /* the stack grows down from the scratch */
		.rdi = a0, .rsi = a1, .rdx = a2,
	};

	if ((const char *)program < __user_text_start || (const char *)program >= __user_text_end) {
		pr_err("user: %s: the program is not in .user_text\n", u->name);
		return USER_KILLED;
	}
	t->user = u;
	u->status = 0;
	if (kjmp_set(&u->exit_jmp) == 0) {
		cli();
		/* TSS.rsp[0] sits at offset 4 of the packed TSS: unaligned, as the CPU wants it. */
		user_enter(&r, &t->kstack_user, (u8 *)&this_cpu()->tables.tss + offsetof(struct tss, rsp));
	}
	/* Back from exit() or a kill (trap_resume_at()), interrupts on. */
	t = current_thread();
	t->kstack_user = 0;
	t->user = NULL;
	return u->status;
}

/* Leave user mode for good: the frame returns into user_task_run(). */
static void end_task(struct trap_frame *f, struct user_task *u, long status)
{
	u->status = status;
	trap_resume_at(f, &u->exit_jmp);
	f->rflags = RFLAGS_IF | 2;      /* whatever the program did to its flags */
}

void user_fault(struct trap_frame *f)
{
	struct user_task *u = current_thread()->user;

	if (!u)
		trap_panic(f);          /* user mode without a task: cannot happen */
	if (f->vector == VEC_PF)
		pr_err("user: %s killed: %s at 0x%llx (%s), rip 0x%llx\n", u->name,
		       trap_name((unsigned)f->vector), read_cr2(),
		       f->error_code & PF_PRESENT ? "protection" : "not mapped", f->rip);
	else
		pr_err("user: %s killed: %s, rip 0x%llx\n", u->name, trap_name((unsigned)f->vector),
		       f->rip);
	u->fault = f->vector + 1;
	end_task(f, u, USER_KILLED);
}

/* --- reaching user memory ------------------------------------------------------ */

struct user_copy {
	void *dst;
	u64 src, len;
	bool string;            /* stop after a NUL */
	u64 copied;
};

static void do_copy(void *arg)
{
	struct user_copy *c = arg;
	u8 *dst = c->dst;
	const volatile u8 *src = (const volatile u8 *)c->src;

	if (smap_on)
		__asm__ volatile("stac" ::: "memory");
	for (c->copied = 0; c->copied < c->len; c->copied++) {
		dst[c->copied] = src[c->copied];
		if (c->string && !dst[c->copied])
			break;
	}
	if (smap_on)
		__asm__ volatile("clac" ::: "memory");
}

static int user_copy(struct user_copy *c)
{
	struct fault_info fi;

	if (c->src >= USER_TOP || c->len > USER_TOP - c->src)
		return -EFAULT;
	if (fault_catch(do_copy, c, &fi)) {
		if (smap_on)
			__asm__ volatile("clac" ::: "memory");
		return -EFAULT;
	}
	return 0;
}

int copy_from_user(void *dst, u64 src, u64 len)
{
	struct user_copy c = { .dst = dst, .src = src, .len = len };

	return user_copy(&c);
}

/* A NUL-terminated string of at most size - 1 characters; its length, or -errno. */
static long string_from_user(char *dst, u64 src, u64 size)
{
	struct user_copy c = { .dst = dst, .src = src, .len = size, .string = true };
	int err = user_copy(&c);

	if (err)
		return err;
	if (c.copied == size)
		return -ENAMETOOLONG;
	return (long)c.copied;
}

/* --- system calls ----------------------------------------------------------- */

static long sys_write(struct user_task *u, u64 fd, u64 buf, u64 len)
{
	char text[128];

	if (fd != 1 && fd != 2)
		return -EBADF;
	u64 n = MIN(len, sizeof(text) - 1);
	if (copy_from_user(text, buf, n))
		return -EFAULT;
	text[n] = 0;
	if (n && text[n - 1] == '\n')
		text[n - 1] = 0;
	pr_info("user: %s: %s\n", u->name, text);
	return (long)len;
}

static long sys_open(struct user_task *u, u64 path_va)
{
	char path[64];
	long n = string_from_user(path, path_va, sizeof(path));
	int err;

	if (n < 0)
		return n;
	for (u32 fd = 0; fd < USER_MAX_FDS; fd++) {
		if (u->fds[fd])
			continue;
		struct file *f = file_open(path, &err);
		if (!f)
			return err;
		u->fds[fd] = f;
		return fd;
	}
	return -EMFILE;
}

static long sys_close(struct user_task *u, u64 fd)
{
	if (fd >= USER_MAX_FDS || !u->fds[fd])
		return -EBADF;
	struct file *f = u->fds[fd];
	u->fds[fd] = NULL;
	file_close(f);
	return 0;
}

void syscall_dispatch(struct trap_frame *f)
{
	struct thread *t = current_thread();
	struct user_task *u = t->user;
	long ret;

	u->syscalls++;
	switch (f->rax) {
	case SYS_WRITE:
		ret = sys_write(u, f->rdi, f->rsi, f->rdx);
		break;
	case SYS_OPEN:
		ret = sys_open(u, f->rdi);
		break;
	case SYS_CLOSE:
		ret = sys_close(u, f->rdi);
		break;
	case SYS_SCHED_YIELD:
		yield();
		ret = 0;
		break;
	case SYS_GETPID:
		ret = t->tid;
		break;
	case SYS_EXIT:
		end_task(f, u, (long)(int)f->rdi);
		return;
	default:
		ret = -ENOSYS;
	}
	f->rax = (u64)ret;
	cond_resched();         /* on the way back to user mode, as Linux's syscall exit */
}
