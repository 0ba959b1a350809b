// SPDX-License-Identifier: GPL-2.0
/* syscall_ops.bpf.h — syscalls that capture user memory: the payload written by the
 * descriptor's operations (sequences, iovecs, directory entries, string arrays). */

/* ---- syscalls that capture user memory: payload written by operations -------------- */

struct sc_walk {
	const struct scry_sc_op *ops;
	struct area *a;
};

/* How a walk stopped, or goes on (struct area's walk_flags) */
#define WALK_END     1    /* STRV: the NULL that ends the array was read */
#define WALK_FULL    2    /* STRV: the event is full */
#define WALK_BAD     4    /* STRV: a slot could not be read */
#define WALK_COPYING 8    /* DIRENTS: records are copied (cleared once one was not) */

/* Where a SEQ, IOV or DIRENTS operation reads (*ptr) and its length before the max bound
 * (*len); false for a nested operation whose parent was not read (it writes nothing). */
static __always_inline bool op_source(struct area *a, const struct scry_sc_op *op, __u64 *ptr, __u64 *len)
{
	__u32 nest = a->nest, bits;
	__u8 *buf = a->buf;
	__u64 l;
	__s64 v;

	*ptr = a->regs[op->arg & 7];
	if (op->flags & SCRY_SOPF_NESTED) {
		if (!a->nest_n || nest > SCRY_EVENT_MAX)
			return false;
		*ptr = *(__u64 *)(buf + nest + op->ptr_off);
	}
	switch (op->len_src) {
	case SCRY_SLEN_ARG:
		l = a->regs[op->len_arg & 7];
		break;
	case SCRY_SLEN_RET:
		l = (__s64)a->regs[6] > 0 ? a->regs[6] : 0;
		break;
	case SCRY_SLEN_UPTR: {
		__u32 u = 0;

		if (bpf_probe_read_user(&u, 4, (void *)a->regs[op->len_arg & 7]))
			u = 0;
		l = u;
		break;
	}
	case SCRY_SLEN_ARG_BITS:
		v = (__s32)a->regs[op->len_arg & 7];
		bits = op->elem * 8;
		l = v > 0 && bits ? ((__u64)v + bits - 1) / bits : 0;
		break;
	case SCRY_SLEN_FIELD32:
		l = nest <= SCRY_EVENT_MAX ? *(__u32 *)(buf + nest + op->len_arg) : 0;
		break;
	case SCRY_SLEN_FIELD64:
		l = nest <= SCRY_EVENT_MAX ? *(__u64 *)(buf + nest + op->len_arg) : 0;
		break;
	default:
		l = op->max;
		break;
	}
	if ((op->flags & SCRY_SOPF_OK_ONLY) && (__s64)a->regs[6] < 0)
		l = 0;
	if (!*ptr)
		l = 0;
	*len = l;
	return true;
}

/* SEQ: uint32 n, then n elements.  A SEQ that is not nested becomes the parent of the
 * nested operations that follow. */
static __always_inline void op_seq(struct area *a, const struct scry_sc_op *op, __u32 pos)
{
	__u32 elem = op->elem, n, bytes, room;
	__u8 *buf = a->buf;
	__u64 ptr, len;

	if (!op_source(a, op, &ptr, &len)) {
		a->pos = pos;
		return;
	}
	if (op->len_src == SCRY_SLEN_FIXED) {   /* int[2]: 8 bytes, zero when unreadable */
		__u64 v = 0;

		if (len && bpf_probe_read_user(&v, 8, (void *)ptr))
			v = 0;
		WR(__u64, buf, pos, v);
		a->pos = pos + 8;
		return;
	}
	if (!elem)
		len = 0;
	n = len < op->max ? (__u32)len : op->max;
	bytes = n * elem;
	room = SCRY_SEQ_MAX;
	if (bytes > room) {
		n = room / elem;
		bytes = n * elem;
		count_truncated();
	}
	if (bytes > SCRY_SEQ_MAX)
		bytes = 0;
	if (bytes && bpf_probe_read_user(buf + pos + 4, bytes, (void *)ptr)) {
		n = 0;
		bytes = 0;
	}
	WR(__u32, buf, pos, n);
	if (!(op->flags & SCRY_SOPF_NESTED)) {
		a->nest = pos + 4;
		a->nest_n = n;
	}
	a->pos = pos + 4 + bytes;
}

/* One IOV walk (bpf_loop callback data; what changes as it goes is in the area: walk_n,
 * walk_room, walk_left). */
struct iov_walk {
	struct area *a;
	__u64 vec;            /* the user iovec array */
	__u32 n;              /* iovecs to read */
	__u32 each;           /* data bytes kept per iovec */
	__u32 retdata;
};

/* iovec i: {u64 iov_base, u64 iov_len} read in place, then uint32 dn and dn bytes */
static long iov_one(__u32 i, void *data)
{
	struct iov_walk *w = data;
	struct area *a = w->a;
	__u32 pos = a->pos, room = a->walk_room;
	__u8 *buf = a->buf;
	__u64 base, len, dn;

	if (i >= w->n || pos > SCRY_EVENT_MAX)
		return 1;
	if (bpf_probe_read_user(buf + pos, 16, (void *)(w->vec + 16 * (__u64)i)))
		return 1;
	base = *(__u64 *)(buf + pos);
	len = *(__u64 *)(buf + pos + 8);
	if (w->retdata) {
		__u64 left = a->walk_left;

		if (len > left)
			len = left;
		a->walk_left = left - len;
	}
	dn = len < w->each ? len : w->each;
	if (dn > room) {
		dn = room;
		count_truncated();
	}
	if (dn > SCRY_SEQ_MAX)
		dn = 0;
	if (dn && bpf_probe_read_user(buf + pos + 20, dn, (void *)base))
		dn = 0;
	a->walk_room = room - (__u32)dn;
	WR(__u32, buf, pos + 16, dn);
	a->pos = pos + 20 + dn;
	a->walk_n++;
	return 0;
}

/* IOV: uint32 n, then the iovecs with their data (scry_abi.h). */
static __always_inline void op_iov(struct area *a, const struct scry_sc_op *op, __u32 pos)
{
	struct iov_walk w = { .a = a };
	__u64 ptr, len;

	if (!op_source(a, op, &ptr, &len)) {
		a->pos = pos;
		return;
	}
	w.vec = ptr;
	w.n = len < op->max ? (__u32)len : op->max;
	w.each = op->elem;
	w.retdata = op->flags & SCRY_SOPF_RETDATA;
	a->walk_left = (__s64)a->regs[6] > 0 ? a->regs[6] : 0;
	a->walk_room = SCRY_SEQ_MAX;
	a->walk_n = 0;
	a->pos = pos + 4;
	bpf_loop(w.n, iov_one, &w, 0);
	WR(__u32, a->buf, pos, a->walk_n);
}

/* One DIRENTS walk (bpf_loop callback data; what changes as it goes is in the area: the
 * next record's offset walk_off, the records copied walk_n and counted walk_count, and
 * WALK_COPYING, cleared once a record was not copied: the rest are only counted). */
struct dent_walk {
	struct area *a;
	__u64 ubuf;           /* the user buffer */
	__u64 end;            /* bytes the call returned */
	__u64 copy_end;       /* records are copied while they end within these bytes */
};

/* Record i: copied (the 19 bytes up to d_name read in place, then d_name, at most
 * d_reclen - 19 bytes with its NUL) or only counted (its d_reclen read).  Stops at a
 * record that does not end within the bytes returned. */
static long dent_one(__u32 i, void *data)
{
	struct dent_walk *w = data;
	struct area *a = w->a;
	__u32 pos = a->pos, max, copying = a->walk_flags & WALK_COPYING;
	__u64 off = a->walk_off;
	__u8 *buf = a->buf;
	__u16 reclen = 0;
	long n;

	if (off + 19 > w->end)
		return 1;
	if (copying && off + 19 <= w->copy_end && pos <= SCRY_EVENT_MAX) {
		if (bpf_probe_read_user(buf + pos, 19, (void *)(w->ubuf + off)))
			return 1;
		reclen = *(__u16 *)(buf + pos + 16);
	} else {
		copying = 0;
		if (bpf_probe_read_user(&reclen, 2, (void *)(w->ubuf + off + 16)))
			return 1;
	}
	if (reclen < 20 || off + reclen > w->end)
		return 1;
	if (copying && off + reclen <= w->copy_end && pos <= SCRY_EVENT_MAX) {
		max = reclen - 19;
		if (max > SCRY_NAME_MAX)
			max = SCRY_NAME_MAX;
		n = bpf_probe_read_user_str(buf + pos + 19, max, (void *)(w->ubuf + off + 19));
		if (n <= 0) {
			buf[pos + 19] = 0;
			n = 1;
		}
		a->pos = pos + 19 + (__u32)n;
		a->walk_n++;
	} else {
		a->walk_flags &= ~WALK_COPYING;
	}
	a->walk_off = off + reclen;
	a->walk_count++;
	return 0;
}

/* DIRENTS: the records of a getdents64 buffer, counted and the first ones copied
 * (scry_abi.h). */
static __always_inline void op_dirents(struct area *a, const struct scry_sc_op *op, __u32 pos)
{
	struct dent_walk w = { .a = a };
	__u8 *buf = a->buf;
	__u64 ptr, len;

	if (!op_source(a, op, &ptr, &len)) {
		a->pos = pos;
		return;
	}
	if ((__s64)a->regs[6] < 0 || !ptr) {
		WR(__u32, buf, pos, 0);
		a->pos = pos + 4;
		return;
	}
	w.ubuf = ptr;
	w.end = len;
	w.copy_end = len < op->max ? len : op->max;
	if (w.copy_end > SCRY_DIRENTS_MAX)
		w.copy_end = SCRY_DIRENTS_MAX;
	a->pos = pos + 12;
	a->walk_off = 0;
	a->walk_n = 0;
	a->walk_count = 0;
	a->walk_flags = WALK_COPYING;
	bpf_loop(SCRY_DIRENTS_COUNT, dent_one, &w, 0);
	WR(__u32, buf, pos, 1);
	WR(__u32, buf, pos + 4, a->walk_count);
	WR(__u32, buf, pos + 8, a->walk_n);
}

/* Counting the pointers of a user string array from index a->walk_count on (bpf_loop):
 * those before the NULL, in a->walk_count; WALK_BAD when a slot could not be read. */
struct strv_walk {
	struct area *a;
	__u64 arr;
};

static long strv_count_one(__u32 i, void *data)
{
	struct strv_walk *w = data;
	struct area *a = w->a;
	__u32 count = a->walk_count;
	__u64 p = 0;

	if (bpf_probe_read_user(&p, 8, (void *)(w->arr + 8 * (__u64)count))) {
		a->walk_flags |= WALK_BAD;
		return 1;
	}
	if (!p)
		return 1;
	a->walk_count = count + 1;
	return 0;
}

/* Copying the strings of a user string array, one per call (bpf_loop).  Where the next
 * string goes is a->pos, the strings copied a->walk_n, how it stopped a->walk_flags. */
struct strv_copy {
	struct area *a;
	__u64 arr;
	__u32 each;           /* bytes of one string at most, with its NUL */
	__u32 max;            /* strings to copy at most */
};

static long strv_copy_one(__u32 i, void *data)
{
	struct strv_copy *c = data;
	struct area *a = c->a;
	__u32 pos = a->pos, each = c->each;
	__u64 p = 0;
	long len;

	if (i >= c->max)
		return 1;
	if (pos > SCRY_EVENT_MAX) {
		a->walk_flags |= WALK_FULL;
		return 1;
	}
	if (each > SCRY_STR_MAX)
		each = SCRY_STR_MAX;
	if (bpf_probe_read_user(&p, 8, (void *)(c->arr + 8 * (__u64)i))) {
		a->faults++;
		a->walk_flags |= WALK_BAD;
		return 1;
	}
	if (!p) {
		a->walk_flags |= WALK_END;
		return 1;
	}
	len = bpf_probe_read_user_str(a->buf + pos, each, (void *)p);
	if (len < 0) {
		a->faults++;
		return 1;
	}
	if (len == 0) {   /* "" on kernels before the strncpy_from_user_nofault fix */
		a->buf[pos] = 0;
		len = 1;
	}
	a->pos = pos + (__u32)len;
	a->walk_n++;
	return 0;
}

/* STRV with SCRY_SOPF_COUNT: the array's pointer and its count of pointers; no string is
 * read (execve's envp unless --capture env).  An array that cannot be read is a fault. */
static __always_inline void op_strv_count(struct area *a, const struct scry_sc_op *op, __u32 pos)
{
	struct strv_walk w = { .a = a, .arr = a->src[op->arg & 7] };
	__u8 *buf = a->buf;
	__u32 count;

	a->walk_count = 0;
	a->walk_flags = 0;
	if (w.arr)
		bpf_loop(SCRY_STRV_COUNT_MAX, strv_count_one, &w, 0);
	count = a->walk_count;
	if (a->walk_flags & WALK_BAD) {
		a->faults++;
		if (!count)
			count = SCRY_STRV_UNREADABLE;
	}
	if (pos <= SCRY_EVENT_MAX) {
		WR(__u64, buf, pos, a->regs[op->arg & 7]);
		WR(__u32, buf, pos + 8, count);
	}
	a->pos = pos + 12;
}

/* STRV (scry_abi.h): the array's pointer, count, n, then n strings, read at src (see struct
 * area): as many as the operation asks (op->max) and the event holds; the pointers after
 * them are counted.  An array or string that cannot be read is a fault. */
static __always_inline void op_strv(struct area *a, const struct scry_sc_op *op, __u32 pos)
{
	struct strv_copy c = { .a = a, .arr = a->src[op->arg & 7], .each = op->elem, .max = op->max };
	struct strv_walk w = { .a = a, .arr = c.arr };
	__u32 start = pos, n, count;
	__u8 *buf = a->buf;

	a->pos = pos + 16;
	a->walk_n = 0;
	a->walk_flags = c.arr ? 0 : WALK_END;
	if (c.arr)
		bpf_loop(SCRY_STRV_MAX, strv_copy_one, &c, 0);
	n = a->walk_n;
	a->walk_count = n;      /* the pointers after the strings copied: counted on */
	if (!(a->walk_flags & (WALK_END | WALK_BAD)))
		bpf_loop(SCRY_STRV_COUNT_MAX - n, strv_count_one, &w, 0);
	count = a->walk_count;
	if ((a->walk_flags & WALK_FULL) && count > n)
		count_truncated();
	if ((a->walk_flags & WALK_BAD) && !count)
		count = SCRY_STRV_UNREADABLE;
	if (start <= SCRY_EVENT_MAX) {
		WR(__u64, buf, start, a->regs[op->arg & 7]);
		WR(__u32, buf, start + 8, count);
		WR(__u32, buf, start + 12, n);
	}
}

#include <bpf/bpf_endian.h>

/* FILE (scry_abi.h): what descriptor fd of the current task refers to, read from its file
 * table at the call's exit — the name the descriptor had then, whatever the task does with
 * it afterwards (the user-space printer runs behind). */
static __always_inline void file_of(struct area *a, __u32 pos, long fd)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct fdtable *fdt = BPF_CORE_READ(t, files, fdt);
	struct file *f = NULL, **fds;
	__u32 mode = 0;
	__u64 ino = 0;
	__u8 *buf = a->buf;

	if (pos > SCRY_EVENT_MAX)
		return;
	__builtin_memset(buf + pos + 12, 0, SCRY_FILE_NAME);
	if (fd >= 0 && fdt && fd < BPF_CORE_READ(fdt, max_fds)) {
		fds = BPF_CORE_READ(fdt, fd);
		bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	}
	if (f) {
		struct inode *in = BPF_CORE_READ(f, f_inode);

		mode = BPF_CORE_READ(in, i_mode);
		ino = BPF_CORE_READ(in, i_ino);
		bpf_probe_read_kernel_str(buf + pos + 12, SCRY_FILE_NAME, BPF_CORE_READ(f, f_path.dentry, d_name.name));
	}
	WR(__u32, buf, pos, mode);
	WR(__u64, buf, pos + 4, ino);
}

static __always_inline void op_file(struct area *a, const struct scry_sc_op *op, __u32 pos)
{
	__s32 fds[2] = { -1, -1 };

	if (!(op->flags & SCRY_SOPF_PAIR)) {
		file_of(a, pos, (long)a->regs[6]);
		a->pos = pos + 12 + SCRY_FILE_NAME;
		return;
	}
	if ((long)a->regs[6] < 0 || bpf_probe_read_user(fds, sizeof(fds), (void *)a->regs[op->arg & 7]))
		fds[0] = fds[1] = -1;
	file_of(a, pos, fds[0]);
	file_of(a, pos + 12 + SCRY_FILE_NAME, fds[1]);
	a->pos = pos + 2 * (12 + SCRY_FILE_NAME);
}

/* SOCK (scry_abi.h): the socket descriptor fd is, read from the kernel at the call (entry:
 * before the call changes it, as strace -yy asks; accept's at its exit): family, type,
 * protocol, state, local and peer address and port (sock_common's skc_*), a UNIX socket's
 * peer inode and bound path.  Written in place as a struct scry_sock_rec, all zero for a
 * descriptor that is not a socket. */
#define SCRY_S_IFMT   00170000
#define SCRY_S_IFSOCK 0140000
#define SCRY_AF_UNIX  1
#define SCRY_AF_INET  2
#define SCRY_AF_INET6 10

static __always_inline void op_sock(struct area *a, const struct scry_sc_op *op, __u32 pos)
{
	long fd = (op->flags & SCRY_SOPF_RETFD) ? (long)a->regs[6] : (long)(int)a->regs[op->arg & 7];
	struct task_struct *t = bpf_get_current_task_btf();
	struct fdtable *fdt = BPF_CORE_READ(t, files, fdt);
	struct file *f = NULL, **fds;
	struct scry_sock_rec *r;
	struct socket *so;
	struct sock *sk;
	__u16 family;

	if (pos > SCRY_EVENT_MAX)
		return;
	a->pos = pos + sizeof(struct scry_sock_rec);
	r = (struct scry_sock_rec *)(a->buf + pos);
	__builtin_memset(r, 0, sizeof(*r));
	if (fd >= 0 && fdt && fd < BPF_CORE_READ(fdt, max_fds)) {
		fds = BPF_CORE_READ(fdt, fd);
		bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	}
	if (!f || (BPF_CORE_READ(f, f_inode, i_mode) & SCRY_S_IFMT) != SCRY_S_IFSOCK)
		return;
	so = (struct socket *)BPF_CORE_READ(f, private_data);
	sk = BPF_CORE_READ(so, sk);
	if (!sk)
		return;
	family = BPF_CORE_READ(sk, __sk_common.skc_family);
	r->family = family;
	r->type = BPF_CORE_READ(sk, sk_type);
	r->protocol = BPF_CORE_READ(sk, sk_protocol);
	r->state = BPF_CORE_READ(sk, __sk_common.skc_state);
	r->ino = BPF_CORE_READ(f, f_inode, i_ino);
	if (family == SCRY_AF_INET || family == SCRY_AF_INET6) {
		r->lport = BPF_CORE_READ(sk, __sk_common.skc_num);
		r->rport = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
		if (family == SCRY_AF_INET) {
			bpf_probe_read_kernel(r->laddr, 4, &sk->__sk_common.skc_rcv_saddr);
			bpf_probe_read_kernel(r->raddr, 4, &sk->__sk_common.skc_daddr);
		} else {
			bpf_probe_read_kernel(r->laddr, 16, &sk->__sk_common.skc_v6_rcv_saddr);
			bpf_probe_read_kernel(r->raddr, 16, &sk->__sk_common.skc_v6_daddr);
		}
	} else if (family == SCRY_AF_UNIX) {
		struct unix_sock *u = (struct unix_sock *)sk;
		struct sock *peer = BPF_CORE_READ(u, peer);
		struct unix_address *ua = BPF_CORE_READ(u, addr);

		if (peer && bpf_core_field_exists(peer->sk_ino)) {
			/* Linux 6.17: the inode number kept in the sock, after the peer's close too
			 * (what sock_diag answers, as strace asks) */
			r->peer_ino = BPF_CORE_READ(peer, sk_ino);
		} else if (peer) {
			struct socket_alloc *ps = (struct socket_alloc *)BPF_CORE_READ(peer, sk_socket);

			if (ps)
				r->peer_ino = BPF_CORE_READ(ps, vfs_inode.i_ino);
		}
		if (ua) {
			int len = BPF_CORE_READ(ua, len) - 2;   /* less sun_family */

			if (len > 0) {
				r->path_len = len < SCRY_SOCK_PATH ? len : SCRY_SOCK_PATH;
				bpf_probe_read_kernel(r->path, SCRY_SOCK_PATH,
						      (void *)ua + bpf_core_field_offset(struct unix_address, name) + 2);
			}
		}
	}
}

/* One operation, of the kinds given (a constant: the others are compiled out). */
static __always_inline long sc_op_body(struct area *a, const struct scry_sc_op *op, const __u32 kinds)
{
	__u32 pos;
	__u8 *buf;
	__u64 v;

	if (!a || !op)
		return 1;
	pos = a->pos;
	buf = a->buf;
	if (pos > SCRY_EVENT_MAX)
		return 1;
	v = a->regs[op->arg & 7];
	switch (op->kind) {
	case SCRY_SOP_INT:
		if (op->flags & SCRY_SOPF_S32)
			v = (__s64)(__s32)v;
		else if (op->flags & SCRY_SOPF_U32)
			v = (__u32)v;
		WR(__u64, buf, pos, v);
		a->pos = pos + 8;
		break;
	case SCRY_SOP_RET:
		WR(__u64, buf, pos, a->regs[6]);
		a->pos = pos + 8;
		break;
	case SCRY_SOP_STR:
		a->pos = write_user_str(buf, pos, a->src[op->arg & 7], op->max, &a->faults);
		break;
	case SCRY_SOP_SEQ:
		if (kinds & SCRY_SOP_BIT(SCRY_SOP_SEQ))
			op_seq(a, op, pos);
		break;
	case SCRY_SOP_STRV:
		if (!(kinds & SCRY_SOP_BIT(SCRY_SOP_STRV)))
			break;
		if (op->flags & SCRY_SOPF_COUNT)
			op_strv_count(a, op, pos);
		else
			op_strv(a, op, pos);
		break;
	case SCRY_SOP_IOV:
		if (kinds & SCRY_SOP_BIT(SCRY_SOP_IOV))
			op_iov(a, op, pos);
		break;
	case SCRY_SOP_DIRENTS:
		if (kinds & SCRY_SOP_BIT(SCRY_SOP_DIRENTS))
			op_dirents(a, op, pos);
		break;
	case SCRY_SOP_FILE:
		if (kinds & SCRY_SOP_BIT(SCRY_SOP_FILE))
			op_file(a, op, pos);
		break;
	case SCRY_SOP_SOCK:
		if (kinds & SCRY_SOP_BIT(SCRY_SOP_SOCK))
			op_sock(a, op, pos);
		break;
	default:
		break;
	}
	return 0;
}

/* The operations as global functions: the verifier checks one once per program that calls
 * it, on its own, where a static bpf_loop callback is checked again at each call site
 * (sys_exit has two: an exit's operations and a deferred entry's).  Three, so that a
 * program verifies only the kinds it may meet: sys_enter an entry's, sched_prepare_exec an
 * exec's, sys_exit all (~1.4k and ~3.4k instructions less to verify). */
__noinline long sc_op_all(struct area *a, const struct scry_sc_op *op)
{
	return sc_op_body(a, op, SCRY_SOP_ALL_KINDS);
}

__noinline long sc_op_entry(struct area *a, const struct scry_sc_op *op)
{
	return sc_op_body(a, op, SCRY_SOP_ENTRY_KINDS);
}

__noinline long sc_op_exec(struct area *a, const struct scry_sc_op *op)
{
	return sc_op_body(a, op, SCRY_SOP_EXEC_KINDS);
}

static long sc_op_all_cb(__u32 i, void *data)
{
	struct sc_walk *w = data;

	return i >= SCRY_MAX_SC_OPS || sc_op_all(w->a, &w->ops[i]) ? 1 : 0;
}

static long sc_op_entry_cb(__u32 i, void *data)
{
	struct sc_walk *w = data;

	return i >= SCRY_MAX_SC_OPS || sc_op_entry(w->a, &w->ops[i]) ? 1 : 0;
}

static long sc_op_exec_cb(__u32 i, void *data)
{
	struct sc_walk *w = data;

	return i >= SCRY_MAX_SC_OPS || sc_op_exec(w->a, &w->ops[i]) ? 1 : 0;
}

/* The registers the operations read: arguments 0..5 and the return value; strings are
 * read where the arguments point. */
static __always_inline void ops_init(struct area *a, const __u64 *args, long ret)
{
	for (int i = 0; i < SCRY_MAX_ARGS; i++) {
		a->regs[i] = args[i];
		a->src[i] = args[i];
	}
	a->regs[6] = ret;
	a->faults = 0;
	a->nest_n = 0;
}

/* Build an event from its operations in the area (ops_init first); a->pos is its end.
 * kinds: SCRY_SOP_{ALL,ENTRY,EXEC}_KINDS, a constant; shape (a constant): the contexts the
 * program was made for, or 0 (ctx_mask_in). */
static __always_inline void ops_run(struct area *a, __u16 id, const struct scry_sc_op *ops, __u8 nops,
				    struct task_struct *t, __u64 ts, const __u32 kinds, const __u64 shape)
{
	struct sc_walk w = { .ops = ops, .a = a };

	a->pos = write_head_at_in(a->buf, id, t, ts, shape);
	if (kinds == SCRY_SOP_EXEC_KINDS)
		bpf_loop(nops, sc_op_exec_cb, &w, 0);
	else if (kinds == SCRY_SOP_ENTRY_KINDS)
		bpf_loop(nops, sc_op_entry_cb, &w, 0);
	else
		bpf_loop(nops, sc_op_all_cb, &w, 0);
}

/* Exit event built from its operations, handed to the ring. */
static __always_inline void exit_ops(const struct scry_sc_desc *d, const __u64 *args, long ret,
				     struct task_struct *t, const __u64 shape)
{
	struct area *a = area_get(AREA_SYS_EXIT);

	if (!a)
		return;
	ops_init(a, args, ret);
	ops_run(a, d->exit_id, d->exit_ops, d->n_exit_ops, t, scry_now(), SCRY_SOP_ALL_KINDS, shape);
	submit_in(a, a->pos, shape);
	area_put(a);
}

/* Entry of syscall id built from its operations, stamped ts; deferred like enter_strings.
 * kinds and shape as for ops_run. */
static __always_inline void enter_ops(const struct scry_sc_desc *d, long id, const __u64 *args,
				      struct task_struct *t, __u64 ts, bool defer, const __u32 kinds,
				      const __u64 shape)
{
	struct area *a = area_get(AREA_SYS_ENTER);

	if (!a)
		return;
	ops_init(a, args, 0);
	ops_run(a, d->entry_id, d->entry_ops, d->n_entry_ops, t, ts, kinds, shape);
	if (!(a->faults && defer && defer_entry(t, id, args, ts)))
		submit_in(a, a->pos, shape);
	area_put(a);
}
