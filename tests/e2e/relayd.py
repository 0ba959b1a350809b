"""tests/e2e/relayd.py — helpers for the relay tests (issue 25): Debian's lttng-relayd started
on 127.0.0.1 with ports of its own and an output directory (stopped by the fixture), the
trace it wrote for a session found, and a fake relay (a Python server) that answers the
handshake as a test scripts it, to check how scry takes a refusal."""
import glob
import os
import socket
import struct
import subprocess
import threading
import time
from pathlib import Path


def free_ports(n):
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def wait_port(port, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port}")


class Relayd:
    def __init__(self, tmp_path):
        self.out = Path(tmp_path) / "relay-out"
        self.ctrl, self.data, self.live = free_ports(3)
        self.log = open(Path(tmp_path) / "relayd.log", "w")
        self.proc = subprocess.Popen(
            ["lttng-relayd", "-C", f"tcp://127.0.0.1:{self.ctrl}", "-D", f"tcp://127.0.0.1:{self.data}",
             "-L", f"tcp://127.0.0.1:{self.live}", "-o", str(self.out)],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
            env=dict(os.environ, LTTNG_HOME=str(tmp_path)))
        for p in (self.ctrl, self.data, self.live):
            wait_port(p)

    @property
    def url(self):
        return f"net://127.0.0.1:{self.ctrl}:{self.data}"

    def trace(self, host, name, timeout=10):
        """The relay's directory of session name of host (HOST/NAME-DATE), once its metadata is there."""
        deadline = time.monotonic() + timeout
        while True:
            found = glob.glob(str(self.out / host / f"{name}-*"))
            if found and (Path(found[0]) / "kernel" / "metadata").exists():
                assert len(found) == 1, found
                return Path(found[0])
            assert time.monotonic() < deadline, f"no trace {host}/{name}-* in {list(self.out.rglob('*'))}"
            time.sleep(0.05)

    def stop(self, sig=15):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


class FakeRelay:
    """Answers VERSION with (major, minor), then each command in turn with the bytes of
    answers (a list, one per command after VERSION); closes after the last one."""
    def __init__(self, major=2, minor=13, answers=()):
        self.srv = socket.socket()
        self.srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.srv.bind(("127.0.0.1", 0))
        self.srv.listen(4)
        self.dsrv = socket.socket()
        self.dsrv.bind(("127.0.0.1", 0))
        self.dsrv.listen(4)
        self.ctrl = self.srv.getsockname()[1]
        self.data = self.dsrv.getsockname()[1]
        self.major, self.minor, self.answers = major, minor, list(answers)
        self.commands = []
        self.t = threading.Thread(target=self.serve, daemon=True)
        self.t.start()

    def recv(self, c, n):
        b = b""
        while len(b) < n:
            chunk = c.recv(n - len(b))
            if not chunk:
                return None
            b += chunk
        return b

    def serve(self):
        c, _ = self.srv.accept()
        with c:
            while True:
                hdr = self.recv(c, 24)
                if hdr is None:
                    return
                _, size, cmd, _ = struct.unpack(">QQII", hdr)
                self.recv(c, size)
                self.commands.append(cmd)
                if cmd == 5:
                    c.sendall(struct.pack(">II", self.major, self.minor))
                elif self.answers:
                    c.sendall(self.answers.pop(0))
                else:
                    return

    @property
    def url(self):
        return f"net://127.0.0.1:{self.ctrl}:{self.data}"

    def close(self):
        self.srv.close()
        self.dsrv.close()
