/* src_uprobes.c — the uprobe source: "uprobe:PATH:FUNC" and "uretprobe:PATH:FUNC" (with
 * FUNC+OFF, 0xADDR and globs; catalog/uprobe.h) each resolved into probes on the file's
 * inode, so processes started later are probed too, each attached to the uprobe program of
 * src/bpf/uprobes.bpf.h with its descriptor; "usdt:PATH:PROVIDER:NAME" attached by libbpf
 * to the USDT program.  The programs are loaded only when the channel has such a probe.  A
 * filter over a uprobe's register arguments runs in the kernel (a front on the probe, see
 * session/filters.c); over stack arguments and USDT operands in user space (user_filter.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel/probes.h"
#include "session/filters.h"
#include "session/session_int.h"
#include "session/source.h"
#include "util/log.h"

static int enable(struct scry_channel *c, const char *spec, size_t *matched, char *err, size_t errlen)
{
	struct scry_uprobe *v;
	size_t n;
	int ret = scry_catalog_uprobes(c->s->cat, spec, &v, &n, err, errlen);

	if (ret)
		return ret;
	if (c->probes && n && ((v[0].provider && !c->any_usdt) || (!v[0].provider && !c->any_uprobe))) {
		snprintf(err, errlen, "'%s': uprobes cannot be added to a channel loaded without one", spec);
		ret = -ENOTSUP;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		int id = channel_add_event(c, v[i].ev);
		struct up_ref *r;

		if (id < 0) {
			ret = id;
			goto out;
		}
		(*matched)++;
		/* already enabled: the same probe (a statement's copies share one event) */
		bool dup = false;
		for (size_t k = 0; k < c->nups && !dup; k++)
			dup = c->ups[k].u.ev == v[i].ev && c->ups[k].u.offset == v[i].offset;
		if (dup)
			continue;
		if (!(r = realloc(c->ups, (c->nups + 1) * sizeof(*r)))) {
			ret = -ENOMEM;
			goto out;
		}
		c->ups = r;
		if (v[i].provider)
			c->any_usdt = true;
		else
			c->any_uprobe = true;
		r[c->nups] = (struct up_ref){ .u = v[i], .id = id, .slot = -1 };
		v[i].path = v[i].func = v[i].provider = NULL;  /* now the channel's */
		c->nups++;
	}
out:
	scry_uprobes_free(v, n);
	return ret;
}

static int disable(struct scry_channel *c, const char *spec, size_t *matched, char *err, size_t errlen)
{
	struct scry_uprobe *v;
	size_t n;
	int ret = scry_catalog_uprobes(c->s->cat, spec, &v, &n, err, errlen);

	if (ret)
		return ret;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < c->nups; i++) {
			struct up_ref *r = &c->ups[i];

			if (r->disabled || r->u.ev != v[k].ev)
				continue;
			if (r->slot >= 0 && (ret = scry_probes_detach_uprobe(c->probes, r->slot))) {
				snprintf(err, errlen, "cannot detach %s: %s", r->u.ev->name, strerror(-ret));
				goto out;
			}
			r->disabled = true;
			(*matched)++;
		}
out:
	scry_uprobes_free(v, n);
	return ret;
}

static bool skipped(const struct scry_channel *c, const struct up_ref *r)
{
	return r->disabled || (c->filters && scry_filters_use(c->filters, (size_t)r->id) == SCRY_FILTER_NEVER);
}

static int front_of(const struct scry_channel *c, const struct up_ref *r)
{
	return c->filters ? scry_filters_front_fd(c->filters, (size_t)r->id) : -1;
}

/* Can r join a uprobe_multi link with first (the same file, both entries or both returns,
 * no filter front: a front is attached to one probe)? */
static bool same_link(const struct scry_channel *c, const struct up_ref *first, const struct up_ref *r)
{
	return !r->u.provider && !skipped(c, r) && front_of(c, r) < 0 && r->u.ret == first->u.ret &&
	       !strcmp(r->u.path, first->u.path);
}

/* The run of probes from i on that share one uprobe_multi link: attached at once. */
static int attach_run(struct scry_channel *c, size_t i, size_t k, char *err, size_t errlen)
{
	size_t n = k - i;
	uint64_t *offs = calloc(n, sizeof(*offs));
	struct scry_up_desc *d = calloc(n, sizeof(*d));
	int *slots = calloc(n, sizeof(*slots)), ret = -ENOMEM;

	if (offs && d && slots) {
		for (size_t j = 0; j < n; j++) {
			offs[j] = c->ups[i + j].u.offset;
			d[j] = c->ups[i + j].u.desc;
			d[j].event_id = (__u16)c->ups[i + j].id;
		}
		ret = scry_probes_attach_uprobes(c->probes, c->ups[i].u.path, c->ups[i].u.ret, offs, d, n, slots, err,
						 errlen);
		for (size_t j = 0; j < n && !ret; j++)
			c->ups[i + j].slot = slots[j];
	} else {
		snprintf(err, errlen, "out of memory");
	}
	free(offs);
	free(d);
	free(slots);
	return ret;
}

/* Attach the uprobes enabled since the last call: the functions of one file a glob names
 * in one uprobe_multi link where the kernel has them, else one link each. */
static int attach(struct scry_channel *c, char *err, size_t errlen)
{
	while (c->nups_attached < c->nups) {
		size_t i = c->nups_attached, k = i + 1;
		struct up_ref *r = &c->ups[i];
		struct scry_up_desc d = r->u.desc;
		int ret;

		if (skipped(c, r)) {
			c->nups_attached++;
			continue;
		}
		if (same_link(c, r, r) && scry_probes_uprobe_multi(c->probes))
			while (k < c->nups && same_link(c, r, &c->ups[k]))
				k++;
		if (k - i >= 2) {
			if ((ret = attach_run(c, i, k, err, errlen)))
				return ret;
			scry_log(SCRY_LOG_VERBOSE, "scry: %s: %zu %s in one uprobe_multi link", r->u.path, k - i,
				 r->u.ret ? "uretprobes" : "uprobes");
			c->nups_attached = k;
			continue;
		}
		d.event_id = (__u16)r->id;
		ret = r->u.provider ? scry_probes_attach_usdt(c->probes, r->u.path, r->u.provider, r->u.func, &d, err, errlen) :
		      scry_probes_attach_uprobe(c->probes, r->u.path, r->u.offset, r->u.ret, &d, front_of(c, r), err, errlen);
		if (ret < 0)
			return ret;
		r->slot = ret;
		c->nups_attached++;
	}
	return 0;
}

const struct scry_source scry_source_uprobes = {
	.name = "uprobes",
	.claims = scry_uprobe_claims,
	.enable = enable,
	.disable = disable,
	.attach = attach,
};
