"""tests/e2e/test_dist.py — dist/: the man pages scry.1 and scryd.8 (groff -ww renders them with
no warning, man -l too; every command has its section in scry.1 and every long option of every
command's --help appears in it), the bash completion (sourced in bash and queried through
COMP_WORDS: the commands, each command's options equal to those of its --help, the clocks, the
running daemon's session names), and `make install` (DESTDIR): what it installs (docs and examples too), the unit
pointing at the installed scryd, and `make uninstall` leaving nothing behind."""
import os
import re
import subprocess
from pathlib import Path

from test_daemon import daemon  # noqa: F401 (a fixture)

ROOT = Path(__file__).resolve().parents[2]
ONE_SHOT = ["record", "trace", "view", "list", "recover", "serve", "top", "profile", "daemon"]


def verbs():
    """The session commands: the table of src/ctl/verbs.c."""
    return re.findall(r'^\t\{ "([a-z-]+)",$', (ROOT / "src/ctl/verbs.c").read_text(), re.M)


def help_options(scry, cmd):
    """The long options of `scry CMD --help`: every one of its usage lines, the first of each
    option line (not those its prose mentions)."""
    text = subprocess.run([scry, cmd, "--help"], capture_output=True, text=True).stdout
    opts, usage = set(), False
    for line in text.splitlines():
        if line.startswith("usage:"):
            usage = True
        elif not line:
            usage = False
        if usage:
            opts.update(re.findall(r"--[a-z][a-z-]*", line))
        else:
            m = re.match(r"^ +(?:-[a-zA-Z], )?(--[a-z][a-z-]*)", line)
            if m:
                opts.add(m[1])
    return opts


def render(page):
    p = subprocess.run(["groff", "-ww", "-man", "-Tutf8", str(page)], capture_output=True, text=True)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    return re.sub(r".\x08", "", p.stdout)


def test_man_pages(scry):
    for page in ("scry.1", "scryd.8"):
        render(ROOT / "dist" / page)
        m = subprocess.run(["man", "-l", str(ROOT / "dist" / page)], capture_output=True, text=True,
                           env=dict(os.environ, MANWIDTH="100", MAN_KEEP_FORMATTING="0"))
        assert m.returncode == 0 and m.stderr == "" and "NAME" in re.sub(r".\x08", "", m.stdout), m.stderr
    text = (ROOT / "dist/scry.1").read_text()
    rendered = render(ROOT / "dist/scry.1").replace("\u2010", "-").replace("\u2212", "-")
    for cmd in ONE_SHOT[:-1] + verbs() + ["daemon"]:
        assert re.search(rf'^\.SS "{re.escape(cmd)}\b', text, re.M), f"no section for {cmd}"
    missing = {cmd: sorted(o for o in help_options(scry, cmd) if o not in rendered)
               for cmd in ONE_SHOT[:-1] + verbs()}
    assert not {k: v for k, v in missing.items() if v}, missing
    scryd = render(ROOT / "dist/scryd.8")
    assert all(o in scryd.replace("\u2010", "-") for o in ("--foreground", "--group", "--max-sessions-per-user"))


def complete(words, env=None):
    """COMPREPLY of the completion for the command line words (the last one being completed)."""
    script = (f"source {ROOT}/dist/scry.bash\n"
              f"COMP_WORDS=({' '.join(repr(w) if w else repr('') for w in words)})\n"
              f"COMP_CWORD={len(words) - 1}\n_scry\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n")
    p = subprocess.run(["bash", "--norc", "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    return set(p.stdout.split())


def test_bash_completion(scry, daemon):
    assert complete([scry, ""]) == set(ONE_SHOT + verbs() + ["--help", "--version"])
    assert complete([scry, "disable-c"]) == {"disable-channel"}
    for cmd in ONE_SHOT[:-1] + verbs():
        assert complete([scry, cmd, "--"]) == help_options(scry, cmd) | {"--help"}, cmd
    assert complete([scry, "enable-channel", "--tracefile-"]) == {"--tracefile-size", "--tracefile-count"}
    assert complete([scry, "create", "x", "--clock", ""]) == {"monotonic", "boot", "tai"}
    assert complete([scry, "snapshot", ""]) == {"record"}
    assert complete([str(Path(scry).parent / "scryd"), "--"]) == {"--foreground", "--group", "--help",
                                                                    "--max-sessions-per-user"}
    # session names from the running daemon (this test's), none without one
    daemon.run("create", "alpha", "-o", "/tmp/scry-dist-alpha-unused")
    daemon.run("create", "beta", "-o", "/tmp/scry-dist-beta-unused")
    assert complete([scry, "start", ""], daemon.env) == {"alpha", "beta"}
    assert complete([scry, "enable-event", "-s", "a"], daemon.env) == {"alpha"}
    assert complete([scry, "start", ""], dict(daemon.env, SCRY_RUNDIR="/nonexistent")) == set()
    daemon.run("destroy", "-a")


def installed(root):
    """Every file and link under root (relative paths), directories left out."""
    return {str(p.relative_to(root)) for p in root.rglob("*") if not p.is_dir() or p.is_symlink()}


def test_make_install(tmp_path):
    """make install into a DESTDIR puts every file the README lists, and make uninstall takes
    them all away again (scry's own directories too)."""
    make = ["make", "-s", f"DESTDIR={tmp_path}", "PREFIX=/usr"]
    p = subprocess.run(make + ["install"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    u = tmp_path / "usr"
    assert os.access(u / "bin/scry", os.X_OK) and os.readlink(u / "bin/scryd") == "scry"
    assert (u / "share/man/man1/scry.1").read_text() == (ROOT / "dist/scry.1").read_text()
    assert (u / "share/man/man8/scryd.8").exists()
    comp = u / "share/bash-completion/completions"
    assert (comp / "scry").read_text() == (ROOT / "dist/scry.bash").read_text() and os.readlink(comp / "scryd") == "scry"
    unit = (u / "lib/systemd/system/scry-sessiond.service").read_text()
    assert "ExecStart=/usr/bin/scryd --foreground" in unit, unit
    v = subprocess.run([u / "bin/scry", "--version"], capture_output=True, text=True)
    assert v.returncode == 0 and v.stdout.startswith("scry ")
    doc = "usr/share/doc/scry/"
    want = {"usr/bin/scry", "usr/bin/scryd", "usr/share/man/man1/scry.1", "usr/share/man/man8/scryd.8",
            "usr/share/bash-completion/completions/scry", "usr/share/bash-completion/completions/scryd",
            "usr/lib/systemd/system/scry-sessiond.service", doc + "README.md"}
    want |= {doc + str(f.relative_to(ROOT)) for f in (ROOT / "docs").glob("*.md")}
    want |= {doc + str(f.relative_to(ROOT)) for f in (ROOT / "examples").glob("*.yaml")}
    want |= {doc + str(f.relative_to(ROOT)) for f in (ROOT / "examples").glob("c/*") if f.is_file()}
    assert (tmp_path / doc / "examples/metrics.yaml").read_text() == (ROOT / "examples/metrics.yaml").read_text()
    got = installed(tmp_path)
    assert want <= got, sorted(want - got)
    # libscry (when the tree has it): the shared library with its soname link, headers, scry.pc
    lib = got - want
    assert all(re.fullmatch(r"usr/lib/libscry\.so(\.0(\.\d+\.\d+)?)?|usr/include/scry/[a-z_]+\.h|"
                            r"usr/lib/pkgconfig/scry\.pc|usr/share/man/man3/(lib)?scry\w*\.3", f) for f in lib), sorted(lib)
    if (ROOT / "src/api/libscry.map").exists():
        assert {"usr/lib/libscry.so.0", "usr/include/scry/scry.h", "usr/lib/pkgconfig/scry.pc"} <= lib, sorted(lib)

    p = subprocess.run(make + ["uninstall"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert installed(tmp_path) == set()
    assert not (tmp_path / doc).exists() and not (u / "include/scry").exists()
