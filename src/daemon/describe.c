/* describe.c — `list NAME` and `status`: a session described as lttng 2.13's `lttng list
 * NAME` describes it (tests/e2e/test_daemon_layout.py compares them line by line): the
 * session line and its output, the kernel domain's tracked process attributes, each channel's
 * attributes (event-loss mode, sub-buffers, timers, blocking timeout, trace files, output
 * mode), statistics (discarded events, or lost packets of an overwrite channel) and recording
 * event rules with their filters.  scry's own lines (clock, totals, metrics and spans, the
 * relay, rotation, errors; a channel's contexts, the buffer usage the monitor timer sampled;
 * the per-process event sets) come where lttng has none. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon/daemon_int.h"
#include "util/clock.h"

/* A tracker's line, lttng's: "  Process IDs:          all" (or its values, or "none":
 * an inclusion set without a value). */
static void tracker(FILE *out, const char *what, bool set, const uint32_t *v, size_t n)
{
	char label[32];

	snprintf(label, sizeof(label), "%s:", what);
	fprintf(out, "  %-22s", label);
	if (!n)
		fprintf(out, "%s", set ? "none" : "all");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%u", i ? ", " : "", v[i]);
	fprintf(out, "\n");
}

/* A timer's line: "      Switch timer:     500000 us" or "inactive". */
static void timer(FILE *out, const char *what, uint64_t us)
{
	char label[32];

	snprintf(label, sizeof(label), "%s:", what);
	if (us)
		fprintf(out, "      %-18s%llu us\n", label, (unsigned long long)us);
	else
		fprintf(out, "      %-18sinactive\n", label);
}

/* One channel: lttng's attributes, statistics and rules, then scry's contexts and usage. */
static void describe_channel(struct dsession *s, struct dchannel *c, FILE *out)
{
	uint64_t subbuf = c->subbuf_size ? c->subbuf_size : SCRY_DEFAULT_PACKET_SIZE;
	uint64_t nsub = c->subbuf_size ? c->num_subbuf : scry_default_ring_size_for(c->ctx_mask) / SCRY_DEFAULT_PACKET_SIZE;
	uint64_t discarded = 0, lost = 0, lost_packets = 0;
	bool overwrite = s->snapshot || c->overwrite, ctx_any = false;
	struct drule *rules;
	int nr;

	if (s->eng && s->state != D_CREATED)
		scry_session_channel_stats(s->eng, c->name, &discarded, &lost, &lost_packets);
	fprintf(out, "- %s: [%s]\n\n    Attributes:\n", c->name, c->disabled ? "disabled" : "enabled");
	fprintf(out, "      Event-loss mode:  %s\n", overwrite ? "overwrite" : "discard");
	fprintf(out, "      Sub-buffer size:  %llu bytes\n", (unsigned long long)subbuf);
	fprintf(out, "      Sub-buffer count: %llu\n", (unsigned long long)(nsub ? nsub : 1));
	timer(out, "Switch timer", c->switch_timer_us);
	timer(out, "Read timer", c->read_timer_us);
	timer(out, "Monitor timer", c->monitor_timer_us);
	if (!overwrite)
		fprintf(out, "      Blocking timeout: 0 us\n");
	fprintf(out, "      Trace file count: %llu per stream\n",
		(unsigned long long)(c->tracefile_count ? c->tracefile_count : 1));
	if (c->tracefile_size)
		fprintf(out, "      Trace file size:  %llu bytes\n", (unsigned long long)c->tracefile_size);
	else
		fprintf(out, "      Trace file size:  unlimited\n");
	fprintf(out, "      Output mode:      %s\n", c->output_mmap ? "mmap" : "splice");
	fprintf(out, "\n    Statistics:\n");
	if (overwrite)
		fprintf(out, "      Lost packets:     %llu\n", (unsigned long long)lost_packets);
	else
		fprintf(out, "      Discarded events: %llu\n", (unsigned long long)(discarded + lost));
	if (c->usage_sampled && s->state == D_STARTED)
		fprintf(out, "      Buffer usage:     %llu of %llu bytes (fullest CPU, monitor timer)\n",
			(unsigned long long)c->usage_used, (unsigned long long)c->usage_size);
	fprintf(out, "\n    Recording event rules:\n");
	nr = dchannel_rules(c, &rules);
	if (nr == 0)
		fprintf(out, "      None\n");
	for (int k = nr - 1; k >= 0; k--) {   /* lttng lists the newest first */
		bool sc = !strncmp(rules[k].spec, "syscall:", 8);

		if (rules[k].name) {           /* a probe rule (enable-event --userspace-probe...) */
			dprobe_describe(&rules[k], out);
			continue;
		}
		fprintf(out, "      %s (type: %s) [%s]", sc ? rules[k].spec + 8 : rules[k].spec,
			sc ? "syscall" : "tracepoint", rules[k].enabled ? "enabled" : "disabled");
		if (rules[k].filter)
			fprintf(out, " [filter: '%s']", rules[k].filter);
		fprintf(out, "\n");
	}
	if (nr >= 0)
		free(rules);
	for (unsigned k = 0; k < SCRY_CTX_NR; k++)
		if (c->ctx_mask & (1ULL << k)) {
			fprintf(out, "%s      %s\n", ctx_any ? "" : "\n    Contexts:\n", scry_context(k)->name);
			ctx_any = true;
		}
	fprintf(out, "\n");
}

static const char *state_name(enum dstate st)
{
	return st == D_STARTED ? "active" : "inactive";     /* lttng's: a stopped session is inactive */
}

/* The per-process event sets (the engine's), least recently used first, and their bound
 * and evictions. */
static void describe_pid_sets(struct dsession *s, FILE *out)
{
	struct scry_pid_set_info *sets = calloc(SCRY_PID_SETS_MAX, sizeof(*sets));
	struct scry_pid_sets_stats st = { .max = s->max_pid_sets };
	size_t n = sets && s->eng ? scry_session_pid_sets(s->eng, sets, SCRY_PID_SETS_MAX, &st) : 0;

	if (!n && !st.evicted && !st.ended) {
		free(sets);
		return;
	}
	fprintf(out, "Per-process event sets: %zu of at most %u, %llu evicted (least recently used), %llu ended "
		"with their process\n", n, st.max, (unsigned long long)st.evicted, (unsigned long long)st.ended);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "  PID %d: %llu events\n", (int)sets[i].pid, (unsigned long long)sets[i].events);
		for (size_t k = 0; k < sets[i].nrules; k++)
			fprintf(out, "      %s (type: %s) [enabled, channel %s]\n", sets[i].rules[k].spec,
				!strncmp(sets[i].rules[k].spec, "syscall:", 8) ? "syscall" : "tracepoint",
				sets[i].rules[k].channel);
	}
	free(sets);
}

/* The session's line and its output (lttng's). */
static void session_line(struct dsession *s, FILE *out)
{
	fprintf(out, "Recording session %s: [%s]\n", s->name, state_name(s->state));
	fprintf(out, "    Trace output: %s\n", s->relay_only ? dsession_relay_output(s) : s->dir);
}

/* The whole description (channel NULL), or with that channel only: -ENOENT when none. */
static int describe(struct dsession *s, const char *channel, FILE *out)
{
	struct scry_session_summary sum = s->sum;
	bool found = false;

	session_line(s, out);
	if (s->clock)
		fprintf(out, "    Clock: %s\n", scry_clock_name(s->clock));
	if (s->snapshot)
		fprintf(out, "    Snapshot mode: %u snapshot(s) recorded\n", s->nsnapshots);
	if (s->state != D_CREATED && s->eng)
		scry_session_progress(s->eng, &sum);
	if (s->state != D_CREATED)
		fprintf(out, "    Events: %llu recorded, %llu discarded, %llu lost, %llu bytes\n",
			(unsigned long long)sum.events, (unsigned long long)sum.discarded,
			(unsigned long long)sum.lost, (unsigned long long)sum.bytes);
	if (sum.clamped)
		fprintf(out, "    Timestamps: %llu events' times raised to keep the stream ordered\n",
			(unsigned long long)sum.clamped);
	dfeed_describe(s, out);
	if (s->has_relay && s->state != D_CREATED)
		dsession_describe_relay(s, &sum, out);
	if (s->stop_error[0])
		fprintf(out, "    Error: %s\n", s->stop_error);
	if (sum.write_error)
		fprintf(out, "    Error: %s after %llu events: the trace ends at its last complete packet; %llu events "
			"lost\n", dsession_write_error_name(sum.write_error), (unsigned long long)sum.events,
			(unsigned long long)(sum.lost - sum.too_big));
	if (s->rot_timer_ns || s->rot_size || s->nchunks || (s->eng && s->state != D_CREATED &&
							       scry_session_chunks(s->eng))) {
		fprintf(out, "    Rotation:");
		if (s->rot_timer_ns)
			fprintf(out, " every %llu us", (unsigned long long)(s->rot_timer_ns / 1000));
		if (s->rot_size)
			fprintf(out, " every %llu bytes", (unsigned long long)s->rot_size);
		fprintf(out, "; %u chunk(s) archived\n",
			s->state != D_CREATED && s->eng ? scry_session_chunks(s->eng) : s->nchunks);
	}
	fprintf(out, "\n=== Domain: Linux kernel ===\n\nTracked process attributes\n");
	{
		uint32_t *pids = calloc(s->npids ? s->npids : 1, sizeof(*pids));

		for (size_t i = 0; pids && i < s->npids; i++)
			pids[i] = (uint32_t)s->pids[i];
		tracker(out, "Process IDs", s->tracker_set & 1u << DTRACK_PID, pids, pids ? s->npids : 0);
		free(pids);
	}
	tracker(out, "Virtual process IDs", s->tracker_set & 1u << DTRACK_VPID, s->vpids, s->nvpids);
	tracker(out, "User IDs", s->tracker_set & 1u << DTRACK_UID, s->uids, s->nuids);
	tracker(out, "Virtual user IDs", s->tracker_set & 1u << DTRACK_VUID, s->vuids, s->nvuids);
	tracker(out, "Group IDs", s->tracker_set & 1u << DTRACK_GID, s->gids, s->ngids);
	tracker(out, "Virtual group IDs", s->tracker_set & 1u << DTRACK_VGID, s->vgids, s->nvgids);
	fprintf(out, "\nChannels:\n-------------\n");
	if (!s->nchans && !channel)
		fprintf(out, "None\n");
	for (size_t i = 0; i < s->nchans; i++)
		if (!channel || !strcmp(s->chans[i].name, channel)) {
			describe_channel(s, &s->chans[i], out);
			found = true;
		}
	if (channel)
		return found ? 0 : -ENOENT;
	describe_pid_sets(s, out);
	return 0;
}

void dsession_describe(struct dsession *s, FILE *out)
{
	describe(s, NULL, out);
}

int dsession_describe_channel(struct dsession *s, const char *channel, FILE *out)
{
	return describe(s, channel, out);
}

/* lttng's list_domains: the kernel domain once the session has a channel or a tracker */
void dsession_describe_domains(struct dsession *s, FILE *out)
{
	session_line(s, out);
	fprintf(out, "\nDomains:\n-------------\n");
	if (s->nchans || s->tracker_set)
		fprintf(out, "  - Kernel\n");
	else
		fprintf(out, "  None\n");
}

