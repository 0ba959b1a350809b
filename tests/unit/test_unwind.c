/* test_unwind.c — src/catalog/unwind.c and src/profile/tally.c: this test's own stack, taken as the
 * BPF program takes a sample's (the registers, the bytes above sp), unwound through its
 * mappings with libdwfl to _start, every frame named in order (outer_fn, inner_fn, the
 * snapshot, cmocka, main); a copy cut short stops the unwinding at its end, counted as such;
 * the source frames of an address in an inlined copy (catalog/dwarf_frames.c); and the
 * tally counts equal stacks once, different threads, commands, kernel stacks or
 * frames apart; an address no file maps re-reads /proc/PID/maps at most every 100 ms. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <time.h>
#include <sys/mman.h>
#include <inttypes.h>
#include <cmocka.h>
#include "catalog/dwarf.h"
#include "catalog/symbolize.h"
#include "catalog/unwind.h"
#include "profile/tally.h"

#define WINDOW 16384

static struct scry_ustack *snap_rec;
static __u64 snap_regs[SCRY_DWREGS_N];
static uint8_t snap_data[WINDOW];

/* The end of the mapping holding addr (the stack's top), from /proc/self/maps. */
static uint64_t mapping_end(uint64_t addr)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	uint64_t a, b, end = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 "-%" SCNx64, &a, &b) == 2 && addr >= a && addr < b)
			end = b;
	fclose(f);
	return end;
}

/* The registers here and the stack above sp, as the BPF programs copy a stack (other
 * frames' bytes read: no AddressSanitizer check, no intercepted memcpy). */
__attribute__((no_sanitize_address)) static void copy_words(void *dst, const void *src, size_t n)
{
	const volatile unsigned char *s = src;
	unsigned char *d = dst;

	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
}

static __attribute__((noinline)) void snapshot(void)
{
	struct scry_ustack *r = snap_rec;
	uint64_t ip, sp, bp, bx;

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2\n\tmov %%rbx, %3"
			 : "=r"(ip), "=r"(sp), "=r"(bp), "=r"(bx));
	memset(snap_regs, 0, sizeof(snap_regs));
	snap_regs[SCRY_DWREG_IP] = ip;
	snap_regs[SCRY_DWREG_SP] = sp;
	snap_regs[SCRY_DWREG_BP] = bp;
	snap_regs[SCRY_DWREG_BX] = bx;
	r->regs = snap_regs;
	r->data = snap_data;
	r->size = (uint32_t)(mapping_end(sp) - sp < WINDOW ? mapping_end(sp) - sp : WINDOW);
	copy_words(snap_data, (const void *)(uintptr_t)sp, r->size);
	r->pid = r->tgid = (uint32_t)getpid();
	__asm__ volatile("" ::: "memory");
}

static volatile int sink;

static __attribute__((noinline)) void inner_fn(void)
{
	snapshot();
	sink++;                  /* no tail call: inner_fn stays on the stack */
}

static __attribute__((noinline)) void outer_fn(void)
{
	inner_fn();
	sink++;
}

/* The names of ips (symbolized as collect.c does: every frame after the first at its
 * address minus one). */
static unsigned names(struct scry_syms *s, const uint64_t *ips, unsigned n, const char **out)
{
	for (unsigned i = 0; i < n; i++) {
		struct scry_sym_info si;

		out[i] = scry_syms_user_info(s, getpid(), ips[i], i > 0, &si) && si.func ? si.func : "?";
	}
	return n;
}

static int find(const char **v, unsigned n, const char *name, int from)
{
	for (unsigned i = (unsigned)from; i < n; i++)
		if (!strcmp(v[i], name))
			return (int)i;
	return -1;
}

static void test_own_stack(void **state)
{
	struct scry_syms *s = scry_syms_new();
	struct scry_unwinder *u = scry_unwinder_new(s);
	uint64_t ips[SCRY_UNWIND_MAX_DEPTH];
	const char *nm[SCRY_UNWIND_MAX_DEPTH];
	unsigned n;
	int a, b, c, m, st;

	snap_rec = calloc(1, sizeof(*snap_rec));
	outer_fn();
	assert_int_equal(scry_syms_capture(s, getpid(), snap_regs[SCRY_DWREG_IP], NULL), 0);
	n = scry_unwind(u, snap_rec, ips, SCRY_UNWIND_MAX_DEPTH);
	names(s, ips, n, nm);
	a = find(nm, n, "snapshot", 0);
	b = find(nm, n, "inner_fn", a);
	c = find(nm, n, "outer_fn", b);
	m = find(nm, n, "main", c);
	st = find(nm, n, "_start", m);
	if (a != 0 || b != 1 || c != 2 || m < 0 || st != (int)n - 1)
		for (unsigned i = 0; i < n; i++)
			fprintf(stderr, "frame %u: %s %#" PRIx64 "\n", i, nm[i], ips[i]);
	assert_int_equal(a, 0);
	assert_int_equal(b, 1);
	assert_int_equal(c, 2);
	assert_true(m > c);
	assert_int_equal(st, (int)n - 1);
	assert_int_equal(scry_unwinder_stats(u)->ended, 1);
	assert_int_equal(scry_unwinder_stats(u)->frames, n);

	/* the copy cut short under outer_fn's return address: unwinding stops there, for that reason */
	snap_rec->size = 16;
	n = scry_unwind(u, snap_rec, ips, SCRY_UNWIND_MAX_DEPTH);
	assert_true(n >= 1 && n < 3);
	assert_int_equal(scry_unwinder_stats(u)->window, 1);
	assert_int_equal(scry_unwinder_stats(u)->stacks, 2);

	/* an address in no mapping: one frame, counted */
	snap_regs[SCRY_DWREG_IP] = 0x10;
	assert_int_equal(scry_unwind(u, snap_rec, ips, SCRY_UNWIND_MAX_DEPTH), 1);
	assert_int_equal(ips[0], 0x10);
	assert_int_equal(scry_unwinder_stats(u)->nofile, 1);
	free(snap_rec);
	scry_unwinder_free(u);
	scry_syms_free(s);
}

/* A process forgotten (its note: it started or exec'ed) is unwound again by a new session,
 * and so is a new process taking the place the forgotten one leaves: a session's state
 * (attached to its process) does not outlive it.  Other tgids are this process's
 * mappings copied (scry_syms_fork), its stack unwound as theirs. */
static void test_forget(void **state)
{
	struct scry_syms *s = scry_syms_new();
	struct scry_unwinder *u = scry_unwinder_new(s);
	uint64_t ips[SCRY_UNWIND_MAX_DEPTH];
	int self = getpid(), other = self + 1000000, third = self + 2000000;
	unsigned n;

	snap_rec = calloc(1, sizeof(*snap_rec));
	outer_fn();
	assert_int_equal(scry_syms_capture(s, self, snap_regs[SCRY_DWREG_IP], NULL), 0);
	assert_int_equal(scry_syms_fork(s, self, other), 0);
	assert_int_equal(scry_syms_fork(s, self, third), 0);
	n = scry_unwind(u, snap_rec, ips, SCRY_UNWIND_MAX_DEPTH);
	assert_true(n > 4);

	scry_unwinder_forget(u, self);                 /* its only session, ended */
	assert_int_equal(scry_unwind(u, snap_rec, ips, SCRY_UNWIND_MAX_DEPTH), n);

	snap_rec->tgid = (uint32_t)other;              /* a second session */
	assert_int_equal(scry_unwind(u, snap_rec, ips, SCRY_UNWIND_MAX_DEPTH), n);
	scry_unwinder_forget(u, self);                 /* the first ended: the second moves */
	snap_rec->tgid = (uint32_t)third;              /* a new one where the second was */
	assert_int_equal(scry_unwind(u, snap_rec, ips, SCRY_UNWIND_MAX_DEPTH), n);
	snap_rec->tgid = (uint32_t)other;
	assert_int_equal(scry_unwind(u, snap_rec, ips, SCRY_UNWIND_MAX_DEPTH), n);
	assert_int_equal(scry_unwinder_stats(u)->ended, 5);
	assert_int_equal(scry_unwinder_stats(u)->other, 0);
	free(snap_rec);
	scry_unwinder_free(u);
	scry_syms_free(s);
}

/* scry_dwarf_frames on this test's own code: an address inside an inlined copy gives the
 * inlined function at that line, then its caller at the line of the call. */
static int inline_line, call_line;

static inline __attribute__((always_inline)) uint64_t here_inlined(void)
{
	uint64_t pc;

	__asm__ volatile("lea 0(%%rip), %0" : "=r"(pc)); inline_line = __LINE__;
	return pc;
}

static __attribute__((noinline)) uint64_t calls_inlined(void)
{
	uint64_t pc = here_inlined(); call_line = __LINE__;

	sink++;
	return pc;
}

static void test_source_frames(void **state)
{
	struct scry_syms *s = scry_syms_new();
	struct scry_dw_frame fr[8];
	struct scry_sym_file f;
	struct scry_dwarf *d;
	uint64_t pc = calls_inlined();
	char why[256];
	unsigned n;

	assert_int_equal(scry_syms_capture(s, getpid(), pc, NULL), 0);
	assert_true(scry_syms_user_file(s, getpid(), pc, &f));
	d = scry_dwarf_open(f.path, NULL, 0, why, sizeof(why));
	assert_non_null(d);
	n = scry_dwarf_frames(d, pc - f.bias, fr, 8);
	assert_int_equal(n, 2);
	assert_string_equal(fr[0].name, "here_inlined");
	assert_int_equal(fr[0].line, inline_line);
	assert_string_equal(fr[1].name, "calls_inlined");
	assert_int_equal(fr[1].line, call_line);
	assert_non_null(strstr(fr[0].file, "test_unwind.c"));
	assert_int_equal(scry_dwarf_frames(d, 0x10, fr, 8), 0);        /* in no function */
	assert_int_equal(scry_dwarf_frames(d, pc - f.bias, fr, 1), 1);  /* max kept */
	scry_dwarf_close(d);
	scry_syms_free(s);
}

static void test_tally(void **state)
{
	struct scry_tally t;
	uint64_t x[] = { 0x1000, 0x2000, 0x3000 }, y[] = { 0x1000, 0x2000, 0x3001 };

	scry_tally_init(&t);
	for (int i = 0; i < 3; i++)
		assert_int_equal(scry_tally_add(&t, 5, 5, "app", 7, x, 3), 0);
	assert_int_equal(scry_tally_add(&t, 6, 5, "app", 7, x, 3), 0);        /* another thread */
	assert_int_equal(scry_tally_add(&t, 5, 5, "app2", 7, x, 3), 0);       /* another command */
	assert_int_equal(scry_tally_add(&t, 5, 5, "app", -14, x, 3), 0);      /* no kernel stack */
	assert_int_equal(scry_tally_add(&t, 5, 5, "app", 7, y, 3), 0);        /* another frame */
	assert_int_equal(scry_tally_add(&t, 5, 5, "app", 7, x, 2), 0);        /* a shorter stack */
	for (int i = 0; i < 2000; i++) {                                       /* the table grown */
		uint64_t z[] = { (uint64_t)i };
		assert_int_equal(scry_tally_add(&t, 9, 9, "many", 0, z, 1), 0);
	}
	assert_int_equal(scry_tally_add(&t, 5, 5, "app", 7, x, 3), 0);
	assert_int_equal(t.n, 6 + 2000);
	assert_int_equal(t.e[0].count, 4);
	assert_int_equal(t.e[0].n, 3);
	assert_memory_equal(scry_tally_ips(&t, &t.e[0]), x, sizeof(x));
	for (size_t i = 1; i < t.n; i++)
		assert_int_equal(t.e[i].count, 1);
	assert_string_equal(t.e[2].comm, "app2");
	scry_tally_free(&t);
}

/* An address in no file mapping (heap) does not re-read the process's maps at each event:
 * a file mapped right after a read is placed only once 100 ms have passed; the mapping found
 * last answers first, and a later mapping of the same process is still found. */
static void test_capture_rereads(void **state)
{
	struct scry_syms *s = scry_syms_new();
	FILE *out = tmpfile();
	char *heap = malloc(64), line[4608];
	int fd = open("/proc/self/exe", O_RDONLY), self = getpid(), lines = 0;
	uint64_t own = (uint64_t)(uintptr_t)test_capture_rereads;
	struct timespec wait = { 0, 120 * 1000000L };
	void *m, *m2;

	assert_non_null(out);
	assert_true(fd >= 0);
	assert_int_equal(scry_syms_capture(s, self, own, out), 0);              /* read once */
	assert_int_equal(scry_syms_capture(s, self, (uint64_t)(uintptr_t)heap, out), -1);
	m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	assert_true(m != MAP_FAILED);
	/* maps read moments ago: not again, so the new mapping is not seen yet */
	assert_int_equal(scry_syms_capture(s, self, (uint64_t)(uintptr_t)m + 8, out), -1);
	rewind(out);
	while (fgets(line, sizeof(line), out))
		lines++;
	fseek(out, 0, SEEK_END);
	nanosleep(&wait, NULL);
	assert_int_equal(scry_syms_capture(s, self, (uint64_t)(uintptr_t)m + 8, out), 0);   /* read again */
	assert_true(scry_syms_mapped(s, self, (uint64_t)(uintptr_t)m + 8));
	assert_int_equal(scry_syms_capture(s, self, own, out), 0);              /* known: no read */
	rewind(out);
	int after = 0;
	while (fgets(line, sizeof(line), out))
		after++;
	assert_true(lines > 0);
	assert_int_equal(after, lines + 1);     /* the one new mapping appended, nothing else */
	/* a miss moments after a read is not read again, but every mapping (addr 0: a process's
	 * first sample, its exec) is read at once */
	m2 = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 4096);
	assert_true(m2 != MAP_FAILED);
	assert_int_equal(scry_syms_capture(s, self, (uint64_t)(uintptr_t)heap, NULL), -1);   /* a read */
	assert_int_equal(scry_syms_capture(s, self, (uint64_t)(uintptr_t)m2 + 8, NULL), -1);
	assert_false(scry_syms_mapped(s, self, (uint64_t)(uintptr_t)m2 + 8));
	scry_syms_capture(s, self, 0, NULL);
	assert_true(scry_syms_mapped(s, self, (uint64_t)(uintptr_t)m2 + 8));
	munmap(m2, 4096);
	munmap(m, 4096);
	close(fd);
	free(heap);
	fclose(out);
	scry_syms_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_stack),
		cmocka_unit_test(test_forget),
		cmocka_unit_test(test_source_frames),
		cmocka_unit_test(test_tally),
		cmocka_unit_test(test_capture_rereads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
