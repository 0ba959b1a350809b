/* src_kprobes.c — the kernel function source: "kprobe:FUNC", "kretprobe:FUNC",
 * "fentry:FUNC", "fexit:FUNC".  Each spec is checked at once against what this kernel
 * allows (kernel/features.h: the kprobe PMU; a BPF trampoline loaded and attached) and the
 * function against the kernel's BTF, with one line saying which is missing.  Recording
 * kernel functions is not written yet: where the mechanism exists the spec is refused with
 * that reason. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "kernel/features.h"
#include "session/session_int.h"
#include "session/source.h"

static bool claims(const char *spec)
{
	return !strncmp(spec, "kprobe:", 7) || !strncmp(spec, "kretprobe:", 10) || !strncmp(spec, "fentry:", 7) ||
	       !strncmp(spec, "fexit:", 6);
}

/* "did you mean" over the kernel's functions (BTF). */
static void suggest(const struct btf *vm, const char *func, char *err, size_t errlen)
{
	unsigned n = vm ? btf__type_cnt(vm) : 0, k = 0;
	const char **names = malloc((n ? n : 1) * sizeof(*names)), *best[3];
	size_t nb, len;

	if (!names)
		return;
	for (unsigned i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(vm, i);

		if (t && btf_is_func(t))
			names[k++] = btf__name_by_offset(vm, t->name_off);
	}
	nb = scry_closest(func, names, k, best, 3);
	len = strlen(err);
	if (nb)
		snprintf(err + len, errlen - len, "; did you mean %s%s%s%s%s?", best[0], nb > 1 ? ", " : "",
			 nb > 1 ? best[1] : "", nb > 2 ? ", " : "", nb > 2 ? best[2] : "");
	free(names);
}

static int enable(struct scry_channel *c, const char *spec, size_t *matched, char *err, size_t errlen)
{
	bool kprobe = !strncmp(spec, "kprobe:", 7) || !strncmp(spec, "kretprobe:", 10);
	const char *func = strchr(spec, ':') + 1;
	const struct btf *vm;
	char why[200];

	if (!*func) {
		snprintf(err, errlen, "'%s': expected %.*sFUNCTION", spec, (int)(func - spec), spec);
		return -EINVAL;
	}
	if (kprobe && !scry_feature_kprobes(why, sizeof(why))) {
		snprintf(err, errlen, "%s: this kernel has no kprobes (CONFIG_KPROBES off: no "
			 "/sys/bus/event_source/devices/kprobe)", spec);
		return -ENOTSUP;
	}
	scry_features_hold(true);     /* (scryd loads in another thread meanwhile) */
	vm = scry_features_vmlinux();
	if (!kprobe && !scry_feature_fentry(vm, why, sizeof(why))) {
		snprintf(err, errlen, "%s: this kernel refuses BPF trampolines (%s)", spec, why);
	} else if (!vm || btf__find_by_name_kind(vm, func, BTF_KIND_FUNC) <= 0) {
		snprintf(err, errlen, "%s: no kernel function '%s' in the kernel's BTF", spec, func);
		suggest(vm, func, err, errlen);
		scry_features_hold(false);
		return -ENOENT;
	} else
		snprintf(err, errlen, "%s: this kernel has %s, but scry does not record kernel functions yet",
			 spec, kprobe ? "kprobes" : "BPF trampolines");
	scry_features_hold(false);
	return -ENOTSUP;
}

static int disable(struct scry_channel *c, const char *spec, size_t *matched, char *err, size_t errlen)
{
	return 0;   /* nothing is ever enabled */
}

const struct scry_source scry_source_kprobes = {
	.name = "kprobes",
	.claims = claims,
	.enable = enable,
	.disable = disable,
};
