/* verbs.h — the control verbs (LTTng's names: create, enable-event, start...): which
 * commands go to the daemon, and each one's --help (printed by the CLI without asking
 * the daemon; the daemon parses the options). */
#ifndef SCRY_CTL_VERBS_H
#define SCRY_CTL_VERBS_H

struct scry_ctl_verb {
	const char *name;
	const char *usage;      /* the whole --help text */
};

/* The verb named name, or NULL. */
const struct scry_ctl_verb *scry_ctl_verb(const char *name);
extern const struct scry_ctl_verb scry_ctl_verbs[];
extern const unsigned scry_ctl_nverbs;

#endif
