/*
 * tests/registry/sqlexec.c: `registry_sqlexec DB SQL`: run SQL on a
 * database with the SQLite C API (so the tamper tests need no sqlite3 CLI)
 * and print result rows tab-separated. Exit 0 on success, 1 on an SQL error.
 */
#include <sqlite3.h>
#include <stdio.h>

static int row(void *ctx, int n, char **vals, char **cols)
{
	int i;
	(void)ctx;
	(void)cols;
	for (i = 0; i < n; i++)
		printf("%s%s", i ? "\t" : "", vals[i] ? vals[i] : "NULL");
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	sqlite3 *db = NULL;
	char *err = NULL;

	if (argc != 3) {
		fprintf(stderr, "usage: registry_sqlexec DB SQL\n");
		return 2;
	}
	if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		fprintf(stderr, "registry_sqlexec: %s: %s\n", argv[1], sqlite3_errmsg(db));
		return 1;
	}
	sqlite3_busy_timeout(db, 10000);
	if (sqlite3_exec(db, argv[2], row, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "registry_sqlexec: %s\n", err);
		sqlite3_free(err);
		sqlite3_close(db);
		return 1;
	}
	sqlite3_close(db);
	return 0;
}
