/* verbs_channels.c — enable-channel and disable-channel: a session's kernel channels, made
 * before start with their buffers (sub-buffer size and count, LTTng's discard or a snapshot
 * session's overwrite) and trace-file size and count, disabled and enabled again at any
 * time; and add-context: the context fields a session's channels record, set before start. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "daemon/verbs_int.h"
#include "kernel/probes.h"
#include "util/parse.h"

/* Enable or disable existing channels (LTTng's disable-channel, and enable-channel of a
 * disabled one): a disabled channel's events are not recorded; it stays in the session, its
 * trace, list and save.  Before start the configuration; loaded, the engine's switch too. */
static int set_channels(struct verb_ctx *v, struct dsession *s, const char *list, bool on)
{
	struct dreply *r = v->r;
	char *names = strdup(list), *save = NULL, *tok;
	int ret = 0;

	if (!names)
		return ERR("out of memory");
	for (tok = strtok_r(names, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		struct dchannel *c = dsession_channel(s, tok);

		if (!c) {
			ret = ERR("no channel '%s' in session '%s'", tok, s->name);
			break;
		}
		if (c->disabled == !on) {
			ret = ERR("channel '%s' of session '%s' is already %s", tok, s->name, on ? "enabled" : "disabled");
			break;
		}
		if (s->eng && (ret = scry_session_enable_channel(s->eng, tok, on, r->err, r->errlen)) && ret != -ENOENT)
			break;      /* -ENOENT: no event yet, not in the engine session */
		ret = 0;
		c->disabled = !on;
		fprintf(r->out, "Kernel channel %s %s for session %s\n", tok, on ? "enabled" : "disabled", s->name);
	}
	free(names);
	return ret;
}

int verb_disable_channel(struct verb_ctx *v, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "kernel", no_argument, NULL, 'k' }, { "userspace", no_argument, NULL, 'u' },
		{ "session", required_argument, NULL, 's' }, { 0 } };
	struct dreply *r = v->r;
	const char *sname = NULL;
	struct dsession *s;
	int opt;

	while ((opt = getopt_long(argc, argv, ":kus:", lo, NULL)) != -1) {
		switch (opt) {
		case 'k': break;
		case 'u': return ERR("disable-channel: scry records the kernel domain only (-k)");
		case 's': sname = optarg; break;
		default: return bad_option(v, argc, argv);
		}
	}
	if (optind >= argc)
		return ERR("disable-channel: give a channel name (scry disable-channel --help)");
	if (optind + 1 < argc)
		return ERR("disable-channel: unexpected argument '%s' (channel names are comma-separated)", argv[optind + 1]);
	if (!(s = target(v, sname)))
		return -ENOENT;
	return set_channels(v, s, argv[optind], false);
}

/* enable-channel's timers, in us (UINT64_MAX: not given) */
struct timers {
	uint64_t sw, rd, mon;
};

/* A timer period: LTTng's --switch-timer/--read-timer/--monitor-timer USEC (a number of us,
 * or with a unit: 500ms, 1s); 0 makes it inactive. */
static int timer_option(struct verb_ctx *v, uint64_t *out, const char *what, const char *arg)
{
	struct dreply *r = v->r;
	double sec;
	char *end;

	errno = 0;
	*out = strtoull(arg, &end, 10);
	if (!errno && !*end && *arg && arg[0] != '-' && *out <= UINT32_MAX)
		return 0;
	if (!scry_parse_duration(arg, &sec) && sec >= 0 && sec * 1e6 <= UINT32_MAX) {
		*out = (uint64_t)(sec * 1e6 + 0.5);
		return 0;
	}
	return ERR("enable-channel: invalid %s timer period '%s' (microseconds, or e.g. 500ms, 1s)", what, arg);
}

/* LTTng rounds sub-buffer sizes and counts up to powers of two; a CPU's buffer is their
 * product, at least a page. */
int verb_enable_channel(struct verb_ctx *v, int argc, char **argv)
{
	enum { O_DISCARD = 256, O_OVERWRITE, O_SUBBUF, O_NUMSUB, O_TFSIZE, O_TFCOUNT, O_SWITCH, O_READ, O_MONITOR,
	       O_OUTPUT, O_GLOBAL, O_UID, O_PID, O_BLOCKING };
	static const struct option lo[] = {
		{ "kernel", no_argument, NULL, 'k' }, { "userspace", no_argument, NULL, 'u' },
		{ "session", required_argument, NULL, 's' }, { "discard", no_argument, NULL, O_DISCARD },
		{ "overwrite", no_argument, NULL, O_OVERWRITE }, { "subbuf-size", required_argument, NULL, O_SUBBUF },
		{ "num-subbuf", required_argument, NULL, O_NUMSUB }, { "tracefile-size", required_argument, NULL, O_TFSIZE },
		{ "tracefile-count", required_argument, NULL, O_TFCOUNT },
		{ "switch-timer", required_argument, NULL, O_SWITCH }, { "read-timer", required_argument, NULL, O_READ },
		{ "monitor-timer", required_argument, NULL, O_MONITOR }, { "output", required_argument, NULL, O_OUTPUT },
		{ "buffers-global", no_argument, NULL, O_GLOBAL }, { "buffers-uid", no_argument, NULL, O_UID },
		{ "buffers-pid", no_argument, NULL, O_PID }, { "blocking-timeout", required_argument, NULL, O_BLOCKING },
		{ 0 } };
	struct timers t = { .sw = UINT64_MAX, .rd = UINT64_MAX, .mon = UINT64_MAX };
	struct dreply *r = v->r;
	const char *sname = NULL;
	uint64_t subbuf = 0, nsub = 0, page = (uint64_t)sysconf(_SC_PAGESIZE), tfsize = 0, tfcount = 0;
	char mode = 0, output = 0;
	struct dsession *s;
	struct dchannel *c;
	char *names, *save = NULL, *tok;
	int opt, ret = 0;

	while ((opt = getopt_long(argc, argv, ":kus:", lo, NULL)) != -1) {
		switch (opt) {
		case 'k': break;
		case O_DISCARD: mode = 'd'; break;
		case 'u': return ERR("enable-channel: scry records the kernel domain only (-k)");
		case 's': sname = optarg; break;
		case O_OVERWRITE: mode = 'o'; break;
		case O_SUBBUF:
			if (scry_parse_size(optarg, &subbuf) || !subbuf || subbuf > (1ULL << 30))
				return ERR("invalid sub-buffer size '%s' (expected e.g. 256K, 1M, up to 1G)", optarg);
			break;
		case O_NUMSUB: {
			char *end;

			errno = 0;
			nsub = strtoull(optarg, &end, 10);
			if (errno || *end || !nsub || nsub > 1024)
				return ERR("invalid sub-buffer count '%s' (expected 1 to 1024)", optarg);
			break;
		}
		case O_TFSIZE:
			if (scry_parse_size(optarg, &tfsize) || !tfsize)
				return ERR("invalid trace file size '%s' (expected e.g. 64M)", optarg);
			break;
		case O_TFCOUNT: {
			char *end;

			errno = 0;
			tfcount = strtoull(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-' || !tfcount || tfcount > 1000000)
				return ERR("invalid trace file count '%s' (expected 1 to 1000000)", optarg);
			break;
		}
		case O_SWITCH: case O_READ: case O_MONITOR:
			if ((ret = timer_option(v, opt == O_SWITCH ? &t.sw : opt == O_READ ? &t.rd : &t.mon,
						opt == O_SWITCH ? "switch" : opt == O_READ ? "read" : "monitor", optarg)))
				return ret;
			break;
		case O_OUTPUT:
			if (strcmp(optarg, "splice") && strcmp(optarg, "mmap"))
				return ERR("enable-channel: --output is splice or mmap, not '%s'", optarg);
			output = optarg[0];
			break;
		case O_GLOBAL: break;   /* the kernel domain's only buffering scheme */
		case O_UID: case O_PID:     /* lttng's own words */
			return ERR("Buffer type not supported for domain -k");
		case O_BLOCKING:
			return ERR("Retry timeout option not supported for kernel domain (-k)");
		default: return bad_option(v, argc, argv);
		}
	}
	if (optind >= argc)
		return ERR("enable-channel: give a channel name (scry enable-channel --help)");
	if (optind + 1 < argc)
		return ERR("enable-channel: unexpected argument '%s'", argv[optind + 1]);
	if (!(s = target(v, sname)))
		return -ENOENT;
	if ((ret = changeable(v, s)))
		return ret;
	if (!strchr(argv[optind], ',') && dsession_channel(s, argv[optind])) {
		if (mode || subbuf || nsub || tfsize || tfcount || output || t.sw != UINT64_MAX || t.rd != UINT64_MAX ||
		    t.mon != UINT64_MAX)
			return ERR("channel '%s' already exists in session '%s': its attributes are set when it is "
				   "made", argv[optind], s->name);
		return set_channels(v, s, argv[optind], true);     /* LTTng: enabled again */
	}
	if (s->state != D_CREATED)
		return ERR("cannot add a channel to session '%s': it %s started (as LTTng, channels are added before start)",
			   s->name, s->state == D_STARTED ? "is" : "was");
	if (mode == 'o' && !s->snapshot && s->has_relay)
		return ERR("enable-channel --overwrite: not in a session streamed to a relay (yet): its packets are "
			   "sent as they complete");
	if (mode == 'd' && s->snapshot)
		return ERR("enable-channel --discard: the channels of snapshot session '%s' overwrite (they are kept "
			   "in memory until snapshot record)", s->name);
	subbuf = subbuf ? scry_pow2_at_least(subbuf, page) : 0;
	nsub = nsub ? scry_pow2_at_least(nsub, 1) : 0;
	if (tfcount && !tfsize)
		return ERR("enable-channel: --tracefile-count needs --tracefile-size");
	if (tfsize && s->snapshot)
		return ERR("enable-channel: the channels of snapshot session '%s' write no trace file to split", s->name);
	if (tfsize && tfsize < (subbuf ? subbuf : SCRY_DEFAULT_PACKET_SIZE))
		return ERR("enable-channel: a trace file size of %llu bytes is smaller than a sub-buffer (%llu bytes; "
			   "--subbuf-size sets it)", (unsigned long long)tfsize,
			   (unsigned long long)(subbuf ? subbuf : SCRY_DEFAULT_PACKET_SIZE));
	if ((subbuf || nsub) && (subbuf ? subbuf : 1ULL << 20) * (nsub ? nsub : 4) > SCRY_RING_MAX)
		return ERR("enable-channel: --subbuf-size x --num-subbuf is %lluM per CPU, over the kernel's limit "
			   "for a ring buffer (2G: a power of two below 4G)",
			   (unsigned long long)(((subbuf ? subbuf : 1ULL << 20) * (nsub ? nsub : 4)) >> 20));
	if (!(names = strdup(argv[optind])))
		return ERR("out of memory");
	for (tok = strtok_r(names, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		if (!dsession_name_ok(tok)) {
			ret = ERR("invalid channel name '%s' (letters, digits, '_', '-', '.')", tok);
			break;
		}
		if (dsession_channel(s, tok)) {
			ret = ERR("channel '%s' already exists in session '%s'", tok, s->name);
			break;
		}
		if (dsession_add_channel(s, tok, &c)) {
			ret = ERR("out of memory");
			break;
		}
		c->overwrite = mode == 'o' && !s->snapshot;
		if (subbuf || nsub || s->snapshot || c->overwrite) {
			c->subbuf_size = subbuf ? subbuf : 1ULL << 20;
			c->num_subbuf = nsub ? nsub : 4;
			c->ring_size = (size_t)(c->subbuf_size * c->num_subbuf);
		}
		c->tracefile_size = tfsize;
		c->tracefile_count = tfcount;
		if (t.sw != UINT64_MAX)
			c->switch_timer_us = t.sw;
		if (t.rd != UINT64_MAX)
			c->read_timer_us = t.rd;
		if (t.mon != UINT64_MAX)
			c->monitor_timer_us = t.mon;
		c->output_mmap = output == 'm';
		fprintf(r->out, "Kernel channel %s enabled for session %s\n", tok, s->name);
	}
	free(names);
	return ret;
}

int verb_add_context(struct verb_ctx *v, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "kernel", no_argument, NULL, 'k' }, { "userspace", no_argument, NULL, 'u' },
		{ "session", required_argument, NULL, 's' }, { "channel", required_argument, NULL, 'c' },
		{ "type", required_argument, NULL, 't' }, { 0 } };
	struct dreply *r = v->r;
	const char *sname = NULL, *chan = NULL;
	uint64_t mask = 0;
	struct dsession *s;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, ":kus:c:t:", lo, NULL)) != -1) {
		switch (opt) {
		case 'k': break;
		case 'u': return ERR("add-context: scry records the kernel domain only (-k)");
		case 's': sname = optarg; break;
		case 'c': chan = optarg; break;
		case 't': {
			const char *n = optarg;
			int k;

			if (!strncmp(n, "$ctx.", 5))
				n += 5;
			if ((k = scry_context_by_name(n)) < 0) {
				char why[256];

				scry_context_unknown(optarg, why, sizeof(why));
				return ERR("%s", why);
			}
			mask |= 1ULL << k;
			break;
		}
		default: return bad_option(v, argc, argv);
		}
	}
	if (!mask)
		return ERR("add-context: give a context type with -t (scry add-context --help)");
	if (optind < argc)
		return ERR("add-context: unexpected argument '%s'", argv[optind]);
	if (!(s = target(v, sname)))
		return -ENOENT;
	if ((ret = changeable(v, s)))
		return ret;
	if (s->state != D_CREATED)
		return ERR("cannot add a context to session '%s': it %s started (contexts are set before start, "
			   "as LTTng's kernel domain does)", s->name, s->state == D_STARTED ? "is" : "was");
	if (chan && !dsession_channel(s, chan))
		return ERR("no channel '%s' in session '%s'", chan, s->name);
	if (!s->nchans && !chan) {
		struct dchannel *c;

		if (dsession_add_channel(s, SCRY_DEFAULT_CHANNEL, &c))
			return ERR("out of memory");
	}
	for (size_t i = 0; i < s->nchans; i++)
		if (!chan || !strcmp(chan, s->chans[i].name))
			s->chans[i].ctx_mask |= mask;
	if ((ret = dsession_rebuild(v->d, s, r->err, r->errlen)))
		return ret;
	for (unsigned k = 0; k < SCRY_CTX_NR; k++)
		if (mask & (1ULL << k))
			fprintf(r->out, "Kernel context %s added to %s%s\n", scry_context(k)->name,
				chan ? "channel " : "all channels", chan ? chan : "");
	return 0;
}
