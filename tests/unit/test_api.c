/* test_api.c — libscry's argument checking (include/scry/scry.h, src/api): each bad call
 * refused with its errno and a one-line reason naming the problem, nothing loaded; the
 * event accessors safe on NULL and on what an event lacks; the control part's refusals
 * before any request, and its error when no daemon answers.  Uses only the public header
 * (linked with the library's objects, as the .so is made). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <scry/scry.h>

static void on_event(const struct scry_event *e, void *ctx)
{
}

static void test_session_new(void **state)
{
	struct scry_session_options o = SCRY_SESSION_OPTIONS_INIT;
	struct scry_session *s;
	char err[256];

	assert_int_equal(o.size, sizeof(o));
	o.size = 4;
	assert_null(scry_session_new(&o, err, sizeof(err)));
	assert_string_equal(err, "scry_session_new: options of size 4: initialise them with SCRY_SESSION_OPTIONS_INIT");
	o.size = sizeof(o);
	o.output = "";
	assert_null(scry_session_new(&o, err, sizeof(err)));
	assert_string_equal(err, "scry_session_new: an empty output directory name (NULL: no trace)");
	o.output = NULL;
	o.buffer_size = 3 << 20;
	assert_null(scry_session_new(&o, err, sizeof(err)));
	assert_string_equal(err, "scry_session_new: buffer_size 3145728 is not a power of two");
	o.buffer_size = 4096;
	assert_null(scry_session_new(&o, err, sizeof(err)));
	assert_string_equal(err, "scry_session_new: buffer_size 4096 is out of range (1048576 to 2147483648 bytes)");
	assert_null(scry_session_new(&o, NULL, 0));   /* no room for the reason: still refused */
	o.buffer_size = 0;
	o.relay_url = "tcp://host";
	assert_null(scry_session_new(&o, err, sizeof(err)));
	assert_true(!strncmp(err, "scry_session_new: relay_url: ", 29) && !strchr(err, '\n'));
	o.relay_url = "net://127.0.0.1";
	o.relay_name = "";
	assert_null(scry_session_new(&o, err, sizeof(err)));
	assert_string_equal(err, "scry_session_new: an empty relay_name (NULL: \"scry\")");
	o.relay_name = "n";
	assert_non_null(s = scry_session_new(&o, err, sizeof(err)));
	scry_session_destroy(s);
	o.relay_url = o.relay_name = NULL;
	/* an older caller's options (without the relay members) are read up to their size */
	o.size = offsetof(struct scry_session_options, relay_url);
	o.relay_url = "not read";
	assert_non_null(s = scry_session_new(&o, err, sizeof(err)));
	scry_session_destroy(s);
	o.size = sizeof(o);
	o.relay_url = NULL;
	o.buffer_size = 1 << 20;
	assert_non_null(s = scry_session_new(&o, err, sizeof(err)));
	scry_session_destroy(s);
	assert_non_null(s = scry_session_new(NULL, err, sizeof(err)));   /* the defaults */
	scry_session_destroy(s);
	scry_session_destroy(NULL);
}

static void test_session_setup(void **state)
{
	struct scry_session *s = scry_session_new(NULL, NULL, 0);
	char err[256];

	assert_non_null(s);
	assert_int_equal(scry_session_enable_event(NULL, "syscall:openat", NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_enable_event: no session (NULL)");
	assert_int_equal(scry_session_enable_event(s, NULL, NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_enable_event: no event spec (e.g. \"syscall:openat\")");
	assert_int_equal(scry_session_enable_event(s, "", NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(scry_session_enable_event(s, "syscall:openat", "ret < 0", err, sizeof(err)), 0);

	assert_int_equal(scry_session_add_context(s, "prcname", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "prcname"));
	assert_non_null(strstr(err, "procname"));      /* the closest known one */
	assert_int_equal(scry_session_add_context(s, NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(scry_session_add_context(s, "ppid", err, sizeof(err)), 0);

	assert_int_equal(scry_session_track_pid(s, 0, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_track_pid: 0 is no process id");
	assert_int_equal(scry_session_track_pid(s, -5, err, sizeof(err)), -EINVAL);
	assert_int_equal(scry_session_track_pid(s, 999999999, err, sizeof(err)), -ESRCH);
	assert_string_equal(err, "scry_session_track_pid: no process 999999999");
	assert_int_equal(scry_session_track_pid(s, getpid(), err, sizeof(err)), 0);

	assert_int_equal(scry_session_track_uid(NULL, 0, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_track_uid: no session (NULL)");
	assert_int_equal(scry_session_track_gid(s, (gid_t)-1, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_track_gid: 4294967295 is no id (-1)");
	assert_int_equal(scry_session_track_uid(s, 65534, err, sizeof(err)), 0);
	assert_int_equal(scry_session_track_gid(s, 0, err, sizeof(err)), 0);

	assert_int_equal(scry_session_on_event(NULL, on_event, NULL), -EINVAL);
	assert_int_equal(scry_session_on_event(s, on_event, NULL), 0);
	assert_int_equal(scry_session_on_event(s, NULL, NULL), 0);   /* none again */
	assert_null(scry_session_trace_dir(s));
	assert_null(scry_session_trace_dir(NULL));
	scry_session_destroy(s);
}

/* start's refusals: checked before anything is loaded (no privilege needed to see them) */
static void test_session_start_refusals(void **state)
{
	struct scry_session_options o = SCRY_SESSION_OPTIONS_INIT;
	struct scry_session_stats st = { .size = 2 };
	struct scry_session *s = scry_session_new(&o, NULL, 0);
	char err[256];

	assert_int_equal(scry_session_start(s, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_start: no event enabled (scry_session_enable_event)");
	assert_int_equal(scry_session_enable_event(s, "syscall:openat", NULL, err, sizeof(err)), 0);
	assert_int_equal(scry_session_start(s, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_start: nowhere for the events to go: give options.output, "
				 "options.relay_url or a callback (scry_session_on_event)");
	assert_int_equal(scry_session_on_event(s, on_event, NULL), 0);
	assert_int_equal(scry_session_start(s, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_start: nothing to trace: track a process (scry_session_track_pid) "
				 "or set options.system_wide");
	assert_int_equal(scry_session_start(NULL, err, sizeof(err)), -EINVAL);
	scry_session_destroy(s);
	o.system_wide = 1;
	s = scry_session_new(&o, NULL, 0);
	assert_int_equal(scry_session_enable_event(s, "syscall:openat", NULL, err, sizeof(err)), 0);
	assert_int_equal(scry_session_on_event(s, on_event, NULL), 0);
	assert_int_equal(scry_session_track_pid(s, getpid(), err, sizeof(err)), 0);
	assert_int_equal(scry_session_start(s, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_start: options.system_wide and scry_session_track_pid are "
				 "exclusive (the whole machine already holds the process)");

	assert_int_equal(scry_session_run(s, NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_run: the session is not recording (scry_session_start first)");
	assert_int_equal(scry_session_run(NULL, NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(scry_session_run_for(s, NULL, 0, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_run_for: a timeout of 0 ms (scry_session_run has none)");
	assert_int_equal(scry_session_run_for(s, NULL, 10, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_run_for: the session is not recording (scry_session_start first)");
	assert_int_equal(scry_session_stop(s, NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_stop: the session is not recording");
	assert_int_equal(scry_session_stop(s, &st, err, sizeof(err)), -EINVAL);
	assert_int_equal(scry_session_stop(NULL, NULL, err, sizeof(err)), -EINVAL);
	scry_session_destroy(s);
}

/* channels: their names and options checked when added; the _in_channel calls need the
 * channel; start refuses a channel without events, an overwrite channel without a trace
 * directory or streamed to a relay */
static void test_channels(void **state)
{
	struct scry_channel_options co = SCRY_CHANNEL_OPTIONS_INIT;
	struct scry_session_options o = SCRY_SESSION_OPTIONS_INIT;
	struct scry_session *s = scry_session_new(NULL, NULL, 0);
	char err[256];

	assert_int_equal(co.size, sizeof(co));
	assert_int_equal(scry_session_add_channel(NULL, "a", NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_add_channel: no session (NULL)");
	assert_int_equal(scry_session_add_channel(s, "", NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_add_channel: invalid channel name '' (letters, digits, '_', '-', '.')");
	assert_int_equal(scry_session_add_channel(s, "a/b", NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_add_channel: invalid channel name 'a/b' (letters, digits, '_', '-', '.')");
	assert_int_equal(scry_session_add_channel(s, ".a", NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(scry_session_add_channel(s, NULL, NULL, err, sizeof(err)), -EINVAL);
	co.size = 8;
	assert_int_equal(scry_session_add_channel(s, "a", &co, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_add_channel: options of size 8: initialise them with "
				 "SCRY_CHANNEL_OPTIONS_INIT");
	co.size = sizeof(co);
	co.subbuf_size = 3000;
	assert_int_equal(scry_session_add_channel(s, "a", &co, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_add_channel: subbuf_size 3000 is not a power of two from 4 KiB to 256 MiB");
	co.subbuf_size = 512u << 20;
	assert_int_equal(scry_session_add_channel(s, "a", &co, err, sizeof(err)), -EINVAL);
	co.subbuf_size = 16384;
	co.num_subbuf = 2000;
	assert_int_equal(scry_session_add_channel(s, "a", &co, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_add_channel: num_subbuf 2000 is over 1024");
	co.num_subbuf = 4;             /* a discard channel: 16 KiB x 4 is its ring, under 1 MiB */
	assert_int_equal(scry_session_add_channel(s, "a", &co, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_add_channel: subbuf_size x num_subbuf (16384 x 4) is a discard "
				 "channel's ring: a power of two from 1 MiB to 2 GiB");
	co.buffer_size = 1 << 20;
	assert_int_equal(scry_session_add_channel(s, "a", &co, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_add_channel: buffer_size and num_subbuf both size a discard "
				 "channel's ring: give one");
	co.num_subbuf = 0;
	co.buffer_size = 5 << 20;
	assert_int_equal(scry_session_add_channel(s, "a", &co, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_add_channel: buffer_size 5242880 is not a power of two");
	co.buffer_size = 0;
	co.switch_timer_us = 1ULL << 32;
	assert_int_equal(scry_session_add_channel(s, "a", &co, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_add_channel: switch_timer_us 4294967296 is over 4294967295");
	co.switch_timer_us = 100000;
	co.tracefile_count = 3;
	assert_int_equal(scry_session_add_channel(s, "a", &co, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_add_channel: tracefile_count needs tracefile_size");
	co.tracefile_size = 8192;      /* under a sub-buffer of 16 KiB */
	assert_int_equal(scry_session_add_channel(s, "a", &co, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_add_channel: tracefile_size 8192 is smaller than a sub-buffer (16384 "
				 "bytes: subbuf_size)");
	co.tracefile_size = 32768;
	co.tracefile_count = 2000000;
	assert_int_equal(scry_session_add_channel(s, "a", &co, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_add_channel: tracefile_count 2000000 is over 1000000");
	co.tracefile_size = co.tracefile_count = 0;
	co.overwrite = 1;
	co.num_subbuf = 4;             /* an overwrite channel: 4 sub-buffers of 16 KiB waiting */
	assert_int_equal(scry_session_add_channel(s, "b", NULL, err, sizeof(err)), 0);
	assert_int_equal(scry_session_add_channel(s, "a", &co, err, sizeof(err)), 0);
	assert_int_equal(scry_session_add_channel(s, "a", NULL, err, sizeof(err)), -EEXIST);
	assert_string_equal(err, "scry_session_add_channel: channel 'a' exists (added before)");

	assert_int_equal(scry_session_enable_event_in_channel(s, "c", "syscall:openat", NULL, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "scry_session_enable_event_in_channel: no channel 'c' (scry_session_add_channel "
				 "makes one)");
	assert_int_equal(scry_session_enable_event_in_channel(s, "a", "", NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_enable_event_in_channel: no event spec (e.g. \"syscall:openat\")");
	assert_int_equal(scry_session_enable_event_in_channel(s, "a", "syscall:pwrite64", NULL, err, sizeof(err)), 0);
	assert_int_equal(scry_session_add_context_in_channel(s, "c", "ppid", err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "scry_session_add_context_in_channel: no channel 'c' (scry_session_add_channel "
				 "makes one)");
	assert_int_equal(scry_session_add_context_in_channel(s, "a", "nosuch", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "nosuch"));
	assert_int_equal(scry_session_add_context_in_channel(s, "a", "ppid", err, sizeof(err)), 0);
	assert_int_equal(scry_session_add_context_in_channel(s, NULL, "uid", err, sizeof(err)), 0);
	assert_int_equal(scry_session_on_event(s, on_event, NULL), 0);
	assert_int_equal(scry_session_track_pid(s, getpid(), err, sizeof(err)), 0);
	assert_int_equal(scry_session_start(s, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_start: channel 'b' has no events (scry_session_enable_event_in_channel)");
	assert_int_equal(scry_session_enable_event_in_channel(s, "b", "syscall:openat", NULL, err, sizeof(err)), 0);
	assert_int_equal(scry_session_start(s, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_start: overwrite channel 'a' needs options.output (its sub-buffers are "
				 "the trace's packets)");
	scry_session_destroy(s);
	s = scry_session_new(NULL, NULL, 0);
	co.overwrite = 0;
	co.num_subbuf = 0;
	co.tracefile_size = 1 << 20;
	assert_int_equal(scry_session_add_channel(s, "tf", &co, err, sizeof(err)), 0);
	assert_int_equal(scry_session_enable_event_in_channel(s, "tf", "syscall:openat", NULL, err, sizeof(err)), 0);
	assert_int_equal(scry_session_on_event(s, on_event, NULL), 0);
	assert_int_equal(scry_session_track_pid(s, getpid(), err, sizeof(err)), 0);
	assert_int_equal(scry_session_start(s, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_start: channel 'tf': tracefile_size needs options.output (the files it "
				 "splits)");
	co.tracefile_size = 0;
	/* the default channel is made when first named (NULL or "channel0"), then exists */
	assert_int_equal(scry_session_add_context_in_channel(s, "channel0", "ppid", err, sizeof(err)), 0);
	assert_int_equal(scry_session_enable_event(s, "syscall:close", NULL, err, sizeof(err)), 0);
	assert_int_equal(scry_session_add_channel(s, "channel0", NULL, err, sizeof(err)), -EEXIST);
	assert_string_equal(err, "scry_session_add_channel: channel 'channel0' exists (the default one, made "
				 "when first used)");
	scry_session_destroy(s);

	o.relay_url = "net://127.0.0.1";
	o.output = "/nonexistent-test-api/t";
	s = scry_session_new(&o, err, sizeof(err));
	assert_non_null(s);
	co.overwrite = 1;
	assert_int_equal(scry_session_add_channel(s, "ow", &co, err, sizeof(err)), 0);
	assert_int_equal(scry_session_enable_event_in_channel(s, "ow", "syscall:openat", NULL, err, sizeof(err)), 0);
	assert_int_equal(scry_session_track_pid(s, getpid(), err, sizeof(err)), 0);
	assert_int_equal(scry_session_start(s, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_start: overwrite channel 'ow': not in a session streamed to a relay (its "
				 "packets are sent as they complete)");
	scry_session_destroy(s);
	/* shorter than the first release's options: refused */
	s = scry_session_new(NULL, NULL, 0);
	co.size = offsetof(struct scry_channel_options, tracefile_count);
	assert_int_equal(scry_session_add_channel(s, "old", &co, err, sizeof(err)), -EINVAL);
	co.size = sizeof(co) + 8;      /* a later header's (more members, zero here: read up to ours) */
	assert_int_equal(scry_session_add_channel(s, "new", &co, err, sizeof(err)), 0);
	scry_session_destroy(s);
}

static void test_trackers(void **state)
{
	struct scry_session *s = scry_session_new(NULL, NULL, 0);
	char err[256];

	assert_int_equal(scry_session_track_vpid(NULL, 1, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_track_vpid: no session (NULL)");
	assert_int_equal(scry_session_track_vpid(s, 0, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_track_vpid: 0 is no process id");
	assert_int_equal(scry_session_track_vpid(s, 1, err, sizeof(err)), 0);

	assert_int_equal(scry_session_track_cgroup(NULL, "/sys/fs/cgroup", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_track_cgroup: no session (NULL)");
	assert_int_equal(scry_session_track_cgroup(s, "", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_session_track_cgroup: no cgroup directory (e.g. \"/sys/fs/cgroup/system.slice\")");
	assert_int_equal(scry_session_track_cgroup(s, "/nonexistent-cgroup", err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "scry_session_track_cgroup: '/nonexistent-cgroup': No such file or directory");
	assert_int_equal(scry_session_track_cgroup(s, "/tmp", err, sizeof(err)), -ENOTDIR);
	assert_string_equal(err, "scry_session_track_cgroup: '/tmp' is not a cgroup v2 directory");
	/* a cgroup v2 mount, where this machine has one: at most 16 directories */
	FILE *m = fopen("/proc/mounts", "r");
	char line[512], dir[256] = "", type[64];

	while (m && fgets(line, sizeof(line), m))
		if (sscanf(line, "%*s %255s %63s", dir, type) == 2 && !strcmp(type, "cgroup2"))
			break;
		else
			dir[0] = 0;
	if (m)
		fclose(m);
	if (dir[0]) {
		for (int i = 0; i < 16; i++)
			assert_int_equal(scry_session_track_cgroup(s, dir, err, sizeof(err)), 0);
		assert_int_equal(scry_session_track_cgroup(s, dir, err, sizeof(err)), -E2BIG);
		assert_string_equal(err, "scry_session_track_cgroup: more than 16 cgroups");
	}
	scry_session_destroy(s);
}

static void test_event_accessors_null(void **state)
{
	int64_t i;
	uint64_t u;
	size_t n;

	assert_int_equal(scry_event_kind(NULL), 0);
	assert_null(scry_event_name(NULL));
	assert_int_equal(scry_event_timestamp(NULL), 0);
	assert_int_equal(scry_event_cpu(NULL), SCRY_CPU_NONE);
	assert_int_equal(scry_event_lost(NULL), 0);
	assert_null(scry_event_channel(NULL));
	assert_int_equal(scry_event_field_count(NULL), 0);
	assert_null(scry_event_field_name(NULL, 0));
	assert_int_equal(scry_event_field_type(NULL, "ret"), SCRY_VALUE_NONE);
	assert_int_equal(scry_event_field_int(NULL, "ret", &i), -ENOENT);
	assert_int_equal(scry_event_field_uint(NULL, "ret", &u), -ENOENT);
	assert_int_equal(scry_event_field_int(NULL, "ret", NULL), -EINVAL);
	assert_null(scry_event_field_string(NULL, "filename", &n));
	assert_null(scry_event_field_bytes(NULL, "buf", &n));
	assert_int_equal(scry_event_context_count(NULL), 0);
	assert_null(scry_event_context_name(NULL, 0));
	assert_int_equal(scry_event_context_type(NULL, "pid"), SCRY_VALUE_NONE);
	assert_int_equal(scry_event_context_int(NULL, "pid", &i), -ENOENT);
	assert_null(scry_event_context_string(NULL, "procname", &n));
	assert_string_equal(scry_version(), "0.1.0");
}

static void test_ctl_refusals(void **state)
{
	char dir[] = "/tmp/test_api.XXXXXX", err[512], want[600], *out = (char *)1;
	const char *argv[] = { "nosuchverb" };

	assert_non_null(mkdtemp(dir));
	setenv("SCRY_RUNDIR", dir, 1);
	assert_null(scry_ctl_connect(err, sizeof(err)));
	snprintf(want, sizeof(want), "no daemon answers on %s/control (start scryd, or systemctl start "
		 "scry-sessiond)", dir);
	assert_string_equal(err, want);
	unsetenv("SCRY_RUNDIR");
	rmdir(dir);

	/* a NULL connection or a missing name: refused before any request */
	assert_int_equal(scry_ctl_start(NULL, "s", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_ctl_start: no connection (NULL)");
	assert_int_equal(scry_ctl_create(NULL, NULL, NULL, 0, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_ctl_create: no session name");
	assert_int_equal(scry_ctl_stop(NULL, "-a", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_ctl_stop: no session name (it may not begin with '-')");
	assert_int_equal(scry_ctl_enable_event(NULL, "s", "", NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_ctl_enable_event: no event spec (e.g. \"syscall:openat\")");
	assert_int_equal(scry_ctl_track_pid(NULL, "s", 0, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_ctl_track_pid: 0 is no process id");
	assert_int_equal(scry_ctl_list(NULL, NULL, NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "scry_ctl_list: nowhere for the list (out is NULL)");
	assert_int_equal(scry_ctl_command(NULL, 1, argv, &out, err, sizeof(err)), -EINVAL);
	assert_null(out);
	assert_string_equal(err, "scry_ctl_command: nosuchverb is no control verb (scry --help lists them)");
	assert_int_equal(scry_ctl_command(NULL, 0, NULL, NULL, err, sizeof(err)), -EINVAL);
	scry_ctl_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session_new),
		cmocka_unit_test(test_session_setup),
		cmocka_unit_test(test_session_start_refusals),
		cmocka_unit_test(test_channels),
		cmocka_unit_test(test_trackers),
		cmocka_unit_test(test_event_accessors_null),
		cmocka_unit_test(test_ctl_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
