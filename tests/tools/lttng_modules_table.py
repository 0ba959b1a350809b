#!/usr/bin/python3
"""tests/tools/lttng_modules_table.py — derive tests/e2e/lttng_modules_events.json (the table
test_lttng_fields.py compares scry's metadata with) from lttng-modules' event definitions,
include/instrumentation/events/*.h and arch/x86/*.h, as they apply to one kernel:

    lttng_modules_table.py LTTNG_MODULES_GIT_DIR [KERNEL_RELEASE [CONFIG_FILE]] > table.json

(the kernel release and its config default to the running kernel's, /proc/config.gz).  The
headers are read at HEAD of the git directory (`git show`).  Their #if/#elif/#else/#endif are
decided for that kernel: LTTNG_LINUX_VERSION_CODE, LTTNG_KERNEL_VERSION(a,b,c),
LTTNG_KERNEL_RANGE(...), CONFIG_* / IS_ENABLED(CONFIG_*) from the config; distribution ranges
(RHEL, SLE, Ubuntu, Debian, Fedora) are false; other macros undefined.  The header's own
function-like macros that expand to LTTNG_TRACEPOINT_EVENT_* or to ctf_* fields are expanded.  For each event:
its CTF name, the kernel tracepoint it instruments, its TRACE_SYSTEM and, for each field of
TP_FIELDS in order, its name, its ctf_* macro and its C type (integers: the type as written,
which the test sizes)."""
import gzip
import json
import os
import re
import subprocess
import sys

DIRS = ["include/instrumentation/events", "include/instrumentation/events/arch/x86"]


def kv(a, b, c):
    return (int(a) << 16) + (int(b) << 8) + min(int(c), 255)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


class Pre:
    def __init__(self, version, config):
        self.version, self.config = version, config
        self.defines = set()
        self.macros = {}          # function-like macros making events or fields: name -> (params, body)

    def cond(self, expr):
        e = expr
        e = re.sub(r"LTTNG_KERNEL_VERSION\s*\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)",
                   lambda m: str(kv(*m.groups())), e)
        e = re.sub(r"LTTNG_KERNEL_RANGE\s*\(([^)]*)\)", lambda m: self.range(m.group(1)), e)
        e = re.sub(r"LTTNG_\w+_KERNEL_RANGE\s*\([^)]*\)", "0", e)
        e = re.sub(r"LTTNG_\w+_VERSION_CODE\b(?<!LTTNG_LINUX_VERSION_CODE)", "0", e)
        e = e.replace("LTTNG_LINUX_VERSION_CODE", str(self.version))
        e = re.sub(r"defined\s*\(\s*(\w+)\s*\)|defined\s+(\w+)",
                   lambda m: "1" if self.is_defined(m.group(1) or m.group(2)) else "0", e)
        e = re.sub(r"IS_ENABLED\s*\(\s*(\w+)\s*\)", lambda m: "1" if self.config.get(m.group(1)) else "0", e)
        e = re.sub(r"\b(CONFIG_\w+)\b", lambda m: "1" if self.config.get(m.group(1)) else "0", e)
        while re.search(r"\b[A-Za-z_]\w*\s*\([^()]*\)", e):    # other function-like macros
            e = re.sub(r"\b[A-Za-z_]\w*\s*\([^()]*\)", "0", e)
        e = re.sub(r"\b[A-Za-z_]\w*\b", "0", e)
        e = e.replace("&&", " and ").replace("||", " or ")
        e = re.sub(r"!(?!=)", " not ", e)
        try:
            return bool(eval(e, {}))
        except Exception as ex:
            raise SystemExit(f"cannot decide #if {expr!r} ({e!r}): {ex}")

    def range(self, args):
        a = [int(x) for x in args.split(",")]
        return "1" if kv(*a[:3]) <= self.version < kv(*a[3:6]) else "0"

    def is_defined(self, name):
        return name in self.defines or bool(self.config.get(name))

    def run(self, text):
        """The lines of text that apply, directives decided, macros collected."""
        text = re.sub(r"\\\n", " ", strip_comments(text))
        out, stack = [], []      # stack: (active, taken, parent_active)
        active = True
        for line in text.split("\n"):
            s = line.strip()
            m = re.match(r"#\s*(\w+)\s*(.*)", s)
            if not m:
                if active:
                    out.append(line)
                continue
            d, rest = m.groups()
            if d in ("if", "ifdef", "ifndef"):
                c = (self.cond(rest) if d == "if" else
                     self.is_defined(rest.split()[0]) if d == "ifdef" else not self.is_defined(rest.split()[0]))
                stack.append((active, c and active))
                active = active and c
            elif d == "elif":
                parent, taken = stack[-1]
                c = parent and not taken and self.cond(rest)
                stack[-1] = (parent, taken or c)
                active = c
            elif d == "else":
                parent, taken = stack[-1]
                active = parent and not taken
                stack[-1] = (parent, True)
            elif d == "endif":
                active = stack.pop()[0]
            elif d == "define" and active:
                m2 = re.match(r"(\w+)\(([^)]*)\)\s*(.*)", rest, re.S)
                if m2 and ("LTTNG_TRACEPOINT_EVENT" in m2.group(3) or "ctf_" in m2.group(3)):
                    self.macros[m2.group(1)] = ([p.strip() for p in m2.group(2).split(",")], m2.group(3))
                else:
                    self.defines.add(rest.split()[0] if rest.split() else rest)
            elif d == "undef" and active:
                self.defines.discard(rest.split()[0])
        return "\n".join(out)


def split_args(text, start):
    """The comma-separated arguments of the call whose '(' is at text[start]; and the end."""
    depth, args, cur, i = 0, [], [], start
    while i < len(text):
        ch = text[i]
        if ch == "(":
            depth += 1
            if depth > 1:
                cur.append(ch)
        elif ch == ")":
            depth -= 1
            if depth == 0:
                args.append("".join(cur).strip())
                return args, i + 1
            cur.append(ch)
        elif ch == "," and depth == 1:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    raise SystemExit("unbalanced parentheses")


def calls(text, names):
    """(name, args) of the calls of names in text, top level, in order."""
    pat = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\s*\(")
    pos = 0
    while True:
        m = pat.search(text, pos)
        if not m:
            return
        args, end = split_args(text, m.end() - 1)
        yield m.group(1), args
        pos = end


def expand(text, macros, depth=0):
    if not macros or depth > 5:
        return text
    pat = re.compile(r"\b(" + "|".join(map(re.escape, macros)) + r")\s*\(")
    out, pos = [], 0
    while True:
        m = pat.search(text, pos)
        if not m:
            out.append(text[pos:])
            return "".join(out)
        params, body = macros[m.group(1)]
        args, end = split_args(text, m.end() - 1)
        for p, a in zip(params, args):
            body = re.sub(r"\b" + re.escape(p) + r"\b", lambda _m, a=a: a, body)
        body = re.sub(r"\s*##\s*", "", body)      # token pasting
        out.append(text[pos:m.start()])
        out.append(expand(body, macros, depth + 1))
        pos = end


FIELD_MACROS = re.compile(r"\b(ctf_\w+)\s*\(")


def fields_of(tp_fields):
    out = []
    pos = 0
    while True:
        m = FIELD_MACROS.search(tp_fields, pos)
        if not m:
            return out
        args, pos = split_args(tp_fields, m.end() - 1)
        kind = m.group(1)
        if kind.startswith("ctf_user_"):
            kind = "ctf_" + kind[len("ctf_user_"):]
        if kind in ("ctf_string", "ctf_string_nowrite"):
            out.append([args[0], kind, None])
        elif kind == "ctf_custom_field":
            out.append([args[1], kind, None])
        elif kind.startswith("ctf_enum"):
            out.append([args[2], kind, args[1]])
        elif len(args) >= 2:
            out.append([args[1], kind, args[0]])


EVENT_MACROS = {
    # macro: (index of the class or None, index of the tracepoint name, index of the CTF name)
    "LTTNG_TRACEPOINT_EVENT": (None, 0, 0),
    "LTTNG_TRACEPOINT_EVENT_CODE": (None, 0, 0),
    "LTTNG_TRACEPOINT_EVENT_MAP": (None, 0, 1),
    "LTTNG_TRACEPOINT_EVENT_CODE_MAP": (None, 0, 1),
    "LTTNG_TRACEPOINT_EVENT_MAP_NOARGS": (None, 0, 1),
    "LTTNG_TRACEPOINT_EVENT_INSTANCE": (0, 1, 1),
    "LTTNG_TRACEPOINT_EVENT_INSTANCE_NOARGS": (0, 1, 1),
    "LTTNG_TRACEPOINT_EVENT_INSTANCE_MAP": (0, 1, 2),
    "LTTNG_TRACEPOINT_EVENT_INSTANCE_MAP_NOARGS": (0, 1, 2),
}
CLASS_MACROS = ["LTTNG_TRACEPOINT_EVENT_CLASS", "LTTNG_TRACEPOINT_EVENT_CLASS_CODE",
                "LTTNG_TRACEPOINT_EVENT_CLASS_NOARGS", "LTTNG_TRACEPOINT_EVENT_CLASS_CODE_NOARGS"]


def tp_fields(args):
    for a in args:
        if a.startswith("TP_FIELDS"):
            return a[a.index("(") + 1:a.rindex(")")]
    return ""


def header_events(path, text, pre):
    system = re.search(r"#\s*define\s+TRACE_SYSTEM\s+(\w+)", text)
    body = expand(pre.run(text), pre.macros)
    classes, events = {}, {}
    for name, args in calls(body, CLASS_MACROS + list(EVENT_MACROS)):
        if name in CLASS_MACROS:
            classes[args[0]] = fields_of(tp_fields(args))
            continue
        cls, tp, ctf = EVENT_MACROS[name]
        fields = classes.get(args[cls]) if cls is not None else fields_of(tp_fields(args))
        if fields is None:
            raise SystemExit(f"{path}: {args[tp]}: class {args[cls]} unknown")
        events[args[ctf]] = {"tracepoint": args[tp], "system": system.group(1) if system else None,
                             "header": path, "fields": fields}
    return events


def main():
    repo = sys.argv[1]
    release = sys.argv[2] if len(sys.argv) > 2 else os.uname().release
    nums = [int(x) for x in re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", release).groups(default="0")]
    cfg_path = sys.argv[3] if len(sys.argv) > 3 else "/proc/config.gz"
    opener = gzip.open if cfg_path.endswith(".gz") else open
    config = {}
    with opener(cfg_path, "rt") as f:
        for line in f:
            m = re.match(r"(CONFIG_\w+)=(.*)", line)
            if m and m.group(2) in ("y", "m"):
                config[m.group(1)] = True
    commit = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    events = {}
    for d in DIRS:
        names = subprocess.run(["git", "-C", repo, "ls-tree", "--name-only", "HEAD", d + "/"],
                               capture_output=True, text=True, check=True).stdout.split()
        for path in sorted(n for n in names if n.endswith(".h")):
            text = subprocess.run(["git", "-C", repo, "show", f"HEAD:{path}"], capture_output=True, text=True,
                                  check=True).stdout
            if "LTTNG_TRACEPOINT_EVENT" not in text or "/kvm/" in path:
                continue
            pre = Pre(kv(*nums), config)
            for k, v in header_events(path, text, pre).items():
                events[k] = v
    # one event a line: a new lttng-modules or kernel shows as a readable diff
    print("{" + f'"lttng_modules_commit": "{commit}", "kernel": "{release}", "events": {{')
    print(",\n".join(f"{json.dumps(k)}: {json.dumps(events[k], sort_keys=True)}" for k in sorted(events)))
    print("}}")


if __name__ == "__main__":
    main()
