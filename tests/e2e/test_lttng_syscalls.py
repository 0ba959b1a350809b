"""tests/e2e/test_lttng_syscalls.py — scry's syscall events against lttng-modules 2.13's, field
by field: for every syscall lttng-modules instruments on x86-64, a trace's metadata (read by
babeltrace2's bt2) has syscall_entry_NAME and syscall_exit_NAME, and lttng-modules' fields are
in them, with its names, in its order (scry's own fields may come between: `_`-prefixed
captures, arguments lttng-modules leaves out), each of a compatible type: an integer of
lttng-modules' signedness at least as wide as its C type (scry writes 64 bits), a string
where it has a string, an int[2] where it has one.

The reference, tests/e2e/lttng_modules_syscalls.json, is made from lttng-modules' headers by
tests/tools/lttng_modules_syscalls.py (its tag and commit are in the file).  Not compared:
the fields lttng-modules' own code computes (a socket address's family/port/address, poll's
and select's decoded sets, epoll's events: arg null in the table), which scry records in its
own form (docs/FORMAT.md); and the syscalls this kernel has no sys_enter format for (NO_FORMAT:
scry records their six registers) or no longer has (GONE)."""
import json
from pathlib import Path

from test_lttng_fields import ctype_int, metadata_classes

TABLE = Path(__file__).with_name("lttng_modules_syscalls.json")
NO_FORMAT = {"delete_module", "finit_module", "init_module", "kexec_load", "lookup_dcookie"}
GONE = {"sysctl"}
EXTRA_CTYPES = {"umode_t": (16, False), "qid_t": (32, False), "key_t": (32, True), "mqd_t": (32, True),
                "timer_t": (32, True), "key_serial_t": (32, True), "aio_context_t": (64, False),
                "off_t": (64, True), "unsigned": (32, False)}


def ref_int(ct):
    t = " ".join(ct.replace("const ", "").replace("__user", "").split())
    return ctype_int(t) or EXTRA_CTYPES.get(t)


def compare(row, kind, have):
    """The differences of one scry event from lttng-modules' fields: a list of strings."""
    diffs = []
    want = [f for f in row[kind] if f[3] is not None or f[0] == "ret"]
    names = [h[0] for h in have]
    pos = 0
    for fname, macro, ct, _ in want:
        if fname not in names[pos:]:
            diffs.append(f"{fname}: not found after {names[:pos]} in {names}")
            continue
        idx = names.index(fname, pos)
        pos = idx + 1
        h = have[idx]
        if macro in ("ctf_user_string", "ctf_string"):
            if h[1] != "string":
                diffs.append(f"{fname}: {h[1]} where lttng-modules has a string")
        elif macro == "ctf_user_array":
            if h[1] != "array" or h[4] != (2, 32, True):
                diffs.append(f"{fname}: {h[1]} {h[4]} where lttng-modules has int[2]")
        else:
            ref = ref_int(ct)
            if ref is None:
                diffs.append(f"{fname}: C type {ct!r} unknown to this test")
            elif h[1] not in ("int", "enum"):
                diffs.append(f"{fname}: {h[1]} where lttng-modules has integer {ct}")
            elif h[3] != ref[1] or h[2] < ref[0]:
                diffs.append(f"{fname}: {'s' if h[3] else 'u'}{h[2]} where lttng-modules has {ct}")
    return diffs


def classes_with_arrays(trace):
    """metadata_classes plus, for arrays, (length, element bits, signed) as a fifth item."""
    import bt2
    out = {}
    for m in bt2.TraceCollectionMessageIterator(str(trace)):
        if type(m) is not bt2._StreamBeginningMessageConst:
            continue
        base = metadata_classes(trace)
        for ec in m.stream.cls.values():
            fc = ec.payload_field_class
            extra = {}
            for name, member in (fc.items() if fc is not None else []):
                c = member.field_class
                if isinstance(c, bt2._StaticArrayFieldClassConst):
                    e = c.element_field_class
                    extra[name] = (c.length, e.field_value_range,
                                   isinstance(e, bt2._SignedIntegerFieldClassConst))
            out[ec.name] = [f + (extra.get(f[0]),) for f in base.get(ec.name, [])]
        return out
    return out


def test_syscall_fields_match_lttng_modules(record, tmp_path):
    table = json.loads(TABLE.read_text())["syscalls"]
    r = record(tmp_path / "t", "-e", "syscall:*", cmd=["/bin/true"], timeout=600)
    r.check()
    classes = classes_with_arrays(tmp_path / "t")
    report, compared = [], 0
    for name, row in sorted(table.items()):
        if name in GONE:
            assert f"syscall_entry_{name}" not in classes
            continue
        for kind in ("entry", "exit"):
            ev = f"syscall_{kind}_{name}"
            if ev not in classes:
                report.append(f"{ev}: not in scry's metadata")
                continue
            if name in NO_FORMAT:        # registers only: the exit's ret alone is compared
                if kind == "entry":
                    continue
                row = dict(row, exit=row["exit"][:1])
            compared += 1
            report += [f"{ev}: {d}" for d in compare(row, kind, classes[ev])]
    assert not report, "differences from lttng-modules:\n" + "\n".join(report)
    assert compared > 560


def test_examples_of_the_layout(record, tmp_path):
    """The issue's cases, by value: read's buf on the exit, clone's flags, newfstatat's
    statbuf pointer, pipe2's int[2] fildes, execve's argv pointer."""
    classes = None
    r = record(tmp_path / "t", "-e", "syscall:read,syscall:clone,syscall:newfstatat,syscall:pipe2,syscall:execve",
               cmd=["/bin/true"], timeout=120)
    r.check()
    classes = {k: [f[0] for f in v] for k, v in metadata_classes(tmp_path / "t").items()}
    assert classes["syscall_entry_read"][:1] == ["fd"] and "count" in classes["syscall_entry_read"]
    assert "buf" not in classes["syscall_entry_read"]
    assert classes["syscall_exit_read"][:2] == ["ret", "buf"]
    assert classes["syscall_entry_clone"][:4] == ["flags", "newsp", "parent_tid", "child_tid"]
    assert classes["syscall_exit_newfstatat"][:2] == ["ret", "statbuf"]
    assert classes["syscall_exit_pipe2"][:2] == ["ret", "fildes"]
    assert classes["syscall_entry_execve"][:3] == ["filename", "argv", "_argv_count"]
    # by value: read's exit (ret and buf: the fixed layout, written without operations)
    # holds the pointer its entry passed (scry's _buf there), and the entry's count bounds ret
    from conftest import read_trace
    pending, reads = {}, 0
    for e in read_trace(tmp_path / "t").events:
        if e["name"] == "syscall_entry_read":
            pending[e["tid"]] = e["fields"]
        elif e["name"] == "syscall_exit_read" and e["tid"] in pending:
            en, ex = pending.pop(e["tid"]), e["fields"]
            assert list(ex) == ["ret", "buf"] and ex["buf"] == en["_buf"] != 0, (en, ex)
            assert 0 <= ex["ret"] <= en["count"], (en, ex)
            reads += 1
    assert reads >= 1      # the dynamic loader reads libc's ELF header
