"""tests/e2e/test_net_events.py — a recorded trace answers "which process talked to which
endpoint, when, through which fd" (issue 17, file and network tracking in traces): the
socket's lifecycle from the kernel's sock:inet_sock_set_state tracepoint (addresses, ports,
protocol, states) beside the syscalls that made it (bind/listen/connect with their decoded
sockaddr, accept4's new fd with its socket inode), all with the process's pid.  The workload
reports its own ports, fds and pid; every value is checked against it."""
import json
import socket
import subprocess

TCP_ESTABLISHED, TCP_SYN_SENT, TCP_LISTEN, TCP_CLOSE = 1, 2, 10, 7

PROG = r"""
import json, os, socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
c = socket.create_connection(s.getsockname()); a, _ = s.accept()
st = os.fstat(a.fileno())
print(json.dumps({"pid": os.getpid(), "server": s.getsockname()[1], "client": c.getsockname()[1],
                  "listen_fd": s.fileno(), "client_fd": c.fileno(), "accepted_fd": a.fileno(),
                  "accepted_ino": st.st_ino}), flush=True)
c.close(); a.close(); s.close()
"""


def sockaddr_port(raw):
    """The port of a struct sockaddr_in recorded as bytes."""
    assert raw[0] == socket.AF_INET and raw[1] == 0, raw
    return raw[2] << 8 | raw[3]


def test_socket_lifecycle_recorded(scry, tmp_path, bt2_read):
    out = tmp_path / "t"
    p = subprocess.run([scry, "record", "-q", "-o", str(out), "-c", "pid,procname",
                        "-e", "sock:inet_sock_set_state", "-e", "syscall:bind", "-e", "syscall:listen",
                        "-e", "syscall:connect", "-e", "syscall:accept4", "--",
                        "/usr/bin/python3", "-c", PROG], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    w = json.loads(p.stdout)
    evs = bt2_read(out).events
    assert evs and all(e["pid"] == w["pid"] for e in evs)

    def one(name, **fields):
        hits = [e for e in evs if e["name"] == name and all(e["fields"].get(k) == v for k, v in fields.items())]
        assert len(hits) == 1, (name, fields, [e["fields"] for e in evs if e["name"] == name])
        return hits[0]

    bind = one("syscall_entry_bind", fd=w["listen_fd"])
    assert sockaddr_port(bind["fields"]["_umyaddr"]) == 0          # bound to port 0: the kernel chose
    one("syscall_entry_listen", fd=w["listen_fd"])
    conn = one("syscall_entry_connect", fd=w["client_fd"])
    assert sockaddr_port(conn["fields"]["_uservaddr"]) == w["server"]
    acc = one("syscall_exit_accept4", ret=w["accepted_fd"])
    assert acc["fields"]["fd_ino"] == w["accepted_ino"] and acc["fields"]["fd_name"] == "TCP"
    assert sockaddr_port(acc["fields"]["_upeer_sockaddr"]) == w["client"]

    lo = [127, 0, 0, 1]
    states = [e for e in evs if e["name"] == "inet_sock_set_state"]
    assert all(e["fields"]["protocol"] == socket.IPPROTO_TCP and e["fields"]["family"] == socket.AF_INET
               and e["fields"]["saddr"] == lo for e in states)
    listen = one("inet_sock_set_state", newstate=TCP_LISTEN)
    assert listen["fields"]["sport"] == w["server"] and listen["ts"] > bind["ts"]
    syn = one("inet_sock_set_state", newstate=TCP_SYN_SENT)
    assert syn["fields"]["dport"] == w["server"] and syn["fields"]["daddr"] == lo
    # both ends established: the client's (client -> server) and the server's (server -> client)
    est = {(e["fields"]["sport"], e["fields"]["dport"]) for e in states if e["fields"]["newstate"] == TCP_ESTABLISHED}
    assert est == {(w["client"], w["server"]), (w["server"], w["client"])}
    assert conn["ts"] < syn["ts"] < acc["ts"]
    # every socket ends closed: the listener, the client and the accepted one
    closed = {(e["fields"]["sport"], e["fields"]["dport"]) for e in states if e["fields"]["newstate"] == TCP_CLOSE}
    assert {(w["server"], 0), (w["client"], w["server"]), (w["server"], w["client"])} <= closed
