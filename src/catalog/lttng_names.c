/* lttng_names.c — lttng-modules' event and field names where they differ from the
 * kernel's tracefs format (from lttng-modules include/instrumentation/events/{sched,irq,
 * timer,kmem,signal,power,net,writeback}.h and arch/x86/{irq_vectors,exceptions}.h), and
 * TSDL identifier escaping; block's rwbs as LTTng's flags and its tid field; the fields
 * LTTng records narrower or in another order.  tests/e2e/test_lttng_fields.py compares the
 * result with lttng-modules' headers field by field. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/internal.h"

struct event_map {
	const char *system, *event, *lttng;
};

/* LTTNG_TRACEPOINT_EVENT_MAP / _INSTANCE_MAP: the CTF event name differs. */
static const struct event_map event_names[] = {
	{ "irq", "softirq_entry", "irq_softirq_entry" },
	{ "irq", "softirq_exit", "irq_softirq_exit" },
	{ "irq", "softirq_raise", "irq_softirq_raise" },
	{ "timer", "hrtimer_init", "timer_hrtimer_init" },
	{ "timer", "hrtimer_start", "timer_hrtimer_start" },
	{ "timer", "hrtimer_expire_entry", "timer_hrtimer_expire_entry" },
	{ "timer", "hrtimer_expire_exit", "timer_hrtimer_expire_exit" },
	{ "timer", "hrtimer_cancel", "timer_hrtimer_cancel" },
	{ "timer", "itimer_state", "timer_itimer_state" },
	{ "timer", "itimer_expire", "timer_itimer_expire" },
	{ "kmem", "kmalloc", "kmem_kmalloc" },
	{ "kmem", "kfree", "kmem_kfree" },
	{ "kmem", "mm_page_free", "kmem_mm_page_free" },
	{ "kmem", "mm_page_free_batched", "kmem_mm_page_free_batched" },
	{ "kmem", "mm_page_alloc", "kmem_mm_page_alloc" },
	{ "kmem", "mm_page_alloc_zone_locked", "kmem_mm_page_alloc_zone_locked" },
	{ "kmem", "mm_page_pcpu_drain", "kmem_mm_page_pcpu_drain" },
	{ "kmem", "mm_page_alloc_extfrag", "kmem_mm_page_alloc_extfrag" },
	/* power.h */
	{ "power", "cpu_idle", "power_cpu_idle" },
	{ "power", "cpu_frequency", "power_cpu_frequency" },
	{ "power", "machine_suspend", "power_machine_suspend" },
	{ "power", "wakeup_source_activate", "power_wakeup_source_activate" },
	{ "power", "wakeup_source_deactivate", "power_wakeup_source_deactivate" },
	{ "power", "clock_enable", "power_clock_enable" },
	{ "power", "clock_disable", "power_clock_disable" },
	{ "power", "clock_set_rate", "power_clock_set_rate" },
	/* net.h */
	{ "net", "netif_receive_skb", "net_if_receive_skb" },
	{ "net", "netif_rx", "net_if_rx" },
	{ "net", "napi_gro_frags_entry", "net_napi_gro_frags_entry" },
	{ "net", "napi_gro_receive_entry", "net_napi_gro_receive_entry" },
	{ "net", "netif_receive_skb_entry", "net_if_receive_skb_entry" },
	{ "net", "netif_rx_entry", "net_if_rx_entry" },
	{ "net", "netif_rx_ni_entry", "net_if_rx_ni_entry" },
	{ "net", "netif_receive_skb_list_entry", "net_if_receive_skb_list_entry" },
	{ "net", "napi_gro_frags_exit", "net_napi_gro_frags_exit" },
	{ "net", "napi_gro_receive_exit", "net_napi_gro_receive_exit" },
	{ "net", "netif_receive_skb_exit", "net_if_receive_skb_exit" },
	{ "net", "netif_rx_exit", "net_if_rx_exit" },
	{ "net", "netif_rx_ni_exit", "net_if_rx_ni_exit" },
	{ "net", "netif_receive_skb_list_exit", "net_if_receive_skb_list_exit" },
	/* arch/x86/irq_vectors.h */
#define VECTOR(tp, lttng) { "irq_vectors", tp "_entry", lttng "_entry" }, { "irq_vectors", tp "_exit", lttng "_exit" }
	VECTOR("local_timer", "x86_irq_vectors_local_timer"),
	VECTOR("reschedule", "x86_irq_vectors_reschedule"),
	VECTOR("spurious_apic", "x86_irq_vectors_spurious_apic"),
	VECTOR("error_apic", "x86_irq_vectors_error_apic"),
	VECTOR("x86_platform_ipi", "x86_irq_vectors_ipi"),
	VECTOR("irq_work", "x86_irq_vectors_irq_work"),
	VECTOR("call_function", "x86_irq_vectors_call_function"),
	VECTOR("call_function_single", "x86_irq_vectors_call_function_single"),
	VECTOR("threshold_apic", "x86_irq_vectors_threshold_apic"),
	VECTOR("deferred_error_apic", "x86_irq_vectors_deferred_error_apic"),
	VECTOR("thermal_apic", "x86_irq_vectors_thermal_apic"),
#undef VECTOR
	/* writeback.h */
	{ "writeback", "balance_dirty_pages", "writeback_balance_dirty_pages" },
	{ "writeback", "bdi_dirty_ratelimit", "writeback_bdi_dirty_ratelimit" },
	{ "writeback", "global_dirty_state", "writeback_global_dirty_state" },
	{ "writeback", "wbc_writepage", "writeback_wbc_writepage" },
	/* arch/x86/exceptions.h */
	{ "exceptions", "page_fault_user", "x86_exceptions_page_fault_user" },
	{ "exceptions", "page_fault_kernel", "x86_exceptions_page_fault_kernel" },
};

struct field_map {
	const char *system, *event, *field, *lttng;
};

/* LTTng records thread ids as "tid" where the kernel says "pid" (task->pid). */
static const struct field_map field_names[] = {
	{ "sched", "sched_switch", "prev_pid", "prev_tid" },
	{ "sched", "sched_switch", "next_pid", "next_tid" },
	{ "sched", "sched_kthread_stop", "pid", "tid" },
	{ "sched", "sched_wakeup", "pid", "tid" },
	{ "sched", "sched_wakeup_new", "pid", "tid" },
	{ "sched", "sched_waking", "pid", "tid" },
	{ "sched", "sched_migrate_task", "pid", "tid" },
	{ "sched", "sched_process_free", "pid", "tid" },
	{ "sched", "sched_process_exit", "pid", "tid" },
	{ "sched", "sched_wait_task", "pid", "tid" },
	{ "sched", "sched_process_wait", "pid", "tid" },
	{ "sched", "sched_process_exec", "pid", "tid" },
	{ "sched", "sched_process_exec", "old_pid", "old_tid" },
	{ "sched", "sched_stat_wait", "pid", "tid" },
	{ "sched", "sched_stat_sleep", "pid", "tid" },
	{ "sched", "sched_stat_iowait", "pid", "tid" },
	{ "sched", "sched_stat_blocked", "pid", "tid" },
	{ "sched", "sched_stat_runtime", "pid", "tid" },
	{ "sched", "sched_pi_setprio", "pid", "tid" },
};

/* LTTng records priorities as task->prio - MAX_RT_PRIO (sched.h: "prio - MAX_RT_PRIO"). */
static const struct field_map prio_fields[] = {
	{ "sched", "sched_switch", "prev_prio", NULL },
	{ "sched", "sched_switch", "next_prio", NULL },
	{ "sched", "sched_wakeup", "prio", NULL },
	{ "sched", "sched_wakeup_new", "prio", NULL },
	{ "sched", "sched_waking", "prio", NULL },
	{ "sched", "sched_migrate_task", "prio", NULL },
	{ "sched", "sched_process_free", "prio", NULL },
	{ "sched", "sched_process_exit", "prio", NULL },
	{ "sched", "sched_wait_task", "prio", NULL },
	{ "sched", "sched_process_wait", "prio", NULL },
	{ "sched", "sched_pi_setprio", "oldprio", NULL },
	{ "sched", "sched_pi_setprio", "newprio", NULL },
};

static const struct field_map *find_field(const struct field_map *map, size_t n, const char *system,
					  const char *event, const char *field)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(map[i].system, system) && !strcmp(map[i].event, event) && !strcmp(map[i].field, field))
			return &map[i];
	return NULL;
}

int scry_lttng_field_adjust(const char *system, const char *event, const char *field)
{
	return find_field(prio_fields, sizeof(prio_fields) / sizeof(prio_fields[0]), system, event, field) ? -100 : 0;
}

/* kmem.h: ctf_integer(gfp_t, gfp_flags, ...) where the kernel's record holds an unsigned long */
static const struct field_map narrow_fields[] = {
	{ "kmem", "kmalloc", "gfp_flags", NULL },
	{ "kmem", "kmem_cache_alloc", "gfp_flags", NULL },
	{ "kmem", "mm_page_alloc", "gfp_flags", NULL },
};

unsigned scry_lttng_field_size(const char *system, const char *event, const char *field)
{
	return find_field(narrow_fields, sizeof(narrow_fields) / sizeof(narrow_fields[0]), system, event, field) ?
	       4 : 0;
}

/* Events whose fields lttng-modules records in another order than the kernel's format:
 * those it orders, in its order (the kernel's other fields follow them). */
static const struct field_order {
	const char *system, *event;
	const char *fields[8];
} field_orders[] = {
	{ "net", "net_dev_xmit", { "skbaddr", "rc", "len", "name" } },                         /* net.h */
	{ "block", "block_bio_remap", { "dev", "sector", "nr_sector", "rwbs", "old_dev", "old_sector" } },
	{ "block", "block_split", { "dev", "sector", "rwbs", "new_sector" } },                 /* block.h */
	{ "writeback", "global_dirty_state", { "nr_dirty", "nr_writeback", "nr_dirtied", "nr_written",
					       "background_thresh", "dirty_thresh", "dirty_limit" } },
};

const char *const *scry_lttng_field_order(const char *system, const char *event, size_t *n)
{
	for (size_t i = 0; i < sizeof(field_orders) / sizeof(field_orders[0]); i++)
		if (!strcmp(field_orders[i].system, system) && !strcmp(field_orders[i].event, event)) {
			for (*n = 0; *n < 8 && field_orders[i].fields[*n]; (*n)++)
				;
			return field_orders[i].fields;
		}
	return NULL;
}

bool scry_lttng_rwbs_flags(const char *system, const char *field)
{
	return !strcmp(system, "block") && !strcmp(field, "rwbs");
}

/* block.h: the events that record current's tid beside its comm: before rwbs in the
 * block_rq class, before comm in the others. */
const char *scry_lttng_tid_before(const char *system, const char *event)
{
	static const char *const rq[] = { "block_rq_insert", "block_rq_issue", "block_rq_merge" };
	static const char *const others[] = { "block_bio_backmerge", "block_bio_frontmerge", "block_bio_queue",
					      "block_bio_bounce", "block_getrq", "block_sleeprq", "block_split",
					      "block_plug", "block_unplug" };

	if (strcmp(system, "block"))
		return NULL;
	for (size_t i = 0; i < sizeof(rq) / sizeof(rq[0]); i++)
		if (!strcmp(event, rq[i]))
			return "rwbs";
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		if (!strcmp(event, others[i]))
			return "comm";
	return NULL;
}

/* irq.h: enum irq_softirq_names, in vector order (HI_SOFTIRQ = 0 ... RCU_SOFTIRQ) */
static const char *const softirq_names[] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL",
					     "TASKLET", "SCHED", "HRTIMER", "RCU" };

bool scry_lttng_softirq_vec(const char *system, const char *event, const char *field)
{
	return !strcmp(system, "irq") && !strncmp(event, "softirq_", 8) && !strcmp(field, "vec");
}

size_t scry_lttng_softirq_names(const char *const **labels)
{
	*labels = softirq_names;
	return sizeof(softirq_names) / sizeof(softirq_names[0]);
}

const char *scry_lttng_event_name(const char *system, const char *event)
{
	for (size_t i = 0; i < sizeof(event_names) / sizeof(event_names[0]); i++)
		if (!strcmp(event_names[i].system, system) && !strcmp(event_names[i].event, event))
			return event_names[i].lttng;
	return event;
}

const char *scry_lttng_field_name(const char *system, const char *event, const char *field)
{
	const struct field_map *m = find_field(field_names, sizeof(field_names) / sizeof(field_names[0]),
					       system, event, field);
	return m ? m->lttng : field;
}

/* Field names are written to the metadata with LTTng's leading '_' (src/ctf/metadata.c),
 * which also keeps TSDL keywords ("event", "string") valid; here only characters that
 * cannot appear in an identifier are replaced. */
char *scry_ctf_ident(const char *name)
{
	size_t n = strlen(name);
	char *out = malloc(n + 1);

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++)
		out[i] = isalnum((unsigned char)name[i]) || name[i] == '_' ? name[i] : '_';
	out[n] = '\0';
	return out;
}
