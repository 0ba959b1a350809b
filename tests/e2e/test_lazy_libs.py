"""tests/e2e/test_lazy_libs.py — libcurl, libxml2 and libmicrohttpd (and the ~35 libraries
they pull in) are loaded only by what uses them (src/util/lazylib.c, issue 12's start-up
time): `scry --version` has ld.so load none of them (glibc's LD_DEBUG=files), a running
`scry trace` maps none (the kernel's /proc/PID/maps, read by its own command), `scry serve`
maps libmicrohttpd and only it, scryd maps libxml2 once it saves a session.  And when one
cannot be loaded (hidden by an empty file bind-mounted over it, in a mount namespace of its
own), what needs it fails with one line naming the library and what it is needed for."""
import os
import re
import subprocess
from pathlib import Path

import pytest

from test_daemon import daemon  # noqa: F401 (a fixture)
from test_metrics import free_port, serve  # noqa: F401 (serve: the fixture, shared)

ROOT = Path(__file__).resolve().parents[2]
LAZY = {"curl": "libcurl.so.4", "xml2": "libxml2.so.2", "mhd": "libmicrohttpd.so.12"}
# what they pull in (a few of them), not mapped either
PULLED = ("libgnutls.so", "libicuuc.so", "libkrb5.so", "libldap", "libssh2.so", "libnghttp2.so")
LIBDIR = Path("/usr/lib") / subprocess.run(["gcc", "-print-multiarch"], capture_output=True,
                                           text=True).stdout.strip()


def maps_libs(text):
    """The basenames of the files mapped, from /proc/PID/maps text."""
    return {os.path.basename(line.split(None, 5)[5]) for line in text.splitlines()
            if len(line.split(None, 5)) == 6 and line.split(None, 5)[5].startswith("/")}


def lib_mapped(libs, soname):
    """soname (libxml2.so.2) among the mapped files (its real file: libxml2.so.2.9.14)."""
    return any(l == soname or l.startswith(soname + ".") for l in libs)


def pid_libs(pid):
    return maps_libs(Path(f"/proc/{pid}/maps").read_text())


def test_version_loads_none(scry):
    p = subprocess.run([scry, "--version"], capture_output=True, text=True,
                       env=dict(os.environ, LD_DEBUG="files"))
    assert p.returncode == 0, p.stderr
    loaded = set(re.findall(r"file=(\S+) \[0\];\s+needed by", p.stderr))
    assert "libbpf.so.1" in loaded, f"ld.so's trace not understood:\n{p.stderr}"
    for name in list(LAZY.values()) + list(PULLED):
        assert not any(l.startswith(name) for l in loaded), f"{name} loaded by scry --version: {sorted(loaded)}"


def test_trace_maps_none(scry):
    """The traced command reads its parent's (scry's) maps while scry traces it."""
    p = subprocess.run([scry, "trace", "-o", "/dev/null", "--", "sh", "-c", "cat /proc/$PPID/maps"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    libs = maps_libs(p.stdout)
    assert os.path.realpath(scry) in p.stdout and lib_mapped(libs, "libbpf.so.1"), p.stdout
    for name in list(LAZY.values()) + list(PULLED):
        assert not lib_mapped(libs, name) and not any(l.startswith(name) for l in libs), \
            f"{name} mapped by scry trace: {sorted(libs)}"


def test_serve_maps_microhttpd_only(serve):
    s = serve(None, "--counter", "calls_total:syscall")
    _, text = s.scrape()
    assert "scry_scrapes_total" in text or "calls_total" in text, text
    libs = pid_libs(s.proc.pid)
    assert lib_mapped(libs, LAZY["mhd"]), sorted(libs)
    assert not lib_mapped(libs, LAZY["curl"]) and not lib_mapped(libs, LAZY["xml2"]), sorted(libs)


def test_daemon_maps_libxml2_once_saving(daemon, tmp_path):
    daemon.run("create", "s", "-o", tmp_path / "trace")
    pid = daemon.pid()
    assert pid, "no scryd.pid"
    libs = pid_libs(pid)
    assert not any(lib_mapped(libs, n) for n in LAZY.values()), sorted(libs)
    daemon.run("save", "-o", tmp_path / "s.lttng")
    assert "<name>s</name>" in (tmp_path / "s.lttng").read_text()
    libs = pid_libs(pid)
    assert lib_mapped(libs, LAZY["xml2"]), sorted(libs)
    assert not lib_mapped(libs, LAZY["curl"]) and not lib_mapped(libs, LAZY["mhd"]), sorted(libs)


def hidden(soname):
    """A command prefix running it where soname's file is empty (a mount namespace of its own)."""
    real = os.path.realpath(LIBDIR / soname)
    assert os.path.exists(real), f"{LIBDIR / soname} missing (scripts/deps.sh installs it)"
    return ["unshare", "-m", "sh", "-c", f'mount --bind /dev/null {real} && exec "$@"', "sh"]


def one_line_error(stderr, prefix, soname, purpose):
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert re.fullmatch(re.escape(f"{prefix}: cannot load {soname} (needed for {purpose}): ") + r".*\S.*",
                        lines[0]), stderr


def test_missing_libmicrohttpd_one_line(scry):
    port = free_port()
    p = subprocess.run(hidden(LAZY["mhd"]) + [scry, "serve", "--counter", "c:syscall", "--listen",
                                              f"127.0.0.1:{port}", "--duration", "1"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 1
    one_line_error(p.stderr, "scry serve", LAZY["mhd"], "the metrics' HTTP endpoint")


def test_missing_libcurl_one_line(scry):
    port = free_port()
    p = subprocess.run(hidden(LAZY["curl"]) + [scry, "serve", "--config", str(ROOT / "examples" / "spans.yaml"),
                                               "--listen", f"127.0.0.1:{port}", "--duration", "1"],
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{free_port()}"))
    assert p.returncode == 1
    one_line_error(p.stderr, "scry serve", LAZY["curl"], "OTLP export")


def test_missing_libxml2_one_line(daemon, tmp_path):
    """The daemon started by create lives in the namespace: its save and load fail, one line
    each, and it keeps serving."""
    daemon.run("create", "s", "-o", tmp_path / "trace", prefix=hidden(LAZY["xml2"]))
    for verb in (["save", "-o", tmp_path / "s.lttng"], ["load", ROOT / "tests" / "fuzz" / "corpus" / "session_xml" / "lttng_style"]):
        p = daemon.run(*verb, check=False)
        assert p.returncode == 1
        one_line_error(p.stderr, "scry", LAZY["xml2"], "LTTng session files")
    assert not (tmp_path / "s.lttng").exists()
    assert "s" in daemon.run("list").stdout
