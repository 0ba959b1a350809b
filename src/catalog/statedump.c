/* statedump.c — lttng-modules' statedump events (include/instrumentation/events/
 * lttng-statedump.h): their names in enum scry_sd order and their fields, names, C types
 * and display bases as LTTng declares them (pid_t int32, unsigned int uint32, dev_t
 * uint32, unsigned long uint64, ctf_integer_hex base 16, ctf_integer_oct base 8,
 * ctf_array_text char[16], ctf_string string).  Written by src/bpf/statedump.bpf.h (the
 * iterators) and src/session/statedump_items.c (what is read from /proc and /sys). */
#include <string.h>
#include "catalog/statedump.h"

#define I32(n)   { n, SCRY_F_INT, 4, true, 10, 0 }
#define U32(n)   { n, SCRY_F_INT, 4, false, 10, 0 }
#define X32(n)   { n, SCRY_F_INT, 4, false, 16, 0 }
#define O32(n)   { n, SCRY_F_INT, 4, false, 8, 0 }
#define U64(n)   { n, SCRY_F_INT, 8, false, 10, 0 }
#define X64(n)   { n, SCRY_F_INT, 8, false, 16, 0 }
#define U16(n)   { n, SCRY_F_INT, 2, false, 10, 0 }
#define U8(n)    { n, SCRY_F_INT, 1, false, 10, 0 }
#define STR(n)   { n, SCRY_F_STRING, 1, false, 10, 0 }
#define TEXT(n)  { n, SCRY_F_TEXT, 1, false, 10, SCRY_COMM_LEN }
#define NS_EVENT(n) { n, 2, { I32("tid"), U32("ns_inum") } }

const struct scry_sd_spec scry_sd_specs[SCRY_SD_NR] = {
	[SCRY_SD_START] = { "lttng_statedump_start", 0, { { 0 } } },
	[SCRY_SD_END] = { "lttng_statedump_end", 0, { { 0 } } },
	[SCRY_SD_PROCESS_STATE] = { "lttng_statedump_process_state", 10, {
		I32("tid"), I32("pid"), I32("ppid"), TEXT("name"), I32("type"), I32("mode"),
		I32("submode"), I32("status"), U32("cpu"), X64("file_table_address") } },
	[SCRY_SD_PID_NS] = { "lttng_statedump_process_pid_ns", 6, {
		I32("tid"), I32("vtid"), I32("vpid"), I32("vppid"), I32("ns_level"), U32("ns_inum") } },
	[SCRY_SD_USER_NS] = { "lttng_statedump_process_user_ns", 5, {
		I32("tid"), U32("vuid"), U32("vgid"), I32("ns_level"), U32("ns_inum") } },
	[SCRY_SD_CGROUP_NS] = NS_EVENT("lttng_statedump_process_cgroup_ns"),
	[SCRY_SD_IPC_NS] = NS_EVENT("lttng_statedump_process_ipc_ns"),
	[SCRY_SD_MNT_NS] = NS_EVENT("lttng_statedump_process_mnt_ns"),
	[SCRY_SD_NET_NS] = NS_EVENT("lttng_statedump_process_net_ns"),
	[SCRY_SD_UTS_NS] = NS_EVENT("lttng_statedump_process_uts_ns"),
	[SCRY_SD_TIME_NS] = NS_EVENT("lttng_statedump_process_time_ns"),
	[SCRY_SD_FILE_DESCRIPTOR] = { "lttng_statedump_file_descriptor", 5, {
		X64("file_table_address"), I32("fd"), O32("flags"), X32("fmode"), STR("filename") } },
	[SCRY_SD_VM_MAP] = { "lttng_statedump_vm_map", 6, {
		I32("pid"), X64("start"), X64("end"), X64("flags"), U64("inode"), U64("pgoff") } },
	[SCRY_SD_NETWORK_INTERFACE] = { "lttng_statedump_network_interface", 2, {
		STR("name"), X32("address_ipv4") } },
	[SCRY_SD_BLOCK_DEVICE] = { "lttng_statedump_block_device", 2, { U32("dev"), STR("diskname") } },
	[SCRY_SD_INTERRUPT] = { "lttng_statedump_interrupt", 4, {
		U32("irq"), STR("name"), STR("action"), I32("tid") } },
	[SCRY_SD_CPU_TOPOLOGY] = { "lttng_statedump_cpu_topology", 9, {
		STR("architecture"), U16("cpu_id"), STR("vendor"), U8("family"), U8("model"),
		STR("model_name"), U16("physical_id"), U16("core_id"), U16("cores") } },
};

int scry_sd_find(const char *name)
{
	for (int k = 0; k < SCRY_SD_NR; k++)
		if (!strcmp(name, scry_sd_specs[k].name))
			return k;
	return -1;
}
