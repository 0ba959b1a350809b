// SPDX-License-Identifier: GPL-2.0
/* tracepoints.bpf.h — the tracepoint source: any tracefs tracepoint, its payload built from
 * the raw record by the copy operations of its descriptor (slot = attach cookie); and
 * sched_process_exit's, sched_switch's, sched_wakeup{,_new}'s and sched_process_exec's
 * records rebuilt from their BTF tracepoints' arguments, written the same way. */

/* ---- generic tracepoints ----------------------------------------------------------- */

/* One walk over a descriptor's copy operations (bpf_loop callback data).  The position
 * and last copy live in the build area (struct area), not here. */
struct tp_walk {
	unsigned long base;         /* the raw trace record */
	struct scry_tp_desc *d;
	struct area *a;
};

/* Where a __data_loc / __rel_loc field's data lies in the record; *loc gets the raw u32
 * (length << 16 | offset). */
static __always_inline __u32 loc_offset(struct tp_walk *w, struct scry_tp_op *op, __u32 *loc)
{
	__u32 off;

	bpf_probe_read_kernel(loc, 4, (void *)(w->base + op->src_off));
	off = *loc & 0xffff;
	if (op->kind == SCRY_OP_STR_REL || op->kind == SCRY_OP_SEQ_REL)
		off += op->src_off + 4;   /* relative to the end of the loc field */
	return off;
}

/* lttng-modules block.h's RWBS_FLAG_* bits */
enum { RWBS_WRITE = 1, RWBS_DISCARD = 2, RWBS_READ = 4, RWBS_RAHEAD = 8, RWBS_SYNC = 32, RWBS_META = 64,
       RWBS_SECURE = 128, RWBS_FLUSH = 256, RWBS_FUA = 512, RWBS_PREFLUSH = 1024 };

/* The kernel's rwbs text (blk_fill_rwbs: [F]{W,D,DE,F,R,N}[F][A][S][M]...) at src as
 * LTTng's flags: a leading F before the operation is PREFLUSH, one after it FUA. */
static __always_inline __u32 rwbs_flags(unsigned long src)
{
	__u64 v = 0;
	__u32 fl = 0, i = 0;

	bpf_probe_read_kernel(&v, 7, (void *)src);   /* 7 characters: the text is shorter */
#define CH(k) ((char)(v >> (8 * ((k) & 7))))
	if (CH(0) == 'F' && (CH(1) == 'W' || CH(1) == 'D' || CH(1) == 'F' || CH(1) == 'R' || CH(1) == 'N')) {
		fl |= RWBS_PREFLUSH;
		i = 1;
	}
	switch (CH(i)) {
	case 'W': fl |= RWBS_WRITE; break;
	case 'D':
		fl |= RWBS_DISCARD;
		if (CH(i + 1) == 'E') {
			fl |= RWBS_SECURE;
			i++;
		}
		break;
	case 'F': fl |= RWBS_FLUSH; break;
	case 'R': fl |= RWBS_READ; break;
	default: break;
	}
	for (__u32 k = 1; k < 7; k++) {
		char c = CH(i + k);

		if (i + k >= 7 || !c)
			break;
		if (c == 'F')
			fl |= RWBS_FUA;
		else if (c == 'A')
			fl |= RWBS_RAHEAD;
		else if (c == 'S')
			fl |= RWBS_SYNC;
		else if (c == 'M')
			fl |= RWBS_META;
	}
#undef CH
	return fl;
}

static long tp_op(__u32 i, void *data)
{
	struct tp_walk *w = data;
	struct area *a = w->a;
	struct scry_tp_op *op;
	__u32 loc = 0, off, len, pos = a->pos;
	__u8 *buf = a->buf;
	long n;

	if (i >= SCRY_MAX_TP_OPS || pos > SCRY_EVENT_MAX)
		return 1;
	op = &w->d->ops[i];
	switch (op->kind) {
	case SCRY_OP_COPY:
		len = op->len;
		if (len > SCRY_STR_MAX)
			len = SCRY_STR_MAX;
		if (bpf_probe_read_kernel(buf + pos, len, (void *)(w->base + op->src_off)))
			__builtin_memset(buf + pos, 0, 8);
		a->copy_dst = pos;
		a->copy_src = op->src_off;
		a->pos = pos + len;
		break;
	case SCRY_OP_ADD32:
		off = a->copy_dst + (__u32)(op->src_off - a->copy_src);
		if (off <= SCRY_EVENT_MAX)
			*(__s32 *)(buf + off) += (__s16)op->elem;
		break;
	case SCRY_OP_STR_LOC:
	case SCRY_OP_STR_REL:
		off = loc_offset(w, op, &loc);
		n = bpf_probe_read_kernel_str(buf + pos, SCRY_STR_MAX, (void *)(w->base + off));
		if (n <= 0) {
			buf[pos] = 0;
			n = 1;
		}
		a->pos = pos + n;
		break;
	case SCRY_OP_SEQ_LOC:
	case SCRY_OP_SEQ_REL:
		off = loc_offset(w, op, &loc);
		len = loc >> 16;
		n = op->elem ? len / op->elem : 0;
		len = (__u32)n * op->elem;
		if (len > SCRY_STR_MAX - 8) {
			len = 0;
			n = 0;
		}
		WR(__u32, buf, pos, n);
		pos += 4;
		if (len && bpf_probe_read_kernel(buf + pos, len, (void *)(w->base + off)))
			__builtin_memset(buf + pos, 0, 8);
		a->pos = pos + len;
		break;
	case SCRY_OP_TID:
		WR(__s32, buf, pos, (__u32)bpf_get_current_pid_tgid());
		a->pos = pos + 4;
		break;
	case SCRY_OP_RWBS:
		WR(__u32, buf, pos, rwbs_flags(w->base + op->src_off));
		a->pos = pos + 4;
		break;
	default:
		break;
	}
	return 0;
}

struct task_struct *bpf_task_from_pid(s32 pid) __ksym __weak;
void bpf_task_release(struct task_struct *p) __ksym __weak;

/* SCRY_TP_NEXT_TASK: is the task switched in (tid at d->task_off in the record) followed? */
static __always_inline bool next_followed(unsigned long rec, struct scry_tp_desc *d)
{
	struct task_struct *next;
	__s32 tid = 0;
	bool ok;

	if (!(d->flags & SCRY_TP_NEXT_TASK) || !bpf_task_from_pid)
		return false;
	bpf_probe_read_kernel(&tid, sizeof(tid), (void *)(rec + (d->task_off & 0xfff)));
	next = bpf_task_from_pid(tid);
	if (!next)
		return false;
	ok = task_followed(next);
	bpf_task_release(next);
	return ok;
}

/* The event of descriptor slot from the raw record at rec.  own_migr (a constant): the
 * program runs under the runtime's migrate_disable() (a perf event's tracepoint: 1) or not
 * (a BTF tracepoint: 0), for the migratable context (write_head_pe_in). */
static __always_inline void tp_write(unsigned long rec, __u32 slot, const __u32 own_migr)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct tp_walk w = { .base = rec };

	if (!recording())
		return;
	w.d = bpf_map_lookup_elem(&tps, &slot);
	if (!w.d || w.d->event_id == SCRY_NO_EVENT)   /* disabled, its link on its way out */
		return;
	if (!(w.d->flags & SCRY_TP_ANY_TASK) && !target_ok(NULL, &t) && !next_followed(rec, w.d))
		return;
	if ((w.d->flags & SCRY_TP_PIDSET) && !pid_set_has(t, true, slot))
		return;
	w.a = area_get(AREA_TP);
	if (!w.a)
		return;
	w.a->pos = write_head_at_m(w.a->buf, w.d->event_id, t, scry_now(), own_migr);
	bpf_loop(w.d->nops, tp_op, &w, 0);
	submit(w.a, w.a->pos);
	area_put(w.a);
}

SEC("tracepoint") SCRY_LANE(1)
int scry_tp(void *ctx)
{
	tp_write((unsigned long)ctx, bpf_get_attach_cookie(ctx), 1);
	return 0;
}

/* ---- tracepoints written from their BTF tracepoints ---------------------------------
 * sched_process_exit and the scheduler's four that `scry record` enables by default, without
 * their tracefs tracepoints: a perf event on a tracepoint waits for RCU grace periods when it
 * is closed (perf_trace_destroy, under the kernel's event_mutex, so the closes run one after
 * another: ~30-40 ms each, ~120 ms of every `scry record`'s stop), a BTF tracepoint's link
 * does not.  The record is rebuilt as the tracepoint's TP_fast_assign fills it, at the
 * offsets of the kernel's own struct (CO-RE), which are those of its tracefs format, and
 * written by the descriptor of slot btf_tp_slot[k] - 1 (0: not written here;
 * src/kernel/attach.c sets it). */
volatile __u32 btf_tp_slot[SCRY_BTF_TP_NR];

/* The descriptor slot of BTF tracepoint k, or SCRY_MAX_TP when it is not recorded */
static __always_inline __u32 btf_tp_slot_of(int k)
{
	return btf_tp_slot[k] - 1;
}

/* A rebuilt record's field f (r: the record struct's pointer type, for CO-RE): a task's comm,
 * or a value of type */
#define REC_COMM(rec, r, f, p) bpf_probe_read_kernel((rec) + bpf_core_field_offset((r)->f), SCRY_COMM_LEN, (p)->comm)
#define REC_SET(rec, r, f, type, v) (*(type *)((rec) + bpf_core_field_offset((r)->f)) = (v))

/* sched_process_exit: called by lifecycle.bpf.h's scry_exit, the one program on the BTF
 * tracepoint (it keeps the follow sets too). */
static __always_inline void tp_exit_write(const __u64 *ctx, struct task_struct *p)
{
	struct trace_event_raw_sched_process_exit *r;
	__u8 rec[64] = {};
	__u32 slot = btf_tp_slot_of(SCRY_BTF_TP_EXIT);
	__u64 group_dead = 0;

	if (slot >= SCRY_MAX_TP || !bpf_core_type_exists(struct trace_event_raw_sched_process_exit) ||
	    bpf_core_type_size(struct trace_event_raw_sched_process_exit) > sizeof(rec))
		return;
	r = (void *)rec;
	REC_COMM(rec, r, comm, p);
	REC_SET(rec, r, pid, pid_t, p->pid);
	REC_SET(rec, r, prio, int, p->prio);
	if (bpf_core_field_exists(r->group_dead)) {    /* Linux 6.16: the tracepoint's second argument */
		group_dead = ctx[1];
		REC_SET(rec, r, group_dead, bool, group_dead);
	}
	tp_write((unsigned long)rec, slot, 0);
}

/* include/linux/sched.h's task states (a uapi of sorts: /proc and the sched_switch format
 * show them; unchanged since Linux 5.14 but for TASK_FROZEN's report, 6.13) */
#define TASK_REPORT_ 0x7f                  /* RUNNING ... PARKED, and the exit states */
#define TASK_IDLE_ 0x402                   /* UNINTERRUPTIBLE | NOLOAD */
#define TASK_RTLOCK_WAIT_ 0x1000
#define TASK_FROZEN_ 0x8000
#define TASK_REPORT_IDLE_ (TASK_REPORT_ + 1)
#define TASK_REPORT_MAX_ (TASK_REPORT_IDLE_ << 1)

/* The kernel's __trace_sched_switch_state: the state the task switched out is left in, as
 * one bit of TASK_REPORT (the index __task_state_index gives, as a bit), TASK_REPORT_MAX
 * when preempted (running). */
static __always_inline long switch_state(bool preempt, __u32 state, struct task_struct *prev)
{
	__u32 s = (state | (__u32)prev->exit_state) & TASK_REPORT_;

	if (preempt)
		return TASK_REPORT_MAX_;
	if ((state & TASK_IDLE_) == TASK_IDLE_)
		s = TASK_REPORT_IDLE_;
	if (state & (TASK_RTLOCK_WAIT_ | TASK_FROZEN_))
		s = 2;   /* TASK_UNINTERRUPTIBLE */
	/* fls(s), then 1 << (fls - 1): s's highest bit */
	for (int b = 8; b >= 0; b--)
		if (s & (1u << b))
			return 1L << b;
	return 0;
}

SEC("tp_btf/sched_switch") SCRY_LANE(1)
int BPF_PROG(scry_btf_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct trace_event_raw_sched_switch *r;
	__u8 rec[64] = {};
	__u32 slot = btf_tp_slot_of(SCRY_BTF_TP_SWITCH);

	if (slot >= SCRY_MAX_TP || bpf_core_type_size(struct trace_event_raw_sched_switch) > sizeof(rec))
		return 0;
	r = (void *)rec;
	REC_COMM(rec, r, prev_comm, prev);
	REC_SET(rec, r, prev_pid, pid_t, prev->pid);
	REC_SET(rec, r, prev_prio, int, prev->prio);
	REC_SET(rec, r, prev_state, long, switch_state(preempt, prev_state, prev));
	REC_COMM(rec, r, next_comm, next);
	REC_SET(rec, r, next_pid, pid_t, next->pid);
	REC_SET(rec, r, next_prio, int, next->prio);
	tp_write((unsigned long)rec, slot, 0);
	return 0;
}

/* sched_wakeup and sched_wakeup_new (one template): the woken task, its CPU */
static __always_inline void tp_wakeup_write(struct task_struct *p, int k)
{
	struct trace_event_raw_sched_wakeup_template *r;
	__u8 rec[48] = {};
	__u32 slot = btf_tp_slot_of(k);

	if (slot >= SCRY_MAX_TP || bpf_core_type_size(struct trace_event_raw_sched_wakeup_template) > sizeof(rec))
		return;
	r = (void *)rec;
	REC_COMM(rec, r, comm, p);
	REC_SET(rec, r, pid, pid_t, p->pid);
	REC_SET(rec, r, prio, int, p->prio);
	REC_SET(rec, r, target_cpu, int, p->thread_info.cpu);    /* task_cpu() */
	tp_write((unsigned long)rec, slot, 0);
}

SEC("tp_btf/sched_wakeup") SCRY_LANE(0)
int BPF_PROG(scry_btf_wake, struct task_struct *p)
{
	tp_wakeup_write(p, SCRY_BTF_TP_WAKEUP);
	return 0;
}

SEC("tp_btf/sched_wakeup_new") SCRY_LANE(0)
int BPF_PROG(scry_btf_wake_new, struct task_struct *p)
{
	tp_wakeup_write(p, SCRY_BTF_TP_WAKEUP_NEW);
	return 0;
}

/* sched_process_exec's record, with its filename (a __data_loc string) after the fields:
 * this CPU's (the program does not nest in itself: the kernel counts such a run missed) */
struct exec_rec {
	__u8 rec[32];
	char filename[SCRY_STR_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct exec_rec);
} exec_recs SEC(".maps");

SEC("tp_btf/sched_process_exec") SCRY_LANE(0)
int BPF_PROG(scry_btf_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct trace_event_raw_sched_process_exec *r;
	__u32 slot = btf_tp_slot_of(SCRY_BTF_TP_EXEC), zero = 0, size;
	struct exec_rec *e;
	long n;

	size = bpf_core_type_size(struct trace_event_raw_sched_process_exec);
	if (slot >= SCRY_MAX_TP || size > sizeof(e->rec) ||
	    !(e = bpf_map_lookup_elem(&exec_recs, &zero)))
		return 0;
	__builtin_memset(e->rec, 0, sizeof(e->rec));
	r = (void *)e->rec;
	n = bpf_probe_read_kernel_str(e->filename, sizeof(e->filename), bprm->filename);
	if (n <= 0) {
		e->filename[0] = 0;
		n = 1;
	}
	/* the string right after the fields, as the kernel puts it: (length << 16) | offset */
	REC_SET(e->rec, r, __data_loc_filename, __u32, (__u32)n << 16 | (__u32)offsetof(struct exec_rec, filename));
	REC_SET(e->rec, r, pid, pid_t, p->pid);
	REC_SET(e->rec, r, old_pid, pid_t, old_pid);
	tp_write((unsigned long)e->rec, slot, 0);
	return 0;
}
