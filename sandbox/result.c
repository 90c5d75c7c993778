/*
 * sandbox/result.c: the run result: reason names, freeing, and the JSON
 * shape of `sandbox exec --json` of docs/CONTRACTS.md (plus "signal_name"), and
 * signal names. Captured output is
 * arbitrary bytes; invalid UTF-8 becomes U+FFFD so the JSON stays valid.
 */
#include "sandbox/internal.h"

#include <string.h>

const char *tg_reason_name(tg_reason r)
{
	switch (r) {
	case TG_REASON_EXITED: return "exited";
	case TG_REASON_SIGNALED: return "signaled";
	case TG_REASON_TIMEOUT: return "timeout";
	case TG_REASON_CPU: return "cpu";
	case TG_REASON_MEMORY: return "memory";
	case TG_REASON_OUTPUT_LIMIT: return "output_limit";
	case TG_REASON_FILE_SIZE: return "file_size";
	case TG_REASON_SECCOMP: return "seccomp";
	case TG_REASON_SETUP: return "setup";
	case TG_REASON_BRIDGE_PROTOCOL: return "bridge_protocol";
	case TG_REASON_CANCELLED: return "cancelled";
	}
	return "unknown";
}

const char *tg_signal_name(int sig)
{
	static const char *const names[32] = {
		NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS",
		"SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM",
		"SIGTERM", "SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN",
		"SIGTTOU", "SIGURG", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH",
		"SIGIO", "SIGPWR", "SIGSYS",
	};
	static const char *const rt[] = {
		"SIGRTMIN", "SIGRTMIN+1", "SIGRTMIN+2", "SIGRTMIN+3", "SIGRTMIN+4", "SIGRTMIN+5",
		"SIGRTMIN+6", "SIGRTMIN+7", "SIGRTMIN+8", "SIGRTMIN+9", "SIGRTMIN+10",
		"SIGRTMIN+11", "SIGRTMIN+12", "SIGRTMIN+13", "SIGRTMIN+14", "SIGRTMIN+15",
		"SIGRTMAX-14", "SIGRTMAX-13", "SIGRTMAX-12", "SIGRTMAX-11", "SIGRTMAX-10",
		"SIGRTMAX-9", "SIGRTMAX-8", "SIGRTMAX-7", "SIGRTMAX-6", "SIGRTMAX-5",
		"SIGRTMAX-4", "SIGRTMAX-3", "SIGRTMAX-2", "SIGRTMAX-1", "SIGRTMAX",
	};

	if (sig > 0 && sig < 32)
		return names[sig];
	/* the kernel's real-time signals: 32..64 (glibc keeps 32 and 33) */
	if (sig >= 34 && sig <= 64)
		return rt[sig - 34];
	return NULL;
}

void tg_run_result_free(tg_run_result *r)
{
	if (!r)
		return;
	free(r->out);
	free(r->err);
	free(r);
}

/* Length of the valid UTF-8 sequence at s (max n bytes), 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		len = 2, cp = s[0] & 0x1F;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		len = 3, cp = s[0] & 0x0F;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
		return 0;
	return len;
}

static json_t *json_bytes(const char *s, size_t n)
{
	tg_buf b = TG_BUF_INIT(0);
	size_t i = 0;
	json_t *j;

	if (!s)
		return json_string("");
	while (i < n) {
		size_t k = utf8_seq((const unsigned char *)s + i, n - i);
		int r = k ? tg_buf_append(&b, s + i, k) : tg_buf_append(&b, "\xEF\xBF\xBD", 3);
		if (r < 0) {
			tg_buf_free(&b);
			return NULL;
		}
		i += k ? k : 1;
	}
	j = json_stringn(b.ptr ? b.ptr : "", b.len);
	tg_buf_free(&b);
	return j;
}

int tg_run_result_to_json(json_t **out, const tg_run_result *r)
{
	json_t *o = json_object();
	int e = 0;

	if (!o)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	e |= json_object_set_new(o, "exit_code",
				 r->reason == TG_REASON_EXITED ? json_integer(r->exit_code) : json_null());
	e |= json_object_set_new(o, "signal", r->signal ? json_integer(r->signal) : json_null());
	e |= json_object_set_new(o, "signal_name", tg_signal_name(r->signal)
							   ? json_string(tg_signal_name(r->signal))
							   : json_null());
	e |= json_object_set_new(o, "reason", json_string(tg_reason_name(r->reason)));
	e |= json_object_set_new(o, "syscall", r->syscall[0] ? json_string(r->syscall) : json_null());
	e |= json_object_set_new(o, "stdout", json_bytes(r->out, r->out_len));
	e |= json_object_set_new(o, "stderr", json_bytes(r->err, r->err_len));
	e |= json_object_set_new(o, "wall_ms", json_integer((json_int_t)r->wall_ms));
	e |= json_object_set_new(o, "cpu_ms", json_integer((json_int_t)r->cpu_ms));
	e |= json_object_set_new(o, "max_rss_kb", json_integer((json_int_t)r->max_rss_kb));
	if (e) {
		json_decref(o);
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	*out = o;
	return 0;
}
