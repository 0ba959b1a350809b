/* ctf_test_util.h — shared by the CTF writer tests: a hand-built event set (static
 * struct scry_event, no catalog needed), an event byte builder in the CTF layout of
 * docs/FORMAT.md, little/big-endian readers and temp-directory helpers. */
#ifndef CTF_TEST_UTIL_H
#define CTF_TEST_UTIL_H

#include <assert.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "ctf/metadata.h"
#include "ctf/stream.h"

#define I64(n)  { (char *)(n), SCRY_F_INT, 8, true, 10, 0, -1, SCRY_SRC_NONE, 0, 0 }
#define U64(n)  { (char *)(n), SCRY_F_INT, 8, false, 10, 0, -1, SCRY_SRC_NONE, 0, 0 }
#define X64(n)  { (char *)(n), SCRY_F_INT, 8, false, 16, 0, -1, SCRY_SRC_NONE, 0, 0 }
#define I32(n)  { (char *)(n), SCRY_F_INT, 4, true, 10, 0, -1, SCRY_SRC_NONE, 0, 0 }
#define U32(n)  { (char *)(n), SCRY_F_INT, 4, false, 10, 0, -1, SCRY_SRC_NONE, 0, 0 }
#define U16(n)  { (char *)(n), SCRY_F_INT, 2, false, 10, 0, -1, SCRY_SRC_NONE, 0, 0 }
#define U8(n)   { (char *)(n), SCRY_F_INT, 1, false, 10, 0, -1, SCRY_SRC_NONE, 0, 0 }
#define STR(n)  { (char *)(n), SCRY_F_STRING, 1, false, 10, 0, -1, SCRY_SRC_NONE, 0, 0 }
#define TEXT(n, c) { (char *)(n), SCRY_F_TEXT, 1, false, 10, c, -1, SCRY_SRC_NONE, 0, 0 }
#define XARR(n, c) { (char *)(n), SCRY_F_ARRAY, 8, false, 16, c, -1, SCRY_SRC_NONE, 0, 0 }
#define SEQ32(n, lf) { (char *)(n), SCRY_F_SEQ, 4, true, 10, 0, lf, SCRY_SRC_NONE, 0, 0 }

static struct scry_field t_openat_f[] = { I64("dfd"), STR("filename"), I64("flags"), U64("mode") };
static struct scry_field t_exit_f[] = { I64("ret") };
static struct scry_field t_switch_f[] = {
	TEXT("prev_comm", 16), I32("prev_tid"), I32("prev_prio"), I64("prev_state"),
	TEXT("next_comm", 16), I32("next_tid"), I32("next_prio"),
};
static struct scry_field t_unknown_f[] = { I64("id"), XARR("args", 6) };
static struct scry_field t_fork_f[] = {
	TEXT("parent_comm", 16), I32("parent_tid"), I32("parent_pid"), U32("parent_ns_inum"),
	TEXT("child_comm", 16), I32("child_tid"), U8("_vtids_length"), SEQ32("vtids", 6),
	I32("child_pid"), U32("child_ns_inum"),
};
static struct scry_field t_small_f[] = { U16("irq"), U8("flag"), STR("name") };

#define T_EV(nm, sys, tpn, k, f) { (char *)(nm), (char *)(sys), (char *)(tpn), k, -1, \
	sizeof(f) / sizeof((f)[0]), f, 0, 0, 0, 0 }
static struct scry_event t_ev_openat = T_EV("syscall_entry_openat", "syscalls", "openat",
					    SCRY_EV_SYSCALL_ENTRY, t_openat_f);
static struct scry_event t_ev_openat_exit = T_EV("syscall_exit_openat", "syscalls", "openat",
						 SCRY_EV_SYSCALL_EXIT, t_exit_f);
static struct scry_event t_ev_switch = T_EV("sched_switch", "sched", "sched_switch",
					    SCRY_EV_TRACEPOINT, t_switch_f);
static struct scry_event t_ev_unknown = T_EV("syscall_entry_unknown", "syscalls", "unknown",
					     SCRY_EV_BUILTIN, t_unknown_f);
static struct scry_event t_ev_fork = T_EV("sched_process_fork", "sched", "sched_process_fork",
					  SCRY_EV_BUILTIN, t_fork_f);
static struct scry_event t_ev_small = T_EV("irq_test_small", "irq", "irq_test_small",
					   SCRY_EV_TRACEPOINT, t_small_f);
static struct scry_event t_ev_empty = { (char *)"scry_empty", (char *)"scry", (char *)"empty",
					SCRY_EV_BUILTIN, -1, 0, NULL, 0, 0, 0, 0 };

enum { T_OPENAT, T_OPENAT_EXIT, T_SWITCH, T_UNKNOWN, T_FORK, T_SMALL, T_EMPTY, T_NEVENTS };
static const struct scry_event *const t_events[T_NEVENTS] = {
	&t_ev_openat, &t_ev_openat_exit, &t_ev_switch, &t_ev_unknown, &t_ev_fork, &t_ev_small,
	&t_ev_empty,
};

static const uint8_t t_uuid[16] = { 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
				    0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
static const uint8_t t_clock_uuid[16] = { 0xaa, 0xbb, 0xcc, 0xdd, 1, 2, 3, 4,
					  5, 6, 7, 8, 9, 10, 11, 12 };

/* --- event bytes ------------------------------------------------------------------ */
struct ebuf {
	uint8_t b[8192];
	size_t n;
};

static inline void eb_bytes(struct ebuf *e, const void *p, size_t len)
{
	memcpy(e->b + e->n, p, len);
	e->n += len;
}
static inline void eb_u8(struct ebuf *e, uint8_t v) { eb_bytes(e, &v, 1); }
static inline void eb_u16(struct ebuf *e, uint16_t v) { eb_bytes(e, &v, 2); }
static inline void eb_u32(struct ebuf *e, uint32_t v) { eb_bytes(e, &v, 4); }
static inline void eb_u64(struct ebuf *e, uint64_t v) { eb_bytes(e, &v, 8); }
static inline void eb_str(struct ebuf *e, const char *s) { eb_bytes(e, s, strlen(s) + 1); }
static inline void eb_text(struct ebuf *e, const char *s, size_t count)
{
	uint8_t t[256] = { 0 };   /* the longest text context: hostname, 65 */
	size_t n = strnlen(s, count < sizeof(t) ? count : sizeof(t));

	assert(count <= sizeof(t));
	memcpy(t, s, n);        /* count bytes, NUL-padded; no NUL if s fills them */
	eb_bytes(e, t, count);
}

/* Header and the contexts of mask: context c gets the value base + c (procname: comm). */
static inline void eb_start(struct ebuf *e, uint16_t id, uint64_t ts, uint64_t mask,
			    int32_t base, const char *comm)
{
	e->n = 0;
	eb_u16(e, id);
	eb_u64(e, ts);
	for (int c = 0; c < SCRY_CTX_NR; c++) {
		const struct scry_context_desc *d = scry_context((enum scry_ctx)c);

		if (!(mask & (1ULL << c)))
			continue;
		if (d->type == SCRY_F_TEXT)
			eb_text(e, comm, d->count);
		else if (d->size == 8)
			eb_u64(e, (uint64_t)(base + c));
		else if (d->size == 1)
			e->b[e->n++] = (uint8_t)(base + c);
		else
			eb_u32(e, (uint32_t)(base + c));
	}
}

/* --- reading back ----------------------------------------------------------------- */
static inline uint64_t rd_le(const uint8_t *p, int bytes)
{
	uint64_t v = 0;

	for (int i = bytes - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}
static inline uint64_t rd_be(const uint8_t *p, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v = (v << 8) | p[i];
	return v;
}

/* Whole file into a malloc'd buffer (NULL if unreadable). */
static inline uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else if (buf) {
			buf[n] = 0;
			*len = (size_t)n;
		}
	}
	fclose(f);
	return buf;
}

static inline void rm_rf(const char *path)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	if (system(cmd) != 0)
		fprintf(stderr, "warning: could not remove %s\n", path);
}

/* The one stream class of fill_trace_info's trace. */
static struct ctf_stream_class t_stream;

static inline void fill_trace_info(struct ctf_trace_info *ti, uint64_t mask)
{
	memset(ti, 0, sizeof(*ti));
	memcpy(ti->uuid, t_uuid, 16);
	memcpy(ti->clock_uuid, t_clock_uuid, 16);
	ti->hostname = "test\"host\\x";
	ti->sysname = "Linux";
	ti->kernel_release = "6.18.0-test";
	ti->kernel_version = "#1 SMP PREEMPT_DYNAMIC Debian 6.18";
	ti->trace_name = "scry-20261122-023400";
	ti->creation_datetime = "20261122T023400+0000";
	ti->clock_offset_s = 1700000000;     /* 2023-11-14T22:13:20Z */
	ti->clock_offset_ns = 250000000;
	t_stream.ctx_mask = mask;
	t_stream.events = t_events;
	t_stream.nevents = T_NEVENTS;
	ti->streams = &t_stream;
	ti->nstreams = 1;
}

/* The metadata of one channel of these events (fill_trace_info's contexts). */
static inline char *t_metadata_text(const struct ctf_trace_info *ti, const struct scry_event *const *evs,
				    size_t n, char *err, size_t errlen)
{
	t_stream.events = evs;
	t_stream.nevents = n;
	return ctf_metadata_text(ti, err, errlen);
}

/* The metadata written as path (DIR/metadata), through a handle on DIR. */
static inline int t_metadata_write(const char *path, const struct ctf_trace_info *ti,
				   const struct scry_event *const *evs, size_t n, char *err, size_t errlen)
{
	char dir[512];
	struct scry_dirh *d;
	int ret;

	snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(path, '/') - path), path);
	t_stream.events = evs;
	t_stream.nevents = n;
	if ((ret = scry_dirh_open(&d, AT_FDCWD, dir, NULL, err, errlen)))
		return ret;
	ret = ctf_metadata_write(d, ti, err, errlen);
	scry_dirh_unref(d);
	return ret;
}

/* A handle on path (a directory made if missing), or NULL. */
static inline struct scry_dirh *t_dirh(const char *path)
{
	char err[256];
	struct scry_dirh *d = NULL;

	mkdir(path, 0750);
	return scry_dirh_open(&d, AT_FDCWD, path, NULL, err, sizeof(err)) ? NULL : d;
}

#endif
