/*
 * tests/sdk/run.h: run a program with given stdin bytes and collect its
 * stdout, stderr and exit status (temporary files, so no pipe deadlock).
 */
#ifndef TG_TESTS_SDK_RUN_H
#define TG_TESTS_SDK_RUN_H

#include <stddef.h>

typedef struct sdk_run {
	char *out;      /* NUL-terminated stdout */
	size_t out_len;
	char *err;      /* NUL-terminated stderr */
	size_t err_len;
	int status;     /* exit status, or 128 + signal */
} sdk_run;

/* 0 on success (the program ran), -1 if it could not be started. */
int sdk_run_prog(sdk_run *r, const char *prog, const char *input, size_t input_len);
void sdk_run_free(sdk_run *r);

#endif
