// SPDX-License-Identifier: GPL-2.0
/* net.bpf.h — the net source (net:connections): one net_connection event per TCP
 * connection, written when it reaches TCP_CLOSE, as bcc's tcplife finds them, from the
 * sock:inet_sock_set_state BTF tracepoint (no kprobe).  A connection is followed from its
 * start (net_conns in maps.bpf.h): SYN_SENT for an active open, in connect() (the connecting
 * task is its owner); SYN_RECV of the child socket for a passive one, made in softirq at
 * the handshake's end, whose owner is the task whose accept()/accept4() returns it (the
 * syscalls' own tracepoints).  At TCP_CLOSE: the 4-tuple, the owner, the data bytes sent
 * and acknowledged and those received (tcp_sock's bytes_acked and bytes_received less the
 * SYN and FIN they count), the segments in and out, the retransmissions and the time since
 * the start.  Connections opened before recording began are not listed; a
 * passive one never accepted has no owner (pid 0) and is listed system-wide (-a) only.
 * The header's contexts are those of the task current at the close (in softirq: whichever
 * ran); the owner is in the payload. */

#define SCRY_IPPROTO_TCP     6
#define SCRY_TCP_SYN_SENT    2
#define SCRY_TCP_SYN_RECV    3
#define SCRY_TCP_FIN_WAIT1   4
#define SCRY_TCP_FIN_WAIT2   5
#define SCRY_TCP_CLOSE       7
#define SCRY_TCP_LAST_ACK    9
#define SCRY_TCP_CLOSING     11
#define SCRY_TCP_LISTEN      10

/* The payload after the header (src/catalog/event_net.c lays out the same fields). */
#define NET_OFF_FAMILY   0
#define NET_OFF_DIR      2
#define NET_OFF_SADDR    3
#define NET_OFF_SPORT    (NET_OFF_SADDR + SCRY_NET_ADDR_LEN)
#define NET_OFF_DADDR    (NET_OFF_SPORT + 2)
#define NET_OFF_DPORT    (NET_OFF_DADDR + SCRY_NET_ADDR_LEN)
#define NET_OFF_PID      (NET_OFF_DPORT + 2)
#define NET_OFF_TID      (NET_OFF_PID + 4)
#define NET_OFF_COMM     (NET_OFF_TID + 4)
#define NET_OFF_SENT     (NET_OFF_COMM + SCRY_COMM_LEN)
#define NET_OFF_RECV     (NET_OFF_SENT + 8)
#define NET_OFF_SEGS_OUT (NET_OFF_RECV + 8)
#define NET_OFF_SEGS_IN  (NET_OFF_SEGS_OUT + 4)
#define NET_OFF_RETRANS  (NET_OFF_SEGS_IN + 4)
#define NET_OFF_DUR      (NET_OFF_RETRANS + 4)
#define NET_PAYLOAD      (NET_OFF_DUR + 8)

/* The text of address a (16 bytes; IPv4 in the first 4) at out, NUL-padded to
 * SCRY_NET_ADDR_LEN: IPv4 dotted, IPv6 as RFC 5952 (lowercase groups without leading
 * zeros, the first longest run of two or more zero groups as "::", ::ffff:a.b.c.d when
 * v4-mapped), by bpf_snprintf: %pI4 for IPv4 (its %pI6 has no compressed form), for IPv6
 * each group made without a branch (":" and its digits in a word) and the eight joined
 * by "%s", the run's groups replaced by "" and its first by the colons that stand for it.
 * Branchy digit-by-digit formatting took the verifier ~1 s. */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "net_group_text packs characters little-endian"
#endif

/* ":" (unless first) and group g's hex digits, NUL-terminated, as a word's bytes */
static __always_inline __u64 net_group_text(__u32 g, bool first)
{
	__u64 nd = 1 + ((g + 0xfff0) >> 16) + ((g + 0xff00) >> 16) + ((g + 0xf000) >> 16), w = 0;

#pragma unroll
	for (int k = 0; k < 4; k++) {
		__u64 d = g >> (12 - 4 * k) & 15;

		__u64 af = (d + 6) >> 4;

		barrier_var(af);        /* kept a product: LLVM makes a 0/1 factor a branch */
		w |= ('0' + d + 39 * af) << (8 * k);   /* 0-9, a-f */
	}
	barrier_var(nd);
	w >>= 8 * (4 - nd);             /* the leading zeros dropped */
	return first ? w : ':' | w << 8;
}

/* 1 when a == b, without a branch */
static __always_inline __u64 net_eq(__u64 a, __u64 b)
{
	__u64 x = a ^ b, r;

	r = 1 - ((x | -x) >> 63);
	barrier_var(r);
	return r;
}

static __noinline void net_addr_text(__u8 *out, const __u8 *a, bool v6)
{
	__u64 grp[8], args[8], best = 0, blen = 0, run = 0;

	if (!v6 || (!*(__u64 *)a && *(__u32 *)(a + 8) == 0xffff0000)) {   /* IPv4, v4-mapped */
		args[0] = (__u64)(v6 ? a + 12 : a);
		if (v6)
			bpf_snprintf((char *)out, SCRY_NET_ADDR_LEN, "::ffff:%pI4", args, 8);
		else
			bpf_snprintf((char *)out, SCRY_NET_ADDR_LEN, "%pI4", args, 8);
		return;
	}
#pragma unroll
	for (int i = 0; i < 8; i++) {
		__u32 g = (__u32)a[2 * i] << 8 | a[2 * i + 1];
		__u64 longer, zero = 1 - ((g + 0xffff) >> 16);

		grp[i] = net_group_text(g, i == 0);
		barrier_var(zero);
		run = (run + 1) * zero;                              /* zero groups so far */
		longer = (blen - run) >> 63;                         /* run > blen */
		barrier_var(longer);
		blen += longer * (run - blen);
		best += longer * (i + 1 - run - best);
	}
	/* the run's groups emptied, its first made the colons that stand for it: "a" ":" ":c",
	 * "::" ":c", "a" "::" (no run under two groups) */
	__u64 two = 1 - ((blen - 2) >> 63), end = net_eq(best + blen, 8);

	barrier_var(two);
#pragma unroll
	for (int i = 0; i < 8; i++) {
		__u64 ge = 1 - (((__u64)i - best) >> 63), lt = ((__u64)i - best - blen) >> 63, in;

		barrier_var(ge);
		barrier_var(lt);
		in = two * ge * lt;
		barrier_var(in);

		grp[i] = grp[i] * (1 - in) + in * net_eq(i, best) * (':' + (':' << 8) * end);
		args[i] = (__u64)&grp[i];
	}
	bpf_snprintf((char *)out, SCRY_NET_ADDR_LEN, "%s%s%s%s%s%s%s%s", args, sizeof(args));
}

/* The connection's entry, made when it starts (t: current, the owner of an active open). */
static __always_inline void net_conn_start(struct sock *sk, struct task_struct *t, bool active)
{
	struct net_conn c = { .start = scry_now(), .active = active };
	__u64 key = (__u64)sk;

	if (t) {
		c.pid = t->tgid;
		c.tid = t->pid;
		__builtin_memcpy(c.comm, t->comm, SCRY_COMM_LEN);
		c.owned = 1;
	}
	if (bpf_map_update_elem(&net_conns, &key, &c, BPF_ANY))
		count_drop(false);      /* full: its event will not be written */
}

/* The data bytes sent and acknowledged: bytes_acked counts what snd_una advanced by, the
 * SYN of an active open (once the SYN-ACK came) and the FIN (once acknowledged) included.
 * The FIN was sent when the close came from FIN_WAIT1, FIN_WAIT2, CLOSING or LAST_ACK, and
 * acknowledged when nothing is unacknowledged (its sequence number is in write_seq). */
static __always_inline __u64 net_data_sent(struct sock *sk, const struct net_conn *c, int oldstate)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	__u64 n = BPF_CORE_READ(tp, bytes_acked);
	bool fin_sent = oldstate == SCRY_TCP_FIN_WAIT1 || oldstate == SCRY_TCP_FIN_WAIT2 ||
			oldstate == SCRY_TCP_CLOSING || oldstate == SCRY_TCP_LAST_ACK;

	if (c->active && n)
		n--;
	if (fin_sent && n && BPF_CORE_READ(tp, snd_una) == BPF_CORE_READ(tp, write_seq))
		n--;
	return n;
}

/* The data bytes received: bytes_received counts what rcv_nxt advanced by, a received FIN
 * included, which tcp_fin() marks with SOCK_DONE. */
static __always_inline __u64 net_data_received(struct sock *sk)
{
	__u64 n = BPF_CORE_READ((struct tcp_sock *)sk, bytes_received);
	unsigned long flags = BPF_CORE_READ(sk, __sk_common.skc_flags);   /* sk_flags */

	if ((flags >> bpf_core_enum_value(enum sock_flags, SOCK_DONE) & 1) && n)
		n--;
	return n;
}

/* The net_connection event of c, sk closing now. */
static __always_inline void net_conn_write(struct sock *sk, const struct net_conn *c, int oldstate)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct inet_sock *in = (struct inet_sock *)sk;
	__u16 family = BPF_CORE_READ(sk, __sk_common.skc_family);
	struct { __u8 a[16]; } __attribute__((aligned(8))) sa = {}, da = {};
	__u32 hs;
	__u8 *e, *p;

	if (family == SCRY_AF_INET6) {
		BPF_CORE_READ_INTO(&sa.a, sk, __sk_common.skc_v6_rcv_saddr);
		BPF_CORE_READ_INTO(&da.a, sk, __sk_common.skc_v6_daddr);
	} else {
		BPF_CORE_READ_INTO((__u32 *)sa.a, in, inet_saddr);
		BPF_CORE_READ_INTO((__u32 *)da.a, sk, __sk_common.skc_daddr);
	}
	hs = head_size();
	e = ring_reserve(hs + NET_PAYLOAD);
	if (!e)
		return;
	write_head(e, net_conn_event_id, bpf_get_current_task_btf());
	p = e + hs;
	WR(__u16, p, NET_OFF_FAMILY, family);
	WR(__u8, p, NET_OFF_DIR, c->active ? SCRY_NET_ACTIVE : SCRY_NET_PASSIVE);
	net_addr_text(p + NET_OFF_SADDR, sa.a, family == SCRY_AF_INET6);
	/* inet_sport: the local port (skc_num is 0 once the close gave the port back) */
	WR(__u16, p, NET_OFF_SPORT, bpf_ntohs(BPF_CORE_READ(in, inet_sport)));
	net_addr_text(p + NET_OFF_DADDR, da.a, family == SCRY_AF_INET6);
	WR(__u16, p, NET_OFF_DPORT, bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport)));
	WR(__s32, p, NET_OFF_PID, c->pid);
	WR(__s32, p, NET_OFF_TID, c->tid);
	__builtin_memcpy(p + NET_OFF_COMM, c->comm, SCRY_COMM_LEN);
	WR(__u64, p, NET_OFF_SENT, net_data_sent(sk, c, oldstate));
	WR(__u64, p, NET_OFF_RECV, net_data_received(sk));
	WR(__u32, p, NET_OFF_SEGS_OUT, BPF_CORE_READ(tp, segs_out));
	WR(__u32, p, NET_OFF_SEGS_IN, BPF_CORE_READ(tp, segs_in));
	WR(__u32, p, NET_OFF_RETRANS, BPF_CORE_READ(tp, total_retrans));
	WR(__u64, p, NET_OFF_DUR, scry_now() - c->start);
	ring_commit(e, hs + NET_PAYLOAD);
}

SEC("tp_btf/inet_sock_set_state") SCRY_LANE(1)
int BPF_PROG(scry_net_state, struct sock *sk, int oldstate, int newstate)
{
	struct task_struct *t = NULL;
	struct net_conn *c;
	__u64 key = (__u64)sk;

	if (BPF_CORE_READ(sk, sk_protocol) != SCRY_IPPROTO_TCP)
		return 0;
	if (newstate == SCRY_TCP_CLOSE) {
		/* its entry goes even when not recording (a session stopped and started again
		 * keeps its map): a later socket at the same address starts clean */
		if (!(c = bpf_map_lookup_elem(&net_conns, &key)))
			return 0;
		if (recording() && (c->owned || (target_all && !track_mask)))
			net_conn_write(sk, c, oldstate);
		bpf_map_delete_elem(&net_conns, &key);
		return 0;
	}
	if (!recording())
		return 0;
	if (newstate == SCRY_TCP_SYN_SENT) {
		/* connect(), in the calling task: recorded if it is a target */
		if (target_ok(NULL, &t))
			net_conn_start(sk, t, true);
	} else if (newstate == SCRY_TCP_SYN_RECV && oldstate == SCRY_TCP_LISTEN) {
		net_conn_start(sk, NULL, false);    /* a listener's child: owned once accepted */
	}
	return 0;
}

/* accept()/accept4() returned fd: the passive connection's owner is the caller. */
static __always_inline void net_accepted(long fd)
{
	struct task_struct *t = NULL;
	struct fdtable *fdt;
	struct file *f = NULL, **fds;
	struct net_conn *c;
	struct socket *so;
	__u64 key;

	if (fd < 0 || !recording())
		return;
	t = bpf_get_current_task_btf();
	fdt = BPF_CORE_READ(t, files, fdt);
	if (!fdt || fd >= BPF_CORE_READ(fdt, max_fds))
		return;
	fds = BPF_CORE_READ(fdt, fd);
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	if (!f)
		return;
	so = (struct socket *)BPF_CORE_READ(f, private_data);
	key = (__u64)BPF_CORE_READ(so, sk);
	if (!key || !(c = bpf_map_lookup_elem(&net_conns, &key)) || c->owned)
		return;
	t = NULL;
	if (!target_ok(NULL, &t)) {     /* not a target's: not listed */
		bpf_map_delete_elem(&net_conns, &key);
		return;
	}
	c->pid = t->tgid;
	c->tid = t->pid;
	__builtin_memcpy(c->comm, t->comm, SCRY_COMM_LEN);
	c->owned = 1;
}

SEC("tracepoint/syscalls/sys_exit_accept4") SCRY_LANE(0)
int scry_net_accept4(struct trace_event_raw_sys_exit *ctx)
{
	net_accepted(ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_accept") SCRY_LANE(0)
int scry_net_accept(struct trace_event_raw_sys_exit *ctx)
{
	net_accepted(ctx->ret);
	return 0;
}
