/* sets_mem.c — memory-management flag/enum sets: protections, mmap flags (mapping type
 * first, huge page size last), mremap, madvise, msync, mlock, memfd (names and order as
 * strace 6 prints them). */
#include "format/fmt_internal.h"

static const struct fmt_xval v_prot[] = {
	{ 0, "PROT_NONE" }, { 0x1, "PROT_READ" }, { 0x2, "PROT_WRITE" }, { 0x4, "PROT_EXEC" },
	{ 0x8, "PROT_SEM" }, { 0x01000000, "PROT_GROWSDOWN" }, { 0x02000000, "PROT_GROWSUP" },
};

static const struct fmt_xval v_maptype[] = {
	{ 1, "MAP_SHARED" }, { 2, "MAP_PRIVATE" }, { 3, "MAP_SHARED_VALIDATE" },
};

static const struct fmt_xval v_mmap[] = {
	{ 0, "MAP_FILE" }, { 0x10, "MAP_FIXED" }, { 0x20, "MAP_ANONYMOUS" }, { 0x40, "MAP_32BIT" },
	{ 0x4000, "MAP_NORESERVE" }, { 0x8000, "MAP_POPULATE" }, { 0x10000, "MAP_NONBLOCK" },
	{ 0x100, "MAP_GROWSDOWN" }, { 0x800, "MAP_DENYWRITE" }, { 0x1000, "MAP_EXECUTABLE" },
	{ 0x2000, "MAP_LOCKED" }, { 0x20000, "MAP_STACK" }, { 0x40000, "MAP_HUGETLB" },
	{ 0x80000, "MAP_SYNC" }, { 0x100000, "MAP_FIXED_NOREPLACE" },
};

static const struct fmt_xval v_mremap[] = {
	{ 1, "MREMAP_MAYMOVE" }, { 2, "MREMAP_FIXED" }, { 4, "MREMAP_DONTUNMAP" },
};

static const struct fmt_xval v_madv[] = {
	{ 0, "MADV_NORMAL" }, { 1, "MADV_RANDOM" }, { 2, "MADV_SEQUENTIAL" }, { 3, "MADV_WILLNEED" },
	{ 4, "MADV_DONTNEED" }, { 8, "MADV_FREE" }, { 9, "MADV_REMOVE" }, { 10, "MADV_DONTFORK" },
	{ 11, "MADV_DOFORK" }, { 12, "MADV_MERGEABLE" }, { 13, "MADV_UNMERGEABLE" },
	{ 14, "MADV_HUGEPAGE" }, { 15, "MADV_NOHUGEPAGE" }, { 16, "MADV_DONTDUMP" },
	{ 17, "MADV_DODUMP" }, { 18, "MADV_WIPEONFORK" }, { 19, "MADV_KEEPONFORK" },
	{ 20, "MADV_COLD" }, { 21, "MADV_PAGEOUT" }, { 22, "MADV_POPULATE_READ" },
	{ 23, "MADV_POPULATE_WRITE" }, { 24, "MADV_DONTNEED_LOCKED" }, { 25, "MADV_COLLAPSE" },
	{ 100, "MADV_HWPOISON" }, { 101, "MADV_SOFT_OFFLINE" },
};

static const struct fmt_xval v_msync[] = { { 4, "MS_SYNC" }, { 1, "MS_ASYNC" }, { 2, "MS_INVALIDATE" } };

static const struct fmt_xval v_mlockall[] = { { 1, "MCL_CURRENT" }, { 2, "MCL_FUTURE" }, { 4, "MCL_ONFAULT" } };

static const struct fmt_xval v_mlock2[] = { { 1, "MLOCK_ONFAULT" } };

static const struct fmt_xval v_memfd[] = {
	{ 1, "MFD_CLOEXEC" }, { 2, "MFD_ALLOW_SEALING" }, { 4, "MFD_HUGETLB" },
};

static const struct fmt_xval v_shmat[] = {
	{ 010000, "SHM_RDONLY" }, { 020000, "SHM_RND" }, { 040000, "SHM_REMAP" }, { 0100000, "SHM_EXEC" },
};

const struct fmt_set fmt_sets_mem[] = {
	{ .name = "prot", .width = 64, .vals = XV(v_prot), .unknown = "PROT_???" },
	{ .name = "mmap", .width = 64, .vals = XV(v_mmap), .unknown = "MAP_???", .field = FLD_ENUM,
	  .field_mask = 0xf, .fvals = XV(v_maptype), .special = SP_HUGE_SHIFT,
	  .shift_name = "MAP_HUGE_SHIFT" },
	{ .name = "mremap", .width = 64, .vals = XV(v_mremap), .unknown = "MREMAP_???" },
	{ .name = "madvise", .is_enum = true, .vals = XV(v_madv), .unknown = "MADV_???" },
	{ .name = "msync", .vals = XV(v_msync), .unknown = "MS_???" },
	{ .name = "mlockall", .vals = XV(v_mlockall), .unknown = "MCL_???" },
	{ .name = "mlock2", .vals = XV(v_mlock2), .unknown = "MLOCK_???" },
	{ .name = "memfd", .vals = XV(v_memfd), .unknown = "MFD_???", .special = SP_HUGE_SHIFT,
	  .shift_name = "MFD_HUGE_SHIFT" },
	{ .name = "shmat", .vals = XV(v_shmat), .unknown = "SHM_???" },
};
const size_t fmt_sets_mem_len = sizeof(fmt_sets_mem) / sizeof(fmt_sets_mem[0]);
