/* btf_share.c — one parse of the kernel's BTF for every copy of scry's BPF object (see
 * btf_share.h).
 *
 * libbpf 1.x parses /sys/kernel/btf/vmlinux afresh for each object it loads that needs it
 * (bpf_object__load: the BTF tracepoints' attach points, the kfunc externs): a cold start
 * loads three copies of scry's object (lanes.c: the maps' copy, then the two lanes), each
 * parse ~6-9 ms of CPU (read 4 KiB at a time, ~11 MB of heap faulted in), the maps' copy's on
 * the path before both lanes, the lanes' at the head of each.  scry has parsed it already
 * (features.c, in a thread from the start).  libbpf, a shared library, calls
 * btf__load_vmlinux_btf, btf__free and btf__find_by_name_kind through its PLT, so the
 * definitions below, which the executable exports, are the ones it calls: in a thread that
 * loads scry's object (scry_btf_share(true)) the first returns features.c's parse, lent
 * (counted), and the second takes a lent one back instead of freeing it; the third answers
 * the names libbpf looks up in that parse from features.c's one walk of its types.  Anywhere
 * else, and for any other BTF or name, they are libbpf's own (dlsym RTLD_NEXT).  libbpf only reads the kernel's BTF of an object it
 * loads (types by id and name, module BTFs split on it) and gives it back before
 * bpf_object__load returns, so the lanes' threads read one at once.  Where they are not
 * interposed (libscry.so exports its API only), libbpf parses for itself as before. */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <bpf/btf.h>
#include "kernel/btf_share.h"
#include "kernel/features.h"

static __thread unsigned share_depth;  /* this thread loads scry's object */
static struct btf *(*fn_load)(void);   /* libbpf's own, once looked up */
static void (*fn_free)(struct btf *);
static __s32 (*fn_find)(const struct btf *, const char *, __u32);

void scry_btf_share(bool on)
{
	if (on)
		share_depth++;
	else if (share_depth)
		share_depth--;
}

/* libbpf's own definition of name (the next one after this file's). */
static void *real(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

struct btf *btf__load_vmlinux_btf(void)
{
	struct btf *(*load)(void), *b;

	if (share_depth) {
		unsigned depth = share_depth;

		share_depth = 0;        /* features.c's own parse calls libbpf's loader */
		b = scry_features_vmlinux_lend();
		share_depth = depth;
		if (b)
			return b;
	}
	if (!(load = __atomic_load_n(&fn_load, __ATOMIC_RELAXED))) {
		if (!(load = (struct btf *(*)(void))real("btf__load_vmlinux_btf"))) {
			errno = ENOSYS;
			return NULL;
		}
		__atomic_store_n(&fn_load, load, __ATOMIC_RELAXED);
	}
	return load();
}

/* libbpf looks up its kfunc externs and its BTF tracepoints' attach points by name, each a
 * walk of the kernel's ~127,000 types (~0.5 ms): in features.c's parse, those names were
 * all found in its one walk. */
__s32 btf__find_by_name_kind(const struct btf *btf, const char *type_name, __u32 kind)
{
	__s32 (*find)(const struct btf *, const char *, __u32);
	int id = scry_features_find_wanted(btf, type_name, (int)kind);

	if (id)
		return id;
	if (!(find = __atomic_load_n(&fn_find, __ATOMIC_RELAXED))) {
		if (!(find = (__s32 (*)(const struct btf *, const char *, __u32))real("btf__find_by_name_kind")))
			return -ENOSYS;
		__atomic_store_n(&fn_find, find, __ATOMIC_RELAXED);
	}
	return find(btf, type_name, kind);
}

void btf__free(struct btf *btf)
{
	void (*libbpf_free)(struct btf *);

	if (!btf || scry_features_vmlinux_give_back(btf))
		return;
	if (!(libbpf_free = __atomic_load_n(&fn_free, __ATOMIC_RELAXED))) {
		if (!(libbpf_free = (void (*)(struct btf *))real("btf__free")))
			return;     /* not reached: libbpf is linked; leaked rather than freed wrongly */
		__atomic_store_n(&fn_free, libbpf_free, __ATOMIC_RELAXED);
	}
	libbpf_free(btf);
}
