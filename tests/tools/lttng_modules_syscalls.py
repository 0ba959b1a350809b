#!/usr/bin/python3
"""tests/tools/lttng_modules_syscalls.py — derive tests/e2e/lttng_modules_syscalls.json (the
table test_lttng_syscalls.py compares scry's metadata with, and the reference of
src/catalog/lttng_syscalls.c) from lttng-modules' x86-64 syscall instrumentation,
include/instrumentation/syscalls/headers/{x86-64-,}syscalls_{integers,pointers}{,_override}.h:

    lttng_modules_syscalls.py LTTNG_MODULES_GIT_DIR [REF [KERNEL_RELEASE [CONFIG_FILE]]] > table.json

(REF defaults to v2.13.9, lttng-modules 2.13's last release; the kernel release and config
to the running kernel's).  The headers are preprocessed as lttng-modules' build does
(tests/tools/lttng_modules_table.py's rules for #if, with CONFIG_X86_64, SC_ENTER for the
entry events, CREATE_SYSCALL_TABLE for the table) and each SC_LTTNG_TRACEPOINT_EVENT's
TP_FIELDS is split as src/lttng-syscalls-{entry,exit}-table.c splits it: sc_in and sc_inout
fields on the entry, sc_exit, sc_out and sc_inout on the exit.  For each syscall of the
table (TRACE_SYSCALL_TABLE(template, name, nr, nargs)): its number, its arguments as
TP_PROTO names them, and the fields of syscall_entry_NAME and syscall_exit_NAME in order,
each [name, ctf_* macro, C type, argument index or null] (null: computed by lttng-modules'
code, not an argument's value)."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lttng_modules_table as lmt  # noqa: E402

HDR = "include/instrumentation/syscalls/headers/"
EVENT = ["SC_LTTNG_TRACEPOINT_EVENT", "SC_LTTNG_TRACEPOINT_EVENT_CODE"]


def show(repo, ref, path):
    return subprocess.run(["git", "-C", repo, "show", f"{ref}:{path}"], capture_output=True, text=True,
                          check=True).stdout


def inline(repo, ref, name):
    """The header with its quoted #includes of the same directory inlined, as cpp reads it."""
    text = show(repo, ref, HDR + name)
    return re.sub(r'#\s*include\s+"([^"]+)"', lambda m: inline(repo, ref, m.group(1)), text)


def object_macros(text):
    """Object-like #defines whose body holds fields (poll's LTTNG_SYSCALL_POLL_fds_field)."""
    text = re.sub(r"\\\n", " ", lmt.strip_comments(text))
    out = {}
    for m in re.finditer(r"^\s*#\s*define\s+(\w+)[ \t]+(.*)$", text, re.M):
        if "ctf_" in m.group(2) or "sc_in" in m.group(2) or "sc_out" in m.group(2):
            out[m.group(1)] = m.group(2)
    return out


def keep_scope(text, keep):
    """text with sc_in/sc_out/sc_inout/sc_exit(...) replaced by their arguments where kept."""
    pat = re.compile(r"\b(sc_in|sc_out|sc_inout|sc_exit)\s*\(")
    out, pos = [], 0
    while True:
        m = pat.search(text, pos)
        if not m:
            out.append(text[pos:])
            return "".join(out)
        args, end = lmt.split_args(text, m.end() - 1)
        out.append(text[pos:m.start()])
        if m.group(1) in keep:
            out.append(keep_scope(",".join(args), keep))
        pos = end


def proto_args(proto):
    """The argument names of TP_PROTO(sc_exit(long ret,) T a, U b...), ret left out."""
    body = keep_scope(proto[proto.index("(") + 1:proto.rindex(")")], ())
    names = []
    for a in body.split(","):
        a = a.strip()
        if a and a != "void":
            names.append(re.findall(r"\w+", a)[-1])
    return names


def fields(tp, keep, objs, macros, args):
    text = tp
    for _ in range(3):
        for k, v in objs.items():
            text = re.sub(r"\b" + re.escape(k) + r"\b", lambda _m, v=v: v, text)
    text = lmt.expand(text, macros)
    text = keep_scope(text, keep)
    out = []
    pos = 0
    while True:
        m = lmt.FIELD_MACROS.search(text, pos)
        if not m:
            return out
        a, pos = lmt.split_args(text, m.end() - 1)
        kind = m.group(1)
        if kind in ("ctf_string", "ctf_user_string"):
            name, ctype, src = a[0], None, a[1]
        elif kind == "ctf_custom_field":
            name, ctype, src = a[1], None, None
        elif kind.startswith(("ctf_enum", "ctf_user_enum")):
            name, ctype, src = a[2], a[1], a[3]
        elif kind.startswith(("ctf_sequence", "ctf_user_sequence")):
            name, ctype, src = a[1], a[0], a[2]
        else:
            name, ctype, src = a[1], a[0], a[2] if len(a) > 2 else None
        src = (src or "").strip()
        out.append([name.strip(), kind, ctype.strip() if ctype else None, args.index(src) if src in args else None])


def events(repo, ref, version, config, kind, enter):
    text = inline(repo, ref, f"x86-64-syscalls_{kind}.h")
    pre = lmt.Pre(version, config)
    pre.defines |= {"CONFIG_X86_64", "LTTNG_CREATE_FIELD_METADATA"} | ({"SC_ENTER"} if enter else set())
    body = pre.run(text)
    objs = object_macros(text)
    keep = ("sc_in", "sc_inout") if enter else ("sc_exit", "sc_out", "sc_inout")
    out = {}
    for name, args in lmt.calls(body, EVENT):
        tpf = next(a for a in args if a.startswith("TP_FIELDS"))
        pargs = proto_args(args[1])
        out[args[0]] = {"args": pargs, "fields": fields(tpf[tpf.index("(") + 1:tpf.rindex(")")], keep, objs,
                                                        pre.macros, pargs)}
    for _, args in lmt.calls(body, ["SC_LTTNG_TRACEPOINT_EVENT_CLASS_NOARGS"]):
        out[args[0]] = {"args": [], "fields": []}
    return out


def table(repo, ref, version, config, kind, enter):
    pre = lmt.Pre(version, config)
    pre.defines |= {"CONFIG_X86_64", "CREATE_SYSCALL_TABLE"} | ({"SC_ENTER"} if enter else set())
    body = pre.run(inline(repo, ref, f"x86-64-syscalls_{kind}.h"))
    return [(a[0], a[1], int(a[2])) for _, a in lmt.calls(body, ["TRACE_SYSCALL_TABLE"])]


def main():
    import gzip
    repo = sys.argv[1]
    ref = sys.argv[2] if len(sys.argv) > 2 else "v2.13.9"
    release = sys.argv[3] if len(sys.argv) > 3 else os.uname().release
    nums = [int(x) for x in re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", release).groups(default="0")]
    cfg_path = sys.argv[4] if len(sys.argv) > 4 else "/proc/config.gz"
    opener = gzip.open if cfg_path.endswith(".gz") else open
    config = {}
    with opener(cfg_path, "rt") as f:
        for line in f:
            m = re.match(r"(CONFIG_\w+)=(.*)", line)
            if m and m.group(2) in ("y", "m"):
                config[m.group(1)] = True
    config.pop("CONFIG_LTTNG_EXPERIMENTAL_BITWISE_ENUM", None)
    version = lmt.kv(*nums)
    commit = subprocess.run(["git", "-C", repo, "rev-parse", ref + "^{commit}"], capture_output=True, text=True,
                            check=True).stdout.strip()
    out = {}
    for kind in ("integers", "pointers"):
        for enter in (True, False):
            evs = events(repo, ref, version, config, kind, enter)
            for template, name, nr in table(repo, ref, version, config, kind, enter):
                ev = evs[template]
                row = out.setdefault(name, {"nr": nr, "args": ev["args"]})
                row["entry" if enter else "exit"] = ev["fields"]
                if ev["args"]:
                    row["args"] = ev["args"]
    print("{" + f'"lttng_modules_ref": "{ref}", "lttng_modules_commit": "{commit}", "kernel": "{release}", '
          '"syscalls": {')
    print(",\n".join(f"{json.dumps(k)}: {json.dumps(out[k], sort_keys=True)}" for k in sorted(out)))
    print("}}")


if __name__ == "__main__":
    main()
