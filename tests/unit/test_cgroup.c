/* test_cgroup.c — src/util/cgroup.c: the container a cgroup path names, for each runtime's
 * naming under systemd and cgroupfs, the innermost of nested ones, the monitors (conmon)
 * and other near misses not taken, a machine's escaped name, and the labels; a cgroup's
 * ancestor at a depth found from its id (directories made under the cgroup2 mount: root). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "util/cgroup.h"

#define ID1 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID2 "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

static void expect(const char *path, const char *runtime, const char *id, const char *label)
{
	struct scry_container c;
	char buf[SCRY_CONTAINER_ID_MAX];

	if (!runtime) {
		assert_false(scry_container_of_cgroup(path, &c));
		return;
	}
	assert_true(scry_container_of_cgroup(path, &c));
	assert_string_equal(c.runtime, runtime);
	assert_string_equal(c.id, id);
	scry_container_label(&c, buf, sizeof(buf));
	assert_string_equal(buf, label);
}

static void test_runtimes(void **state)
{
	expect("/system.slice/docker-" ID1 ".scope", "docker", ID1, "0123456789ab");
	expect("/docker/" ID1, "docker", ID1, "0123456789ab");
	expect("/kubepods.slice/kubepods-pod1.slice/cri-containerd-" ID2 ".scope", "containerd", ID2, "fedcba987654");
	expect("/kubepods/besteffort/pod1/containerd/" ID2, "containerd", ID2, "fedcba987654");
	expect("/machine.slice/crio-" ID1 ".scope", "crio", ID1, "0123456789ab");
	expect("/machine.slice/libpod-" ID2 ".scope", "podman", ID2, "fedcba987654");
	expect("/libpod_parent/libpod-" ID2, "podman", ID2, "fedcba987654");
	expect("/machine.slice/machine-web\\x2d1.scope", "machine", "web-1", "web-1");
	expect("/machine.slice/machine-db.scope/payload", "machine", "db", "db");
}

static void test_near_misses(void **state)
{
	expect("/", NULL, NULL, NULL);
	expect("/system.slice/ssh.service", NULL, NULL, NULL);
	expect("/machine.slice/crio-conmon-" ID1 ".scope", NULL, NULL, NULL);
	expect("/machine.slice/libpod-conmon-" ID1 ".scope", NULL, NULL, NULL);
	expect("/system.slice/docker-" ID1 ".service", NULL, NULL, NULL);        /* not a scope */
	expect("/system.slice/docker-0123.scope", NULL, NULL, NULL);            /* short id */
	expect("/system.slice/docker-" "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef" ".scope",
	       NULL, NULL, NULL);                                                /* upper case */
	expect("/other/" ID1, NULL, NULL, NULL);                                 /* no runtime before it */
	expect("/machine.slice/machine-.scope", NULL, NULL, NULL);
}

static void test_innermost(void **state)
{
	/* a docker container inside an nspawn machine: its own */
	expect("/machine.slice/machine-host1.scope/system.slice/docker-" ID2 ".scope", "docker", ID2, "fedcba987654");
	expect("/system.slice/docker-" ID1 ".scope/init.scope", "docker", ID1, "0123456789ab");
}

static void test_ancestor(void **state)
{
	char root[1024], d[3][1200];
	uint64_t id[3], got;
	int made = 0;

	if (scry_cgroup_root(root, sizeof(root)) || geteuid())
		skip();
	snprintf(d[0], sizeof(d[0]), "%s/scryunit-%d.slice", root, (int)getpid());
	snprintf(d[1], sizeof(d[1]), "%s/scryunit-%d.slice/docker-" ID1 ".scope", root, (int)getpid());
	snprintf(d[2], sizeof(d[2]), "%s/scryunit-%d.slice/docker-" ID1 ".scope/sub", root, (int)getpid());
	for (; made < 3 && !mkdir(d[made], 0755); made++)
		id[made] = scry_cgroup_id(d[made]);
	assert_int_equal(made, 3);
	for (int k = 0; k < 3; k++) {
		assert_true(id[k] != 0);
		assert_int_equal(scry_cgroup_ancestor(id[2], 1 + (unsigned)k, &got), 0);   /* d[k]: level k + 1 */
		assert_true(got == id[k]);
		assert_int_equal(scry_cgroup_ancestor(id[k], 1 + (unsigned)k, &got), 0);   /* itself */
		assert_true(got == id[k]);
	}
	assert_int_equal(scry_cgroup_ancestor(id[2], 0, &got), 0);
	assert_true(got == scry_cgroup_id(root));
	assert_int_equal(scry_cgroup_ancestor(id[0], 2, &got), 0);   /* deeper than the cgroup: 0 */
	assert_true(got == 0);
	while (made--)
		rmdir(d[made]);
	assert_int_equal(scry_cgroup_ancestor(id[2], 1, &got), -1);   /* gone */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runtimes),
		cmocka_unit_test(test_near_misses),
		cmocka_unit_test(test_innermost),
		cmocka_unit_test(test_ancestor),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
