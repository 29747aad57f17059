/* profile-perfdata-sched.h - the tracepoints of a perf.data recording:
 * their formats, from the file's tracing data (perf's tracing-data
 * feature section, or its record in pipe mode), and the sched_switch
 * tracepoint's fields (prev_pid, prev_state, next_pid) read from each
 * sample's raw record, for off-CPU time (perf record -e
 * sched:sched_switch -g, perf sched record).
 *
 * The tracing data (tools/perf/util/trace-event-read.c in Linux): "\x17\x08D"
 * "tracing", a version string, the byte order, the size of a long and of a
 * page, the header_page and header_event files (a name, a u64 size, the
 * bytes), the ftrace formats (a u32 count; each a u64 size and the text),
 * then the events' formats (a u32 count of systems; each a name, a u32
 * count and per event a u64 size and the text of its format file, as
 * /sys/kernel/tracing/events/SYSTEM/NAME/format has it: "name: ...",
 * "ID: ...", a "field:TYPE NAME; offset:N; size:N; signed:N;" line per
 * field). Every read is bounds-checked; a format is found by its ID (the
 * event's perf_event_attr config). */
#ifndef TACHY_PROFILE_PERFDATA_SCHED_H
#define TACHY_PROFILE_PERFDATA_SCHED_H

#include <stddef.h>
#include <stdint.h>

/* One field of a tracepoint's raw record. */
struct ty_tp_field {
	uint32_t off, size; /* size 0: the format has no such field */
};

/* The sched_switch fields tachy reads. */
struct ty_tp_switch {
	struct ty_tp_field prev_pid, prev_state, next_pid;
	uint32_t need; /* the raw record's bytes they take */
};

/* The format of tracepoint ID in the tracing data TD[LEN]: its name
 * ("sched_switch", at most NAMELEN - 1 bytes) into NAME, and where it is
 * sched_switch, its fields into SW. Returns 0, or -1 with WHY saying what
 * is missing (no tracing data, a damaged one, no format of that ID, a
 * sched_switch without the fields). */
int ty_tp_format(const unsigned char *td, size_t len, uint64_t id, char *name, size_t namelen,
		 struct ty_tp_switch *sw, char *why, size_t whylen);

/* The fields of one sched_switch raw record RAW[SIZE]. Returns 0, or -1
 * when the record is shorter than the format's fields. */
int ty_tp_switch_read(const struct ty_tp_switch *sw, const unsigned char *raw, size_t size,
		      uint32_t *prev_pid, uint64_t *prev_state, uint32_t *next_pid);

/* What prev_state says the thread went off the CPU for, a TY_STATE_*
 * (profile.h): runnable (0, running: preempted, or the kernel's
 * preemption mark), sleeping (S, or I: an idle kernel thread), I/O (D:
 * uninterruptible), else blocked (stopped, traced, dead, parked). */
uint32_t ty_tp_switch_state(uint64_t prev_state);

#endif
