/* test_cgroup.c — src/util/cgroup.c: the container a cgroup path names, for each runtime's
 * naming under systemd and cgroupfs, the innermost of nested ones, the monitors (conmon)
 * and other near misses not taken, a machine's escaped name, and the labels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runtimes),
		cmocka_unit_test(test_near_misses),
		cmocka_unit_test(test_innermost),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
