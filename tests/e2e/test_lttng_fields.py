"""tests/e2e/test_lttng_fields.py — scry's events against lttng-modules' definitions, field by
field: for every kernel tracepoint scry records under an LTTng name (the kmem, timer,
writeback, sched, irq, signal, power, net, block, x86 irq vector and exception events) and for
the statedump, a trace's metadata (read by babeltrace2's bt2: its event classes) has the event
under lttng-modules' CTF name, lttng-modules' fields in its order, and each integer field of
the size and signedness of its C type in lttng-modules.

The reference, tests/e2e/lttng_modules_events.json, is derived from lttng-modules'
include/instrumentation/events/*.h and arch/x86/*.h (its commit is in the file) by
tests/tools/lttng_modules_table.py, with their #if decided for this machine's kernel (6.18)
and its config.  A kernel without a tracepoint skips that event (counted, and few).
Where scry differs on purpose, EXTRA, MISSING and WIDTH say so (docs/FORMAT.md says why).
Checked to fail on scry before lttng_names.c had writeback's names, kmem's gfp_t width and
LTTng's field order of net_dev_xmit, block_bio_remap, block_split, global_dirty_state."""
import json
from pathlib import Path

TABLE = Path(__file__).with_name("lttng_modules_events.json")
SYSTEMS = {"kmem", "timer", "writeback", "sched", "irq", "signal", "power", "net", "block", "x86_irq_vectors",
           "x86_exceptions", "lttng_statedump"}
TRACEFS = Path("/sys/kernel/tracing/events")

# C types of lttng-modules' ctf_integer fields on x86_64: (bits, signed)
CTYPES = {
    "char": (8, True), "signed char": (8, True), "unsigned char": (8, False), "bool": (8, False),
    "short": (16, True), "unsigned short": (16, False), "int": (32, True), "unsigned int": (32, False),
    "unsigned": (32, False), "long": (64, True), "unsigned long": (64, False), "long long": (64, True),
    "unsigned long long": (64, False), "s8": (8, True), "u8": (8, False), "s16": (16, True),
    "u16": (16, False), "s32": (32, True), "u32": (32, False), "s64": (64, True), "u64": (64, False),
    "int8_t": (8, True), "uint8_t": (8, False), "int16_t": (16, True), "uint16_t": (16, False),
    "int32_t": (32, True), "uint32_t": (32, False), "int64_t": (64, True), "uint64_t": (64, False),
    "pid_t": (32, True), "uid_t": (32, False), "gid_t": (32, False), "size_t": (64, False),
    "ssize_t": (64, True), "loff_t": (64, True), "sector_t": (64, False), "dev_t": (32, False),
    "gfp_t": (32, False), "clockid_t": (32, True), "umode_t": (16, False), "ino_t": (64, False),
    "pgoff_t": (64, False), "ktime_t": (64, True), "time64_t": (64, True), "blkcnt_t": (64, False),
    "unsigned int __bitwise": (32, False), "__u32": (32, False), "__u64": (64, False), "__s32": (32, True),
    "__u16": (16, False), "__u8": (8, False), "__be16": (16, False), "__be32": (32, False),
    "enum hrtimer_mode": (32, False), "enum pid_type": (32, False), "fmode_t": (32, False),
}


def ctype_int(t):
    """(bits, signed) of a C type as lttng-modules writes it, or None when it is not known."""
    t = " ".join(t.replace("const ", "").split())
    if t.endswith("*"):
        return (64, False)
    return CTYPES.get(t)


def load_table():
    t = json.loads(TABLE.read_text())
    return t, {k: v for k, v in t["events"].items() if v["system"] in SYSTEMS}


def tracefs_system(tp):
    """The tracefs system of kernel tracepoint tp on this machine, or None."""
    for sysdir in TRACEFS.iterdir():
        if (sysdir / tp / "format").exists():
            return sysdir.name
    return None


def metadata_classes(trace):
    """{event name: [(field name, kind, bits, signed)]} from the trace's metadata, via bt2."""
    import bt2
    out = {}
    for m in bt2.TraceCollectionMessageIterator(str(trace)):
        if type(m) is not bt2._StreamBeginningMessageConst:
            continue
        for ec in m.stream.cls.values():
            fields = []
            fc = ec.payload_field_class
            for name, member in (fc.items() if fc is not None else []):
                c = member.field_class
                if isinstance(c, bt2._IntegerFieldClassConst):
                    signed = isinstance(c, bt2._SignedIntegerFieldClassConst)
                    fields.append((name, "enum" if isinstance(c, bt2._EnumerationFieldClassConst) else "int",
                                   c.field_value_range, signed))
                elif isinstance(c, bt2._StringFieldClassConst):
                    fields.append((name, "string", None, None))
                elif isinstance(c, bt2._ArrayFieldClassConst):
                    fields.append((name, "array", None, None))
                else:
                    fields.append((name, type(c).__name__, None, None))
            out[ec.name] = fields
        break
    return out


# scry's deliberate differences (docs/FORMAT.md, "Where scry's tracepoints differ from
# lttng-modules'").  EXTRA: fields of the kernel's record that lttng-modules leaves out and scry
# keeps (a reader keying on LTTng's fields finds them all, in LTTng's order; the others come
# after or between them).  MISSING: fields lttng-modules computes from the tracepoint's
# arguments, which are not in the kernel's trace record scry copies.  WIDTH: integers scry
# keeps at the kernel record's width.
BLOCK_KEPT = {"ioprio", "cmd"}
WB_WORK = {"nr_pages", "sb_dev", "sync_mode", "for_kupdate", "range_cyclic", "for_background", "reason"}
SKB_RX = {"name", "napi_id", "queue_mapping", "vlan_tagged", "vlan_proto", "vlan_tci", "protocol", "ip_summed",
          "hash", "l4_hash", "len", "data_len", "truesize", "mac_header_valid", "mac_header", "nr_frags",
          "gso_size", "gso_type"}
SIGINFO = {"si_pid", "si_uid", "si_status", "si_utime", "si_stime", "si_addr", "si_value"}
EXTRA = {
    "block_rq_complete": BLOCK_KEPT, "block_rq_insert": BLOCK_KEPT, "block_rq_issue": BLOCK_KEPT,
    "block_rq_merge": BLOCK_KEPT, "block_rq_requeue": BLOCK_KEPT, "block_rq_remap": {"nr_bios"},
    "kmem_cache_alloc": {"name"},
    "net_if_receive_skb_entry": SKB_RX, "net_if_receive_skb_list_entry": SKB_RX, "net_if_rx_entry": SKB_RX,
    "net_napi_gro_frags_entry": SKB_RX, "net_napi_gro_receive_entry": SKB_RX,
    "signal_generate": SIGINFO | {"tgid"}, "signal_deliver": SIGINFO,
    "writeback_exec": WB_WORK, "writeback_queue": WB_WORK, "writeback_start": WB_WORK,
    "writeback_wait": WB_WORK, "writeback_written": WB_WORK,
    "writeback_queue_io": {"age", "reason"},
}
for _e in ("writeback_queue", "writeback_exec", "writeback_start", "writeback_written", "writeback_wait",
           "writeback_wake_background", "writeback_queue_io", "writeback_sb_inodes_requeue",
           "writeback_single_inode", "writeback_single_inode_start", "writeback_write_inode",
           "writeback_write_inode_start", "writeback_bdi_dirty_ratelimit", "writeback_wbc_writepage"):
    EXTRA[_e] = EXTRA.get(_e, set()) | {"cgroup_ino"}      # the kernel's CONFIG_CGROUP_WRITEBACK field
MISSING = {
    "kmem_kmalloc": {"accounted"},
    "kmem_mm_page_alloc": {"page"}, "kmem_mm_page_alloc_extfrag": {"page"},
    "kmem_mm_page_alloc_zone_locked": {"page"}, "kmem_mm_page_free": {"page"},
    "kmem_mm_page_free_batched": {"page"},
    "net_dev_queue": {"network_header_type"}, "net_if_receive_skb": {"network_header_type"},
    "net_if_rx": {"network_header_type"},
}
WIDTH = {
    ("x86_exceptions_page_fault_user", "error_code"), ("x86_exceptions_page_fault_kernel", "error_code"),
}


def compare(name, lttng, scry_fields):
    """The differences of one event from lttng-modules' definition: a list of strings."""
    diffs = []
    want = [f for f in lttng["fields"] if f[1] != "ctf_custom_field" and f[0] not in MISSING.get(name, ())]
    have = [f for f in scry_fields if not (f[0].startswith("_") and f[0].endswith("_length"))]
    extra = EXTRA.get(name, set())
    wn, hn = [f[0] for f in want], [f[0] for f in have if f[0] not in extra or f[0] in
                                      {w[0] for w in want}]
    if wn != hn:
        diffs.append(f"fields {hn} != lttng-modules' {wn}")
    for x in extra:
        if x not in [f[0] for f in have]:
            diffs.append(f"{x}: listed as a kept kernel field, not in scry's event (stale exception)")
    hv = {f[0]: f for f in have}
    for fname, kind, ctype in want:
        h = hv.get(fname)
        if h is None or not kind.startswith(("ctf_integer", "ctf_enum")) or ctype is None:
            continue
        ref = ctype_int(ctype)
        if ref is None:
            diffs.append(f"{fname}: C type {ctype!r} unknown to this test")
        elif h[1] not in ("int", "enum"):
            diffs.append(f"{fname}: {h[1]} where lttng-modules has integer {ctype}")
        elif (h[2], h[3]) != ref and (name, fname) not in WIDTH:
            diffs.append(f"{fname}: {'s' if h[3] else 'u'}{h[2]} where lttng-modules has {ctype} "
                         f"({'s' if ref[1] else 'u'}{ref[0]})")
    return diffs


def test_fields_match_lttng_modules(record, tmp_path):
    meta, table = load_table()
    specs, tps, missing = [], [], []
    for name, ev in sorted(table.items()):
        if ev["system"] == "lttng_statedump":
            continue
        system = tracefs_system(ev["tracepoint"])
        if system is None:
            missing.append(name)
            continue
        specs.append(name)
        tps.append(f"{system}:{ev['tracepoint']}")    # enabled by the kernel's name
    r = record(tmp_path / "t", "-e", ",".join(tps + ["lttng_statedump_*"]), cmd=["/bin/true"], timeout=600)
    r.check()
    classes = metadata_classes(tmp_path / "t")
    report = []
    for name in specs + [n for n, e in table.items() if e["system"] == "lttng_statedump"]:
        if name not in classes:
            report.append(f"{name}: not in scry's metadata under this name")
            continue
        report += [f"{name}: {d}" for d in compare(name, table[name], classes[name])]
    assert not report, "differences from lttng-modules:\n" + "\n".join(report)
    # the table covers the systems, and this kernel has nearly all of their tracepoints
    assert len(specs) > 100 and len(missing) < len(specs) // 4, missing
