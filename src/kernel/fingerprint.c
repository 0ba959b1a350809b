/* fingerprint.c — what a load of scry's BPF object depends on, hashed into 16 bytes (see
 * probes_int.h): the object's ELF bytes (by their SHA-256, made at build time: the Makefile's
 * scry_elf_sum.h; hashing the 7 MB each run cost ~2 ms of CPU), its internal maps' contents once set for the session
 * (.rodata, .kconfig, .data, .bss), each program's autoload flag, type and attach type, each
 * map's type, key and value sizes, entries and flags, the per-CPU ring's size, the possible
 * and online CPUs, the tracker sets' contents, the kernel's release and boot id.  scry (the
 * client) and scryd compute it with this one function on the object each has prepared: an
 * object scryd loaded is handed over only for the very same fingerprint (warm.c). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/libbpf.h>
#include "kernel/probes_int.h"
#include "scry_elf_sum.h"

/* Bumped when what scryd hands over (warm.c's names, the state of its maps) changes. */
#define WARM_ABI 1

/* Four 64-bit lanes over 8-byte words (a multiply-rotate hash, xxhash's shape), over a few
 * KiB of settings.  Not a defence: every side is privileged. */
struct fph {
	uint64_t v[4];
	uint64_t len;
	uint8_t tail[32];
	size_t ntail;
};

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL

static uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static uint64_t round64(uint64_t acc, uint64_t in)
{
	return rotl(acc + in * P2, 31) * P1;
}

static uint64_t word(const uint8_t *b)
{
	uint64_t w;

	memcpy(&w, b, 8);
	return w;
}

static void fph_init(struct fph *h)
{
	memset(h, 0, sizeof(*h));
	h->v[0] = P1 + P2;
	h->v[1] = P2;
	h->v[2] = 0;
	h->v[3] = -P1;
}

static void fph_block(struct fph *h, const uint8_t *b)
{
	for (int i = 0; i < 4; i++)
		h->v[i] = round64(h->v[i], word(b + 8 * i));
}

static void fph_add(struct fph *h, const void *data, size_t n)
{
	const uint8_t *b = data;

	h->len += n;
	if (h->ntail) {
		size_t k = 32 - h->ntail < n ? 32 - h->ntail : n;

		memcpy(h->tail + h->ntail, b, k);
		h->ntail += k;
		b += k;
		n -= k;
		if (h->ntail < 32)
			return;
		fph_block(h, h->tail);
		h->ntail = 0;
	}
	for (; n >= 32; b += 32, n -= 32)
		fph_block(h, b);
	memcpy(h->tail, b, n);
	h->ntail = n;
}

static void fph_u64(struct fph *h, uint64_t v)
{
	fph_add(h, &v, sizeof(v));
}

static void fph_str(struct fph *h, const char *s)
{
	fph_u64(h, strlen(s));
	fph_add(h, s, strlen(s));
}

static void fph_final(struct fph *h, uint8_t out[SCRY_WARM_FP_BYTES])
{
	uint64_t a, b;

	memset(h->tail + h->ntail, 0, 32 - h->ntail);
	fph_block(h, h->tail);
	a = rotl(h->v[0], 1) + rotl(h->v[1], 7) + rotl(h->v[2], 12) + rotl(h->v[3], 18) + h->len;
	b = rotl(h->v[3], 3) ^ rotl(h->v[2], 11) ^ rotl(h->v[1], 23) ^ h->v[0] ^ (h->len * P1);
	for (int i = 0; i < 3; i++) {      /* avalanche both halves */
		a ^= a >> 33;
		a *= P2;
		b ^= b >> 29;
		b *= P1;
		a ^= b;
	}
	memcpy(out, &a, 8);
	memcpy(out + 8, &b, 8);
}

static void file_line(struct fph *h, const char *path)
{
	char buf[128] = "";
	FILE *f = fopen(path, "re");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	fph_str(h, buf);
}

static void fph_u32s(struct fph *h, const uint32_t *v, size_t n, bool used)
{
	fph_u64(h, used ? n + 1 : 0);
	if (used && n)
		fph_add(h, v, n * sizeof(*v));
}

void probes_fingerprint(const struct scry_probes *p, uint8_t out[SCRY_WARM_FP_BYTES])
{
	const struct bpf_object_skeleton *s = p->skel->skeleton;
	const struct scry_probes_opts *o = &p->opts;
	struct utsname u;
	struct fph h;
	struct bpf_map *m = NULL;

	fph_init(&h);
	fph_u64(&h, WARM_ABI);
	fph_str(&h, SCRY_ELF_SUM);
	for (int i = 0; i < s->prog_cnt; i++) {
		struct bpf_program *prog = *s->progs[i].prog;

		fph_str(&h, s->progs[i].name);
		fph_u64(&h, bpf_program__autoload(prog));
		fph_u64(&h, bpf_program__type(prog));
		fph_u64(&h, bpf_program__expected_attach_type(prog));
	}
	while ((m = bpf_object__next_map(p->skel->obj, m))) {
		const void *init;
		size_t sz = 0;

		fph_str(&h, bpf_map__name(m));
		fph_u64(&h, bpf_map__type(m));
		fph_u64(&h, bpf_map__key_size(m));
		fph_u64(&h, bpf_map__value_size(m));
		fph_u64(&h, bpf_map__max_entries(m));
		fph_u64(&h, bpf_map__map_flags(m));
		fph_u64(&h, bpf_map__autocreate(m));
		/* .rodata, .kconfig, .data, .bss: the settings this session wrote into them */
		if ((init = bpf_map__initial_value(m, &sz)) && sz) {
			fph_u64(&h, sz);
			fph_add(&h, init, sz);
		}
	}
	fph_u64(&h, o->ring_size);
	fph_u64(&h, p->ncpus);
	fph_u64(&h, (uint64_t)sysconf(_SC_NPROCESSORS_ONLN));
	/* the trackers' sets are filled after the load: their contents count too */
	fph_u32s(&h, o->track_vpids, o->ntrack_vpids, o->track_vpid);
	fph_u32s(&h, o->track_uids, o->ntrack_uids, o->track_uid);
	fph_u32s(&h, o->track_gids, o->ntrack_gids, o->track_gid);
	fph_u32s(&h, o->track_vuids, o->ntrack_vuids, o->track_vuid);
	fph_u32s(&h, o->track_vgids, o->ntrack_vgids, o->track_vgid);
	fph_u64(&h, o->ntrack_cgroups);
	if (uname(&u) == 0) {
		fph_str(&h, u.release);
		fph_str(&h, u.version);
	}
	file_line(&h, "/proc/sys/kernel/random/boot_id");
	fph_final(&h, out);
}
