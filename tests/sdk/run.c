/*
 * tests/sdk/run.c: run a program with given stdin bytes and collect its
 * stdout, stderr and exit status, through unlinked temporary files.
 */
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int tmpfd(void)
{
	char name[] = "/tmp/tg_sdk_run.XXXXXX";
	int fd = mkstemp(name);
	if (fd >= 0)
		unlink(name);
	return fd;
}

static char *slurp(int fd, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1);
	ssize_t r;
	lseek(fd, 0, SEEK_SET);
	while (buf && (r = read(fd, buf + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap) {
			char *nb = realloc(buf, cap * 2 + 1);
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

int sdk_run_prog(sdk_run *r, const char *prog, const char *input, size_t input_len)
{
	int in = tmpfd(), out = tmpfd(), err = tmpfd(), st;
	size_t done = 0;
	pid_t pid;
	memset(r, 0, sizeof(*r));
	if (in < 0 || out < 0 || err < 0)
		return -1;
	while (done < input_len) {
		ssize_t w = write(in, input + done, input_len - done);
		if (w <= 0)
			return -1;
		done += (size_t)w;
	}
	lseek(in, 0, SEEK_SET);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(in, 0);
		dup2(out, 1);
		dup2(err, 2);
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	r->out = slurp(out, &r->out_len);
	r->err = slurp(err, &r->err_len);
	close(in);
	close(out);
	close(err);
	return r->out && r->err ? 0 : -1;
}

void sdk_run_free(sdk_run *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}
