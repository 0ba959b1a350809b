/* unwind.c — user stacks from a stack copy and registers, with libdwfl (see unwind.h).
 * Each process has a Dwfl to which a file is reported, at its load bias, when a frame's
 * address first falls in it (perf's way); libdwfl then finds the frame's CFI there and asks
 * for the registers (the sample's) and the memory the CFI names: the stack copy, or for
 * an address outside it the mapped file's bytes. */
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "catalog/unwind.h"

#define MAX_PROCS 512            /* Dwfl sessions kept; the least recently used is ended */
#define REREAD_NS 100000000ULL   /* an unknown address rereads /proc/PID/maps at most every 100 ms */

struct proc {
	int tgid;
	Dwfl *dwfl;
	bool attached;
	uint64_t used;           /* the unwinder's tick at its last sample */
	uint64_t reread_ns;      /* when its mappings were last read again */
};

enum stop { STOP_NONE, STOP_NOFILE, STOP_DEPTH };

struct scry_unwinder {
	struct scry_syms *syms;
	struct proc procs[MAX_PROCS];
	size_t nprocs;
	uint64_t tick;
	/* the sample being unwound */
	const struct scry_ustack *cur;
	struct proc *cp;
	uint64_t *ips;
	unsigned n, max;
	enum stop stop;
	bool window_miss;        /* a read fell outside the stack's copy and every file */
	struct scry_unwind_stats st;
};

/* No separate debug files searched while unwinding: .eh_frame is in every file, and the
 * default search may ask a debuginfod server over the network. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	return -1;
}

static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

struct scry_unwinder *scry_unwinder_new(struct scry_syms *syms)
{
	struct scry_unwinder *u = calloc(1, sizeof(*u));

	if (u)
		u->syms = syms;
	return u;
}

void scry_unwinder_free(struct scry_unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nprocs; i++)
		dwfl_end(u->procs[i].dwfl);
	free(u);
}

void scry_unwinder_forget(struct scry_unwinder *u, int tgid)
{
	for (size_t i = 0; i < u->nprocs; i++)
		if (u->procs[i].tgid == tgid) {
			dwfl_end(u->procs[i].dwfl);
			u->procs[i] = u->procs[--u->nprocs];
			return;
		}
}

const struct scry_unwind_stats *scry_unwinder_stats(const struct scry_unwinder *u)
{
	return &u->st;
}

/* tgid's session, made (or taking the least recently used one's place) when new. */
static struct proc *proc_get(struct scry_unwinder *u, int tgid)
{
	struct proc *p = NULL;

	for (size_t i = 0; i < u->nprocs; i++)
		if (u->procs[i].tgid == tgid) {
			u->procs[i].used = ++u->tick;
			return &u->procs[i];
		}
	if (u->nprocs < MAX_PROCS) {
		p = &u->procs[u->nprocs];
	} else {
		p = &u->procs[0];
		for (size_t i = 1; i < u->nprocs; i++)
			if (u->procs[i].used < p->used)
				p = &u->procs[i];
		dwfl_end(p->dwfl);
	}
	/* every field anew: a slot past nprocs still holds what scry_unwinder_forget moved out
	 * of it (a session marked attached would never be attached again) */
	*p = (struct proc){ .tgid = tgid, .used = ++u->tick };
	if (!(p->dwfl = dwfl_begin(&dwfl_cbs)))
		return NULL;
	if (p == &u->procs[u->nprocs])
		u->nprocs++;
	return p;
}

/* The file holding addr reported to p's session (at most once).  false when no captured
 * mapping holds it, even after reading the process's mappings again. */
static bool report(struct scry_unwinder *u, struct proc *p, uint64_t addr)
{
	struct scry_sym_file f;
	Dwfl_Module *m;
	const char *base;

	if (dwfl_addrmodule(p->dwfl, addr))
		return true;
	if (!scry_syms_user_file(u->syms, p->tgid, addr, &f)) {
		uint64_t t = now_ns();

		if (t - p->reread_ns < REREAD_NS)
			return false;
		p->reread_ns = t;
		if (scry_syms_capture(u->syms, p->tgid, addr, NULL) || !scry_syms_user_file(u->syms, p->tgid, addr, &f))
			return false;
	}
	base = strrchr(f.path, '/');
	m = dwfl_report_elf(p->dwfl, base ? base + 1 : f.path, f.path, -1, f.bias, true);
	dwfl_report_end(p->dwfl, NULL, NULL);
	return m && dwfl_addrmodule(p->dwfl, addr) == m;
}

/* A word of a mapped file at addr (its bytes on disk: code, read-only data). */
static bool file_word(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *out)
{
	Dwfl_Module *m = dwfl_addrmodule(dwfl, addr);
	GElf_Addr bias;
	Elf *elf;
	size_t n;

	if (!m || !(elf = dwfl_module_getelf(m, &bias)) || elf_getphdrnum(elf, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		Elf_Data *d;
		uint64_t va = addr - bias;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || va < ph.p_vaddr ||
		    va + sizeof(*out) > ph.p_vaddr + ph.p_filesz)
			continue;
		if (!(d = elf_getdata_rawchunk(elf, (int64_t)(ph.p_offset + va - ph.p_vaddr), sizeof(*out), ELF_T_BYTE)))
			return false;
		memcpy(out, d->d_buf, sizeof(*out));
		return true;
	}
	return false;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct scry_unwinder *u = arg;
	const struct scry_ustack *r = u->cur;
	uint64_t sp = r->regs[SCRY_DWREG_SP];

	if (addr >= sp && addr + sizeof(*result) > addr && addr + sizeof(*result) <= sp + r->size) {
		memcpy(result, r->data + (addr - sp), sizeof(*result));
		return true;
	}
	if (file_word(dwfl, addr, result))
		return true;
	u->window_miss = true;
	return false;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return true;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct scry_unwinder *u = arg;

	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return (pid_t)u->cur->pid;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct scry_unwinder *u = arg;
	Dwarf_Word regs[SCRY_DWREGS_N];

	for (int i = 0; i < SCRY_DWREGS_N; i++)
		regs[i] = u->cur->regs[i];
	return dwfl_thread_state_registers(thread, 0, SCRY_DWREGS_N, regs);
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct scry_unwinder *u = arg;
	Dwarf_Addr pc;
	bool act;

	if (!dwfl_frame_pc(state, &pc, &act))
		return DWARF_CB_ABORT;
	if (u->n == u->max) {
		u->stop = STOP_DEPTH;
		return DWARF_CB_ABORT;
	}
	u->ips[u->n] = u->n && act ? pc + 1 : pc;
	u->n++;
	/* the file of the caller's call instruction: where libdwfl looks for its CFI */
	if (!report(u, u->cp, act ? pc : pc - 1)) {
		u->stop = STOP_NOFILE;
		return DWARF_CB_ABORT;
	}
	u->window_miss = false;
	return DWARF_CB_OK;
}

unsigned scry_unwind(struct scry_unwinder *u, const struct scry_ustack *r, uint64_t *ips, unsigned max)
{
	uint64_t ip = r->regs[SCRY_DWREG_IP];
	struct proc *p;
	int rc;

	if (!ip || !max)
		return 0;
	u->st.stacks++;
	ips[0] = ip;
	if (!(p = proc_get(u, (int)r->tgid)) || !report(u, p, ip)) {
		u->st.nofile++;
		u->st.frames++;
		return 1;
	}
	if (!p->attached) {
		u->cur = r;
		if (!dwfl_attach_state(p->dwfl, NULL, (pid_t)r->tgid, &thread_cbs, u)) {
			u->st.other++;
			u->st.frames++;
			return 1;
		}
		p->attached = true;
	}
	u->cur = r;
	u->cp = p;
	u->ips = ips;
	u->n = 0;
	u->max = max;
	u->stop = STOP_NONE;
	u->window_miss = false;
	rc = dwfl_getthread_frames(p->dwfl, (pid_t)r->pid, frame_cb, u);
	if (!u->n) {
		ips[0] = ip;
		u->n = 1;
	}
	/* a return address that cannot be read ends the unwinding as an outermost frame would
	 * (libdwfl returns 0): the window tells them apart */
	if (u->stop == STOP_NOFILE)
		u->st.nofile++;
	else if (u->stop == STOP_DEPTH)
		u->st.depth++;
	else if (u->window_miss)
		u->st.window++;
	else if (rc == 0)
		u->st.ended++;
	else
		u->st.other++;
	u->st.frames += u->n;
	u->cur = NULL;
	return u->n;
}
