/* helper-proto.h - the messages between lib/spawn.c and the spawner helper
 * (lib/spawner/helper.c). Both sides are built from this tree by the same
 * compiler, so the structs go over the socket as they are. */
#ifndef TACHY_HELPER_PROTO_H
#define TACHY_HELPER_PROTO_H

#include <stdint.h>

#define TY_HELPER_MAGIC 0x74793031u /* "ty01" */
#define TY_HELPER_CPUS 1u	    /* req.cpus holds an affinity mask */
#define TY_HELPER_PDEATHSIG 2u	    /* the child gets SIGKILL when the helper dies */
#define TY_HELPER_SAME_GROUP 4u	    /* the child stays in the helper's process group */

/* The page both map: the futex that holds the child, what its set-up said. */
struct ty_helper_shm {
	uint32_t go;	     /* 0 hold, 2 the child sleeps, 1 released */
	int32_t child_errno; /* a set-up step or execve failed in the child */
	int64_t floor_kb;    /* the helper's own peak RSS */
};

struct ty_helper_req {
	uint32_t magic, flags;
	uint32_t len;	     /* bytes of strings that follow */
	uint32_t argc, envc; /* argv and envp counts (no NULLs) */
	uint64_t cpus[16];   /* 1024 CPUs, as a cpu_set_t */
};

struct ty_helper_pid {
	int32_t pid; /* or -errno */
};

struct ty_helper_done {
	int32_t status; /* wait4() status, -1 when wait4 failed */
	int32_t child_errno;
	int64_t user_us, system_us;
	int64_t maxrss_kb, floor_kb;
	int64_t minflt, majflt, nvcsw, nivcsw;
};

#endif
