#!/usr/bin/python3
"""gen_syscalls.py - writes src/catalog/syscall_table.c (to stdout): every x86_64 syscall
of this kernel with its number, name and arguments.

Numbers come from <asm/unistd_64.h> plus NEWER_SYSCALLS below (syscalls newer than the
installed headers); argument names and C types from tracefs
events/syscalls/sys_enter_*/format.  Syscalls with a number but no format file get a row
with args_known = 0.  Standard library only:  /usr/bin/python3 scripts/gen_syscalls.py
"""
import os
import re
import sys

UNISTD = "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"
TRACEFS_CANDIDATES = ("/sys/kernel/tracing", "/sys/kernel/debug/tracing")

# x86_64 numbers (arch/x86/entry/syscalls/syscall_64.tbl) of syscalls newer than the headers.
NEWER_SYSCALLS = {
    "uretprobe": 335,
    "uprobe": 336,
    "cachestat": 451,
    "fchmodat2": 452,
    "map_shadow_stack": 453,
    "futex_wake": 454,
    "futex_wait": 455,
    "futex_requeue": 456,
    "statmount": 457,
    "listmount": 458,
    "lsm_get_self_attr": 459,
    "lsm_set_self_attr": 460,
    "lsm_list_modules": 461,
    "mseal": 462,
    "setxattrat": 463,
    "getxattrat": 464,
    "listxattrat": 465,
    "removexattrat": 466,
    "open_tree_attr": 467,
    "file_getattr": 468,
    "file_setattr": 469,
}

# The kernel's sys_* function (and tracepoint) name differs from the unistd name.
# The table uses the kernel name, as LTTng's syscall events do (syscall_entry_newstat).
KERNEL_NAME = {
    "stat": "newstat",
    "fstat": "newfstat",
    "lstat": "newlstat",
    "uname": "newuname",
    "sendfile": "sendfile64",
    "umount2": "umount",
}

# `const char *` arguments that are NOT NUL-terminated strings (buffers with a length).
NOT_STRINGS = {
    ("write", "buf"),
    ("pwrite64", "buf"),
    ("mq_timedsend", "u_msg_ptr"),
    ("request_key", "_callout_info"),
}
# Non-const `char *` arguments that ARE user input strings (paths, fs types).
EXTRA_STRINGS = {
    ("mount", "dev_name"),
    ("mount", "dir_name"),
    ("mount", "type"),
    ("umount", "name"),
    ("utime", "filename"),
    ("utimes", "filename"),
}

# C type -> (size in bytes, signed).  Pointers are handled separately.
C_TYPES = {
    "int": (4, True), "pid_t": (4, True), "key_t": (4, True), "mqd_t": (4, True),
    "timer_t": (4, True), "clockid_t": (4, True), "key_serial_t": (4, True),
    "__s32": (4, True), "rwf_t": (4, True),
    "unsigned int": (4, False), "unsigned": (4, False), "u32": (4, False),
    "__u32": (4, False), "uid_t": (4, False), "gid_t": (4, False), "qid_t": (4, False),
    "umode_t": (2, False),
    "long": (8, True), "loff_t": (8, True), "off_t": (8, True),
    "unsigned long": (8, False), "size_t": (8, False), "aio_context_t": (8, False),
    "u64": (8, False), "__u64": (8, False),
}
POINTER_TYPEDEFS = {"cap_user_header_t", "cap_user_data_t"}

FIELD_RE = re.compile(r"^\s*field:(.*?);\s*offset:(\d+);\s*size:(\d+);\s*signed:(\d+);")


def die(msg):
    sys.stderr.write("gen_syscalls.py: %s\n" % msg)
    sys.exit(1)


def tracefs_dir():
    for d in TRACEFS_CANDIDATES:
        if os.path.isdir(os.path.join(d, "events", "syscalls")):
            return d
    die("no tracefs with events/syscalls (mount -t tracefs nodev /sys/kernel/tracing)")


def read_unistd():
    nums = {}
    with open(UNISTD) as f:
        for line in f:
            m = re.match(r"#define __NR_(\w+)\s+(\d+)", line)
            if m:
                nums[KERNEL_NAME.get(m.group(1), m.group(1))] = int(m.group(2))
    for name, nr in NEWER_SYSCALLS.items():
        if name in nums and nums[name] != nr:
            die("%s: header says %d, NEWER_SYSCALLS says %d" % (name, nums[name], nr))
        nums[name] = nr
    return nums


def arg_info(sc, ctype, name):
    base = ctype
    for q in ("const ",):
        if base.startswith(q):
            base = base[len(q):]
    is_pointer = "*" in ctype or base in POINTER_TYPEDEFS
    if is_pointer:
        size, signed = 8, False
    elif base.startswith("enum "):
        size, signed = 4, False
    elif base in C_TYPES:
        size, signed = C_TYPES[base]
    else:
        die("sys_enter_%s: unknown C type '%s' of argument %s: add it to C_TYPES" % (sc, ctype, name))
    is_string = ((ctype == "const char *" and (sc, name) not in NOT_STRINGS)
                 or (sc, name) in EXTRA_STRINGS)
    return size, signed, is_pointer, is_string


def read_formats(tracefs):
    root = os.path.join(tracefs, "events", "syscalls")
    out = {}
    for d in sorted(os.listdir(root)):
        if not d.startswith("sys_enter_"):
            continue
        sc = d[len("sys_enter_"):]
        args = []
        with open(os.path.join(root, d, "format")) as f:
            for line in f:
                m = FIELD_RE.match(line)
                if not m:
                    continue
                decl = m.group(1).strip()
                dm = re.match(r"^(.*?)\s*\b(\w+)$", decl)
                if not dm:
                    die("sys_enter_%s: cannot parse '%s'" % (sc, decl))
                ctype, name = dm.group(1).strip(), dm.group(2)
                if name.startswith("common_") or name == "__syscall_nr":
                    continue
                args.append((name, ctype) + arg_info(sc, ctype, name))
        if len(args) > 6:
            die("sys_enter_%s: %d arguments" % (sc, len(args)))
        out[sc] = args
    return out


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    nums = read_unistd()
    formats = read_formats(tracefs_dir())
    missing = sorted(n for n in formats if n not in nums)
    if missing:
        die("no number for: %s (add them to NEWER_SYSCALLS)" % " ".join(missing))
    rows = sorted(nums.items(), key=lambda kv: kv[1])
    w = sys.stdout.write
    w("/* syscall_table.c — GENERATED by scripts/gen_syscalls.py (make gen-syscalls); do not edit.\n")
    w(" * Every x86_64 syscall: number, kernel name and arguments from this kernel's\n")
    w(" * events/syscalls/sys_enter_NAME/format (args_known = 0: no format file). */\n")
    w('#include "catalog/syscall_table.h"\n\n')
    w("const struct scry_syscall_row scry_syscall_table[] = {\n")
    for name, nr in rows:
        args = formats.get(name)
        known = args is not None
        args = args or []
        w("\t{ %s, %d, %d, %d, {" % (c_str(name), nr, 1 if known else 0, len(args)))
        if args:
            w("\n")
            for (an, ct, size, signed, ptr, string) in args:
                w("\t\t{ %s, %s, %d, %s, %s, %s },\n" % (
                    c_str(an), c_str(ct), size, "true" if signed else "false",
                    "true" if string else "false", "true" if ptr else "false"))
            w("\t} },\n")
        else:
            w(" } },\n")
    w("};\n\n")
    w("const size_t scry_syscall_table_len = sizeof(scry_syscall_table) / sizeof(scry_syscall_table[0]);\n")


if __name__ == "__main__":
    main()
