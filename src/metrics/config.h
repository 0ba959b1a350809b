/* config.h — a metrics config (YAML, ebpf_exporter's spirit; docs/METRICS.md): counters and
 * histograms of syscalls, each with its labels (a source the kernel keys the series by,
 * then decoders that turn the raw value into the label's text), parsed with libyaml and
 * checked whole before anything starts; a bad one gives one line naming the file, the
 * line and the key.  Also what the kernel is given (scry_metrics_abi) and the label
 * decoders (scry_metric_decode). */
#ifndef SCRY_METRICS_CONFIG_H
#define SCRY_METRICS_CONFIG_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "scry_abi.h"

#define SCRY_METRIC_DEFAULT_MAX_ENTRIES 4096
#define SCRY_METRIC_MAX_MAX_ENTRIES     (1u << 20)
#define SCRY_METRIC_MAX_LABELS          6

enum scry_decoder_kind {
	SCRY_DEC_UINT = 1,    /* the number, in decimal */
	SCRY_DEC_STRING,      /* the bytes up to the first NUL (comm) */
	SCRY_DEC_SYSCALL,     /* a syscall number: its name ("openat") */
	SCRY_DEC_ERRNO,       /* an errno: its name ("ENOENT"); 0 (no error) is "0" */
	SCRY_DEC_STATIC_MAP,  /* the text so far -> the map's value; unknown: the series is a
			       * decoder error, or kept as is with allow_unknown */
	SCRY_DEC_REGEXP,      /* the series is kept only if the text matches one of regexps */
	SCRY_DEC_MAJORMINOR,  /* a block device (dev_t, major << 20 | minor): its name ("loop3",
			       * /sys/dev/block/MAJ:MIN), or "MAJ:MIN" when it is gone */
	SCRY_DEC_CGROUP,      /* a cgroup v2 id: its directory (metrics/sysnames.h) */
	SCRY_DEC_KSYM,        /* a kernel address (wchan): its function */
	SCRY_DEC_INET_IP,     /* an IP address (addr): its text */
	SCRY_DEC_CONTAINER,   /* a cgroup v2 id: the container its path names (util/cgroup.h),
			       * "" for none (the host, or a cgroup gone) */
};

struct scry_decoder {
	enum scry_decoder_kind kind;
	char **map_keys, **map_values;   /* static_map */
	size_t nmap;
	bool allow_unknown;
	regex_t *res;                    /* regexp (POSIX extended, anchored by the user) */
	size_t nres;
};

struct scry_metric_label {
	char *name;
	uint32_t source;                 /* one SCRY_ML_* bit */
	enum scry_decoder_kind base;     /* the source's own decoder (source container: the cgroup
					  * read as its container) */
	struct scry_decoder *decoders;
	size_t ndecoders;
};

struct scry_metric {
	char *name, *help;
	struct scry_metric_desc desc;    /* what the kernel does (scry_abi.h) */
	uint32_t max_entries;            /* series in the kernel at most */
	double multiplier;               /* histograms: bucket bounds and sum scaled by it */
	struct scry_metric_label *labels;
	size_t nlabels;
	bool all_syscalls;
	uint8_t *syscalls;               /* !all_syscalls: per syscall number, 1 when fed */
	struct scry_metric_bounds bounds;    /* SCRY_HB_FIXED: bucket_keys, the rest ~0 */
};

struct scry_metrics_config {
	char *file;
	struct scry_metric *metrics;
	size_t nmetrics;
	bool process_spans;              /* tracing: spans: - name: process (spans/procspans.h) */
	/* kernel spans (tracing: spans: syscall, block_io, sched_wait): SCRY_METRIC_SPAN
	 * descriptors in metrics[nmetrics .. nmetrics + nspans), after the metrics */
	size_t nspans;
	struct { uint8_t event; uint64_t min_ns; } kspans[3];
	size_t nkspans;
	/* tracing: parent: the application's probe that marks a thread with its span, the kernel
	 * spans' parent: usdt: PATH:PROVIDER:NAME (provider set) or uprobe: PATH:FUNCTION */
	char *parent_path, *parent_provider, *parent_name;
};

/* How syscall names and numbers are known (the catalog, or a table in tests): nr of
 * name (-1: none), name of nr (NULL: none). */
struct scry_syscall_names {
	int (*nr)(void *ctx, const char *name);
	const char *(*name)(void *ctx, unsigned nr);
	void *ctx;
};

/* Parse text (len bytes) read from file.  0 and *out, or -EINVAL and a one-line error in
 * err: "FILE:LINE: KEY: what is wrong". */
int scry_metrics_config_parse(const char *text, size_t len, const char *file, const struct scry_syscall_names *sn,
			      struct scry_metrics_config **out, char *err, size_t errlen);
/* Read and parse path ("-": the built-in config of scry top is not a file: see cli). */
int scry_metrics_config_load(const char *path, const struct scry_syscall_names *sn,
			     struct scry_metrics_config **out, char *err, size_t errlen);
void scry_metrics_config_free(struct scry_metrics_config *c);

/* What the kernel is given: descs[nmetrics + nspans], max_entries[...], sc_masks[SCRY_MAX_SYSCALLS],
 * bounds[...]. */
void scry_metrics_abi(const struct scry_metrics_config *c, struct scry_metric_desc *descs, uint32_t *max_entries,
		      uint32_t *sc_masks, struct scry_metric_bounds *bounds);

/* The text of label l of a series keyed by k, through its decoders, in buf.  1: the text;
 * 0: the series is skipped (a regexp did not match); -1: a decoder error (counted). */
int scry_metric_decode(const struct scry_metric_label *l, const struct scry_metric_key *k,
		       const struct scry_syscall_names *sn, char *buf, size_t buflen);

/* The name of block device dev (kernel dev_t) in buf: 1. */
int scry_metric_majorminor(uint32_t dev, char *buf, size_t buflen);

#endif /* SCRY_METRICS_CONFIG_H */
