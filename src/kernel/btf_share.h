/* btf_share.h — the kernel's BTF parsed once (features.c) and lent to libbpf for each copy
 * of scry's BPF object it loads, instead of a parse of its own per copy (btf_share.c defines
 * libbpf's btf__load_vmlinux_btf, btf__free and btf__find_by_name_kind, which libbpf calls
 * through its PLT). */
#ifndef SCRY_KERNEL_BTF_SHARE_H
#define SCRY_KERNEL_BTF_SHARE_H

#include <stdbool.h>

/* The calling thread loads scry's object (on), or no longer does (off): nested calls count.
 * While on, libbpf's load of the kernel's BTF in this thread returns features.c's. */
void scry_btf_share(bool on);

#endif
