/* helper-proto.h - the messages between lib/spawn.c and the spawner helper
 * (lib/spawner/helper.c). Both sides are built from this tree by the same
 * compiler, so the structs go over the socket as they are. */
#ifndef TACHY_HELPER_PROTO_H
#define TACHY_HELPER_PROTO_H

#include <stdint.h>

#define TY_HELPER_MAGIC 0x74793032u /* "ty02" */
#define TY_HELPER_CPUS 1u	    /* req.cpus holds an affinity mask */
#define TY_HELPER_PDEATHSIG 2u	    /* the child gets SIGKILL when tachy dies */
#define TY_HELPER_SAME_GROUP 4u	    /* the child joins req.pgid (tachy's group), not its own */

/* The page both map: the futex that holds the child, what its set-up said. */
struct ty_helper_shm {
	uint32_t go;	     /* 0 hold, 2 the child sleeps, 1 released */
	int32_t child_errno; /* a set-up step or execve failed in the child */
	int64_t floor_kb;    /* the helper's own peak RSS, set before each clone */
	int64_t pre_csw[2];  /* the child's voluntary and involuntary context
				switches before its execve (tachy's, not the run's) */
	/* Set by tachy, read by the helper when tachy's end of the socket
	 * closes: without BYE tachy has died, and the helper kills WATCH's
	 * process group and every process in the cgroup CGROUP. */
	uint32_t bye;	   /* tachy ends normally */
	int32_t watch;	   /* the current run's process group, 0 when none */
	char cgroup[2048]; /* the runs' cgroup directory, "" when none */
};

struct ty_helper_req {
	uint32_t magic, flags;
	uint32_t len;	     /* bytes of strings that follow */
	uint32_t argc, envc; /* argv and envp counts (no NULLs) */
	int32_t pgid;	     /* with TY_HELPER_SAME_GROUP */
	uint32_t pad;
	uint64_t cpus[16]; /* 1024 CPUs, as a cpu_set_t */
};

struct ty_helper_pid {
	int32_t pid; /* or -errno */
};

#endif
