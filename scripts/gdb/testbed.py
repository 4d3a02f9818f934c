# SPDX-License-Identifier: MIT
"""testbed.py - gdb helpers for testbed (loaded by make debug).

  tb-cpus      every CPU: APIC ID, node, online, running thread, ticks,
               preempt count, need_resched
  tb-rq        every CPU's run queue: the threads waiting, in order
  tb-rcu       RCU's control block and every CPU's part: the batch it looks
               for, its quiescent-state flags, its queue
  tb-swiotlb   the bounce pool: where, slabs in use, statistics

They read the kernel's own variables (percpu[], runqueues[] in sched.c,
rcp and rcu_data[] in rcu.c, mem and cpu_stats in swiotlb.c), so they work on a halted
machine, at a breakpoint or after Ctrl-C.
"""
import gdb


def static(name, file):
    """A file-scope variable: name in file (sched.c, rcu.c, ...)."""
    return gdb.parse_and_eval(f"'{file}'::{name}")


def nr_cpus():
    return int(gdb.parse_and_eval('nr_cpus'))


def thread_name(t):
    if int(t) == 0:
        return '-'
    return t['name'].string()


class Cpus(gdb.Command):
    """tb-cpus: every CPU, what it runs."""

    def __init__(self):
        super().__init__('tb-cpus', gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        percpu = gdb.parse_and_eval('percpu')
        for cpu in range(nr_cpus()):
            pc = percpu[cpu]
            print(f"cpu {cpu}: apic {int(pc['apic_id'])} node {int(pc['node'])} "
                  f"{'online' if pc['online'] else 'offline'} running {thread_name(pc['current'])} "
                  f"ticks {int(pc['ticks'])} preempt {int(pc['preempt_count'])} "
                  f"need_resched {int(pc['need_resched'])}")


class RunQueues(gdb.Command):
    """tb-rq: the threads waiting on every CPU's run queue."""

    def __init__(self):
        super().__init__('tb-rq', gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        rqs = static('runqueues', 'sched.c')
        thread_t = gdb.lookup_type('struct thread')
        offset = [f.bitpos // 8 for f in thread_t.fields() if f.name == 'rq_link'][0]
        for cpu in range(nr_cpus()):
            rq = rqs[cpu]
            head = rq['queue'].address
            node = rq['queue']['next']
            names = []
            while int(node) != int(head) and len(names) < 64:
                t = (node.cast(gdb.lookup_type('char').pointer()) - offset).cast(thread_t.pointer())
                names.append(f"{thread_name(t)}({int(t['tid'])})")
                node = node['next']
            print(f"cpu {cpu}: {int(rq['nr_queued'])} queued, {int(rq['switches'])} switches: "
                  + (' '.join(names) or '(empty)'))


class Rcu(gdb.Command):
    """tb-rcu: the control block and every CPU's RCU state."""

    def __init__(self):
        super().__init__('tb-rcu', gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        rcp = static('rcp', 'rcu.c')
        data = static('rcu_data', 'rcu.c')
        print(f"rcu: cur {int(rcp['cur'])} completed {int(rcp['completed'])} "
              f"owing 0x{int(rcp['cpumask']['bits'][0]):x} signaled {int(rcp['signaled'])} "
              f"forcing rounds {int(rcp['fqs_rounds'])}")
        for cpu in range(nr_cpus()):
            d = data[cpu]
            print(f"cpu {cpu}: looks for {int(d['quiescbatch'])} pending {int(d['qs_pending'])} "
                  f"passed {int(d['passed_quiesc'])} qlen {int(d['qlen'])} blimit {int(d['blimit'])} "
                  f"curlist waits for {int(d['batch'])}")


class Swiotlb(gdb.Command):
    """tb-swiotlb: the bounce pool."""

    def __init__(self):
        super().__init__('tb-swiotlb', gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        mem = static('mem', 'swiotlb.c')
        if not mem['ready']:
            print('swiotlb: no pool')
            return
        for i in range(int(mem['npools'])):
            p = mem['pools'][i]
            w, slots = p['where'], p['slots']
            areas = [slots['areas'][a] for a in range(int(slots['nareas']))]
            used = sum(int(a['used']) for a in areas)
            print(f"swiotlb: 0x{int(w['base']):x}-0x{int(w['base']) + int(w['size']):x} node {int(w['node'])}: "
                  f"{used} of {int(slots['nslabs'])} slabs in use, {len(areas)} areas "
                  f"(used: {' '.join(str(int(a['used'])) for a in areas)})")
        cpu_stats = static('cpu_stats', 'swiotlb.c')
        ncpus = int(gdb.parse_and_eval('nr_cpus'))
        total = {f: sum(int(cpu_stats[c][f]) for c in range(ncpus))
                 for f in ('maps', 'unmaps', 'bytes_copied', 'full')}
        print(f"swiotlb: {total['maps']} maps, {total['unmaps']} unmaps, "
              f"{total['bytes_copied']} bytes copied, {total['full']} refused")

Cpus()
RunQueues()
Rcu()
Swiotlb()
print('testbed: tb-cpus, tb-rq, tb-rcu, tb-swiotlb')
