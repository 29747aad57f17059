/* t-record.c - the recorder on real children: their exit, exec failures,
 * samples of a busy child. Skips what needs perf events when they are not
 * available (a container without perf_event_open). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tachy/record.h"

static struct ty_symbols *syms;

static int
record(char **argv, struct ty_profile *p, const struct ty_exit **x, struct ty_recorder **out)
{
	struct ty_record_opts o = {0};
	struct ty_record_stop stop = {0, 0};
	struct ty_error e;
	int ret;

	ty_event_parse("cpu-clock", &o.ev, &e);
	o.use_freq = 1;
	o.rate = 999;
	o.user = 1;
	o.argv = argv;
	o.stdout_fd = -1;
	o.same_group = 0;
	ty_symbols_free(syms); /* the last recorder's: it is freed by now */
	syms = ty_symbols_new();
	ret = ty_record_start(out, &o, syms, &e);
	if (ret < 0)
		return ret;
	if ((ret = ty_record_wait(*out, &stop, &e)) == 0 && p)
		ret = ty_record_finish(*out, p, &e);
	*x = ty_record_exit(*out);
	return ret;
}

int
main(void)
{
	char *missing[] = {"./no-such-program-here", NULL};
	char *exit3[] = {"sh", "-c", "exit 3", NULL};
	char *busy[] = {"sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done", NULL};
	struct ty_recorder *r = NULL;
	const struct ty_exit *x = NULL;
	struct ty_profile *p;
	int ret;

	CHECK_INT(record(missing, NULL, &x, &r), -ENOENT);
	CHECK(r == NULL);
	ret = record(exit3, NULL, &x, &r);
	if (ret == -EACCES || ret == -EPERM || ret == -ENODEV || ret == -ENOSYS) {
		printf("# skipped the sampling checks: no perf events here (%d)\n", ret);
		return check_done();
	}
	CHECK_INT(ret, 0);
	CHECK(x && x->exit_code == 3 && x->signal == 0);
	ty_record_free(r);

	p = ty_profile_new();
	CHECK_INT(record(busy, p, &x, &r), 0);
	CHECK(x && x->exit_code == 0);
	CHECK(p->nsamples > 10);
	CHECK_STR(p->meta.event, "cpu-clock");
	CHECK(p->meta.workload_cpu_ns > 0);
	CHECK_STR(ty_record_event_name(r), "cpu-clock");
	CHECK_INT(ty_record_user_only(r), 1);
	ty_record_free(r);
	ty_profile_free(p);
	ty_symbols_free(syms);
	return check_done();
}
