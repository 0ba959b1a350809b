/* syscall_specs.c — hand-kept argument specifications (grammar in argspec.h): what the
 * kernel's format files do not say.  Syscalls not listed here get plain values typed
 * from their format file. */
#include "catalog/argspec.h"

const struct scry_sc_specrow scry_sc_specs[] = {
	{ "read", "fd, obuf(ret), uint" },
	{ "write", "fd, ibuf(count), uint" },
	{ "openat", "dirfd, path, flags:open, mode" },
	{ "close", "fd" },
	{ "newfstatat", "dirfd, path, ostruct:stat, flags:at" },
	{ "pipe2", "oarray:int(2), flags:open" },
	{ "connect", "fd, isockaddr(addrlen), int" },
	{ "accept", "fd, osockaddr(*upeer_addrlen), ptr" },
	{ "execve", "path, strv, strv" },
};
const size_t scry_sc_specs_len = sizeof(scry_sc_specs) / sizeof(scry_sc_specs[0]);
