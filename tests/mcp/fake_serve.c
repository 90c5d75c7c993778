/*
 * tests/mcp/fake_serve.c: the MCP server of `toolgate serve` on stdio with the
 * in-memory fake registry instead of a home: the node tests drive it with the
 * official SDK client to check the protocol layer (pagination over many
 * tools, list_changed, budgets) without compiling or sandboxing anything.
 * Usage: mcp_fake_serve [--home DIR] [serve] [--max-calls N] [--max-creates N]
 * [--tools N] (N extra tools named bulk_000...). SIGUSR1 bumps the toolset
 * generation, like a change made by another process.
 */
#include "fake_backend.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t bumps;

static void on_usr1(int sig)
{
	(void)sig;
	bumps++;
}

static fake_registry fake;
static int (*real_generation)(void *ctx, uint64_t *out);

static int generation(void *ctx, uint64_t *out)
{
	int r = real_generation(ctx, out);
	*out += (uint64_t)bumps;
	return r;
}

int main(int argc, char **argv)
{
	tg_mcp_backend be;
	tg_mcp_options opt = { 0 };
	tg_mcp_server *s = NULL;
	struct sigaction sa;
	int i, r, extra = 0;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--max-calls") == 0 && i + 1 < argc)
			opt.max_calls = (uint32_t)atoi(argv[++i]);
		else if (strcmp(argv[i], "--max-creates") == 0 && i + 1 < argc)
			opt.max_creates = (uint32_t)atoi(argv[++i]);
		else if (strcmp(argv[i], "--tools") == 0 && i + 1 < argc)
			extra = atoi(argv[++i]);
		else if (strcmp(argv[i], "--home") == 0 && i + 1 < argc)
			i++;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	fake_init(&fake, &be);
	fake_add_tool(&fake, "echo", NULL);
	fake_add_tool(&fake, "fail", NULL);
	for (i = 0; i < extra; i++) {
		char name[32];
		snprintf(name, sizeof(name), "bulk_%03d", i);
		fake_add_tool(&fake, name, NULL);
	}
	real_generation = be.generation;
	be.generation = generation;
	opt.version = "fake";
	r = tg_mcp_server_new(&s, &be, &opt);
	if (r == 0)
		r = tg_mcp_serve(s, STDIN_FILENO, STDOUT_FILENO);
	if (r == 0)
		r = tg_mcp_server_close(s);
	if (r < 0)
		fprintf(stderr, "mcp_fake_serve: %s\n", tg_error_last()->message);
	tg_mcp_server_free(s);
	fake_free(&fake);
	return r < 0 ? 3 : 0;
}
