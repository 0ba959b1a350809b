/* report.h — what scry says at the end of a recording (scry record, scry trace --record):
 * the summary line, then one line for each kind of loss or alteration, never silent. */
#ifndef SCRY_CLI_REPORT_H
#define SCRY_CLI_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "session/session.h"

/* On stderr: "scry: N events recorded, D discarded, B bytes written to DIR in S s (R
 * events/s)", then the events filtered in user space, strings cut, what the output lost, and
 * the events whose timestamp was raised to keep a stream ordered. */
void cli_report_recording(const struct scry_session_summary *sum, const char *dir);
/* "disk full" for ENOSPC and EDQUOT, else the error's text. */
const char *cli_write_error_name(int error);
/* A streamed session's relay: "N packets (M events) streamed to RELAY", and what was not
 * delivered ("N packets (M events) not delivered to RELAY: why").  True when something was
 * not. */
bool cli_report_relay(const struct scry_session_summary *sum, const char *relay, const char *why);
void cli_human_bytes(uint64_t b, char *out, size_t len);

#endif
