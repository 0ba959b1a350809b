/* report.c — the end-of-recording report (see report.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cli/report.h"

void cli_human_bytes(uint64_t b, char *out, size_t len)
{
	if (b >= (1ULL << 30))
		snprintf(out, len, "%.2f GB", b / (double)(1ULL << 30));
	else if (b >= (1ULL << 20))
		snprintf(out, len, "%.1f MB", b / (double)(1ULL << 20));
	else
		snprintf(out, len, "%.1f KB", b / 1024.0);
}

const char *cli_write_error_name(int error)
{
	return error == -ENOSPC || error == -EDQUOT ? "disk full" : strerror(-error);
}

bool cli_report_relay(const struct scry_session_summary *sum, const char *relay, const char *why)
{
	fprintf(stderr, "scry: %llu packets (%llu events) streamed to %s\n", (unsigned long long)sum->relay_packets,
		(unsigned long long)sum->relay_events, relay);
	if (!sum->relay_lost_packets)
		return false;
	fprintf(stderr, "scry: %llu packets (%llu events) not delivered to %s%s%s\n",
		(unsigned long long)sum->relay_lost_packets, (unsigned long long)sum->relay_lost_events, relay,
		why && *why ? ": " : "", why ? why : "");
	return true;
}

void cli_report_recording(const struct scry_session_summary *sum, const char *dir)
{
	fprintf(stderr, "scry: %llu events recorded, %llu discarded, %llu bytes written to %s in %.3f s (%.0f events/s)\n",
		(unsigned long long)sum->events, (unsigned long long)sum->discarded,
		(unsigned long long)sum->bytes, dir, sum->seconds,
		sum->seconds > 0 ? sum->events / sum->seconds : 0.0);
	if (sum->filtered)
		fprintf(stderr, "scry: %llu events filtered out in user space (rejected by --filter, not lost)\n",
			(unsigned long long)sum->filtered);
	if (sum->truncated)
		fprintf(stderr, "scry: %llu events had a string cut at %d bytes\n",
			(unsigned long long)sum->truncated, SCRY_STR_MAX);
	if (sum->write_error)
		fprintf(stderr, "scry: %s: %s after %llu events; %llu events lost (the trace ends at its last "
			"complete packet)\n", dir, cli_write_error_name(sum->write_error),
			(unsigned long long)sum->events, (unsigned long long)(sum->lost - sum->too_big));
	if (sum->unfollowed)
		fprintf(stderr, "scry: %llu processes could not be followed (the follow set was full): their "
			"events are missing\n", (unsigned long long)sum->unfollowed);
	if (sum->too_big)
		fprintf(stderr, "scry: %llu events lost: longer than a packet (raise --packet-size)\n",
			(unsigned long long)sum->too_big);
	if (sum->clamped)
		fprintf(stderr, "scry: %llu events' times raised to keep the stream ordered\n",
			(unsigned long long)sum->clamped);
}
