/*
 * tests/common/test_support.h: helpers shared by the C tests of several
 * modules (library tg_test_support, tests/common/CMakeLists.txt): a
 * throw-away toolgate home in its own temporary folder, SQL run on that
 * home's registry.db from a second connection, and a version put into the
 * home's store as the pipeline commits it. They fail the running cmocka
 * test on any error; include after cmocka.h.
 */
#ifndef TG_TEST_SUPPORT_H
#define TG_TEST_SUPPORT_H

#include <stdint.h>

#include "store/store.h"

/* "/tmp/<prefix>_XXXXXX/home": the folder is made, the home inside it is
 * not (the code under test creates it). Free with tgt_home_remove. */
char *tgt_home_make(const char *prefix);

/* Remove the temporary folder of a tgt_home_make home and free home. */
void tgt_home_remove(char *home);

/* Run stmt on home/registry.db from a connection of its own (waiting up
 * to 10 s for a lock held elsewhere). */
void tgt_sql(const char *home, const char *stmt);

/* The first column of the first row of query on home/registry.db. */
int64_t tgt_sql_int(const char *home, const char *query);

/* The store of home (home/store.git), created if missing. */
tg_store *tgt_store_open(const char *home);

/* Put one version of tool into s as the pipeline commits it: manifest
 * (tool.json, its source "tool.c"), src (tool.c), a passing analysis.json,
 * an empty tests.json, and the trailers of status (Toolgate-Verdict
 * "reject" for "rejected", else "pass"), the content hash of src and the
 * submitter "cli". Returns the version's number. */
unsigned tgt_store_put_version(tg_store *s, const char *tool, const char *status,
			       const char *src, const char *manifest);

#endif
