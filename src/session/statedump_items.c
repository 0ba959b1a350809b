/* statedump_items.c — the statedump events user space reads from /proc and /sys, encoded in
 * their CTF payload layout (src/catalog/statedump.c) as items for the BPF side
 * (struct scry_sd_item): lttng_statedump_start; then, after the iterators' events,
 * network_interface (every IPv4 address of every interface that is up), block_device
 * (every disk with a capacity and not hidden, and its partitions), interrupt (each action
 * of each IRQ, with the tid of its thread when threaded), cpu_topology (each CPU of
 * /proc/cpuinfo), and lttng_statedump_end — in lttng-modules' order. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "session/statedump_items.h"

struct items {
	struct scry_sd_item *v;
	size_t n, cap;
	bool full;
};

/* A new item for event k (NULL when k is not recorded or there is no room). */
static struct scry_sd_item *item_new(struct items *it, const uint16_t *ids, int k)
{
	struct scry_sd_item *x;

	if (ids[k] == SCRY_NO_EVENT)
		return NULL;
	if (it->n == SCRY_SD_ITEMS) {
		it->full = true;
		return NULL;
	}
	if (it->n == it->cap) {
		size_t cap = it->cap ? it->cap * 2 : 64;
		struct scry_sd_item *v = realloc(it->v, cap * sizeof(*v));

		if (!v) {
			it->full = true;
			return NULL;
		}
		it->v = v;
		it->cap = cap;
	}
	x = &it->v[it->n++];
	x->event_id = ids[k];
	x->len = 0;
	return x;
}

static void put(struct scry_sd_item *x, const void *p, size_t n)
{
	if (x->len + n > SCRY_SD_ITEM_MAX)
		n = SCRY_SD_ITEM_MAX - x->len;
	memcpy(x->data + x->len, p, n);
	x->len = (uint16_t)(x->len + n);
}

#define PUT(x, type, v) do { type v_ = (type)(v); put(x, &v_, sizeof(v_)); } while (0)

/* A string field, cut to fit (its NUL kept). */
static void put_str(struct scry_sd_item *x, const char *s)
{
	size_t room = SCRY_SD_ITEM_MAX - x->len, n = strlen(s);

	if (!room)
		return;
	if (n >= room)
		n = room - 1;
	put(x, s, n);
	x->data[x->len++] = 0;
}

/* The first line of path, its newline cut; "" when unreadable. */
static void read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");

	buf[0] = 0;
	if (!f)
		return;
	if (!fgets(buf, (int)size, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

static void network_interfaces(struct items *it, const uint16_t *ids)
{
	struct ifaddrs *ifs, *i;
	struct scry_sd_item *x;

	if (ids[SCRY_SD_NETWORK_INTERFACE] == SCRY_NO_EVENT || getifaddrs(&ifs))
		return;
	for (i = ifs; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP))
			continue;
		if (!(x = item_new(it, ids, SCRY_SD_NETWORK_INTERFACE)))
			break;
		put_str(x, i->ifa_name);
		/* LTTng writes ifa_address in network byte order and declares it big-endian: the
		 * value a reader sees is the host-order address, written here as such */
		PUT(x, uint32_t, ntohl(((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr));
	}
	freeifaddrs(ifs);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* One block device (disk or partition) of /sys/class/block. */
static void block_device(struct items *it, const uint16_t *ids, const char *dir, const char *name)
{
	char path[512], line[64];
	unsigned maj, min;
	struct scry_sd_item *x;

	snprintf(path, sizeof(path), "%s/dev", dir);
	read_line(path, line, sizeof(line));
	if (sscanf(line, "%u:%u", &maj, &min) != 2 || !(x = item_new(it, ids, SCRY_SD_BLOCK_DEVICE)))
		return;
	PUT(x, uint32_t, maj << 20 | min);   /* the kernel's dev_t (MKDEV) */
	put_str(x, name);
}

static void block_devices(struct items *it, const uint16_t *ids)
{
	struct dirent **disks;
	int n;

	if (ids[SCRY_SD_BLOCK_DEVICE] == SCRY_NO_EVENT || (n = scandir("/sys/block", &disks, NULL, by_name)) < 0)
		return;
	for (int i = 0; i < n; i++) {
		char dir[512], path[600], line[64];
		struct dirent **parts;
		int np;

		if (disks[i]->d_name[0] == '.')
			goto next;
		snprintf(dir, sizeof(dir), "/sys/block/%s", disks[i]->d_name);
		snprintf(path, sizeof(path), "%s/size", dir);
		read_line(path, line, sizeof(line));
		if (!strtoull(line, NULL, 10))        /* no capacity: not shown, as LTTng */
			goto next;
		snprintf(path, sizeof(path), "%s/hidden", dir);
		read_line(path, line, sizeof(line));
		if (line[0] == '1')
			goto next;
		block_device(it, ids, dir, disks[i]->d_name);
		if ((np = scandir(dir, &parts, NULL, by_name)) >= 0) {
			for (int k = 0; k < np; k++) {
				char pdir[800];

				snprintf(pdir, sizeof(pdir), "%s/%s", dir, parts[k]->d_name);
				snprintf(path, sizeof(path), "%.560s/partition", pdir);
				if (parts[k]->d_name[0] != '.' && access(path, F_OK) == 0)
					block_device(it, ids, pdir, parts[k]->d_name);
				free(parts[k]);
			}
			free(parts);
		}
next:
		free(disks[i]);
	}
	free(disks);
}

/* IRQ threads ("irq/N-name" kernel threads): their comm and tid. */
struct irq_thread {
	char comm[16];
	int tid;
};

static size_t irq_threads(struct irq_thread **out)
{
	DIR *d = opendir("/proc");
	struct irq_thread *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;

	*out = NULL;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[300], comm[64];

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		read_line(path, comm, sizeof(comm));
		if (strncmp(comm, "irq/", 4))
			continue;
		if (n == cap) {
			struct irq_thread *nv = realloc(v, (cap = cap ? cap * 2 : 32) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
		}
		memcpy(v[n].comm, comm, sizeof(v[n].comm) - 1);
		v[n].comm[sizeof(v[n].comm) - 1] = 0;
		v[n++].tid = atoi(e->d_name);
	}
	closedir(d);
	*out = v;
	return n;
}

static void interrupts(struct items *it, const uint16_t *ids)
{
	struct irq_thread *th;
	struct dirent **irqs;
	size_t nth;
	int n;

	if (ids[SCRY_SD_INTERRUPT] == SCRY_NO_EVENT || (n = scandir("/sys/kernel/irq", &irqs, NULL, NULL)) < 0)
		return;
	nth = irq_threads(&th);
	/* irq number order, as for_each_irq_desc */
	for (int i = 0; i < n; i++)
		for (int k = i + 1; k < n; k++)
			if (atoi(irqs[k]->d_name) < atoi(irqs[i]->d_name)) {
				struct dirent *t = irqs[i];

				irqs[i] = irqs[k];
				irqs[k] = t;
			}
	for (int i = 0; i < n; i++) {
		char path[300], chip[128], actions[1024], *save = NULL, *a;
		unsigned irq = (unsigned)atoi(irqs[i]->d_name);

		if (!isdigit((unsigned char)irqs[i]->d_name[0]))
			goto next;
		snprintf(path, sizeof(path), "/sys/kernel/irq/%s/chip_name", irqs[i]->d_name);
		read_line(path, chip, sizeof(chip));
		snprintf(path, sizeof(path), "/sys/kernel/irq/%s/actions", irqs[i]->d_name);
		read_line(path, actions, sizeof(actions));
		for (a = strtok_r(actions, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
			struct scry_sd_item *x = item_new(it, ids, SCRY_SD_INTERRUPT);
			char comm[64];
			int tid = 0;

			if (!x)
				break;
			/* its thread's comm: "irq/N-action", cut to 15 characters */
			snprintf(comm, sizeof(comm), "irq/%u-%s", irq, a);
			comm[15] = 0;
			for (size_t t = 0; t < nth; t++)
				if (!strcmp(th[t].comm, comm))
					tid = th[t].tid;
			PUT(x, uint32_t, irq);
			put_str(x, chip[0] ? chip : "unnamed_irq_chip");
			put_str(x, a);
			PUT(x, int32_t, tid);
		}
next:
		free(irqs[i]);
	}
	free(irqs);
	free(th);
}

/* One CPU of /proc/cpuinfo (x86's fields). */
struct cpu {
	int id;
	char vendor[64], model_name[128];
	unsigned family, model, physical_id, core_id, cores;
};

static void cpu_item(struct items *it, const uint16_t *ids, const struct cpu *c)
{
	struct scry_sd_item *x;

	if (c->id < 0 || !(x = item_new(it, ids, SCRY_SD_CPU_TOPOLOGY)))
		return;
	put_str(x, "x86");
	PUT(x, uint16_t, c->id);
	put_str(x, c->vendor[0] ? c->vendor : "unknown");
	PUT(x, uint8_t, c->family);
	PUT(x, uint8_t, c->model);
	put_str(x, c->model_name[0] ? c->model_name : "unknown");
	PUT(x, uint16_t, c->physical_id);
	PUT(x, uint16_t, c->core_id);
	PUT(x, uint16_t, c->cores);
}

/* /proc/cpuinfo's text (x86: "key\t: value" lines, a blank line after each CPU). */
static void cpuinfo_parse(struct items *it, const uint16_t *ids, FILE *f)
{
	struct cpu c = { .id = -1 };
	char line[512];
	bool rest = false;   /* in the rest of a line longer than line (flags) */

	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *v, *k = line;
		size_t kl, len = strlen(line);
		bool was_rest = rest;

		rest = len && line[len - 1] != '\n';
		if (was_rest)
			continue;
		if (!colon) {
			if (line[0] == '\n') {
				cpu_item(it, ids, &c);
				c = (struct cpu){ .id = -1 };
			}
			continue;
		}
		v = colon + 1 + (colon[1] == ' ');
		v[strcspn(v, "\n")] = 0;
		for (kl = (size_t)(colon - k); kl && (k[kl - 1] == ' ' || k[kl - 1] == '\t'); kl--)
			;
#define KEY(s) (kl == strlen(s) && !strncmp(k, s, kl))
		if (KEY("processor"))
			c.id = atoi(v);
		else if (KEY("vendor_id"))
			snprintf(c.vendor, sizeof(c.vendor), "%s", v);
		else if (KEY("cpu family"))
			c.family = (unsigned)atoi(v);
		else if (KEY("model"))
			c.model = (unsigned)atoi(v);
		else if (KEY("model name"))
			snprintf(c.model_name, sizeof(c.model_name), "%s", v);
		else if (KEY("physical id"))
			c.physical_id = (unsigned)atoi(v);
		else if (KEY("core id"))
			c.core_id = (unsigned)atoi(v);
		else if (KEY("cpu cores"))
			c.cores = (unsigned)atoi(v);
#undef KEY
	}
	cpu_item(it, ids, &c);
}

static void cpu_topology(struct items *it, const uint16_t *ids)
{
	FILE *f;

	if (ids[SCRY_SD_CPU_TOPOLOGY] == SCRY_NO_EVENT || !(f = fopen("/proc/cpuinfo", "re")))
		return;
	cpuinfo_parse(it, ids, f);
	fclose(f);
}

int scry_statedump_cpuinfo_items(FILE *f, const uint16_t *ids, struct scry_sd_item **out, size_t *n)
{
	struct items it = { 0 };

	cpuinfo_parse(&it, ids, f);
	*out = it.v;
	*n = it.n;
	return it.full ? -E2BIG : 0;
}

int scry_statedump_items(const uint16_t *ids, struct scry_sd_item **out, size_t *n, size_t *nhead,
			 char *err, size_t errlen)
{
	struct items it = { 0 };

	item_new(&it, ids, SCRY_SD_START);
	*nhead = it.n;
	network_interfaces(&it, ids);
	block_devices(&it, ids);
	interrupts(&it, ids);
	cpu_topology(&it, ids);
	item_new(&it, ids, SCRY_SD_END);
	if (it.full) {
		snprintf(err, errlen, "statedump: more than %d interfaces, block devices, interrupts and CPUs, "
			 "or out of memory", SCRY_SD_ITEMS);
		free(it.v);
		return -E2BIG;
	}
	*out = it.v;
	*n = it.n;
	return 0;
}
