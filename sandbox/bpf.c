/*
 * sandbox/bpf.c: a small classic-BPF interpreter for seccomp programs. The
 * supervisor uses it after a seccomp kill: each thread of the dead process
 * stops at its ptrace exit event with the registers of its last syscall;
 * running our own filter on them tells which thread was the one killed and
 * by which call (the others were only taken down with it).
 */
#include "sandbox/internal.h"

#include <string.h>

static int load_word(const struct seccomp_data *d, uint32_t off, uint32_t *out)
{
	if (off % 4 || off + 4 > sizeof(*d))
		return -1;
	memcpy(out, (const char *)d + off, 4);
	return 0;
}

uint32_t sbx_bpf_eval(const struct sock_fprog *f, const struct seccomp_data *d)
{
	uint32_t A = 0, X = 0, M[BPF_MEMWORDS] = { 0 };
	size_t pc = 0, steps = 0;

	while (pc < f->len && steps++ < 65536) {
		const struct sock_filter *in = &f->filter[pc++];
		uint32_t k = in->k, src = BPF_SRC(in->code) == BPF_X ? X : k;
		switch (BPF_CLASS(in->code)) {
		case BPF_LD:
			if (BPF_MODE(in->code) == BPF_ABS && BPF_SIZE(in->code) == BPF_W) {
				if (load_word(d, k, &A))
					return SECCOMP_RET_KILL_PROCESS;
			} else if (BPF_MODE(in->code) == BPF_IMM) {
				A = k;
			} else if (BPF_MODE(in->code) == BPF_MEM && k < BPF_MEMWORDS) {
				A = M[k];
			} else if (BPF_MODE(in->code) == BPF_LEN) {
				A = sizeof(*d);
			} else {
				return SECCOMP_RET_KILL_PROCESS;
			}
			break;
		case BPF_LDX:
			if (BPF_MODE(in->code) == BPF_IMM)
				X = k;
			else if (BPF_MODE(in->code) == BPF_MEM && k < BPF_MEMWORDS)
				X = M[k];
			else if (BPF_MODE(in->code) == BPF_LEN)
				X = sizeof(*d);
			else
				return SECCOMP_RET_KILL_PROCESS;
			break;
		case BPF_ST:
			if (k >= BPF_MEMWORDS)
				return SECCOMP_RET_KILL_PROCESS;
			M[k] = A;
			break;
		case BPF_STX:
			if (k >= BPF_MEMWORDS)
				return SECCOMP_RET_KILL_PROCESS;
			M[k] = X;
			break;
		case BPF_ALU:
			switch (BPF_OP(in->code)) {
			case BPF_ADD: A += src; break;
			case BPF_SUB: A -= src; break;
			case BPF_MUL: A *= src; break;
			case BPF_DIV: if (!src) return SECCOMP_RET_KILL_PROCESS; A /= src; break;
			case BPF_MOD: if (!src) return SECCOMP_RET_KILL_PROCESS; A %= src; break;
			case BPF_AND: A &= src; break;
			case BPF_OR: A |= src; break;
			case BPF_XOR: A ^= src; break;
			case BPF_LSH: A = src < 32 ? A << src : 0; break;
			case BPF_RSH: A = src < 32 ? A >> src : 0; break;
			case BPF_NEG: A = (uint32_t)-A; break;
			default: return SECCOMP_RET_KILL_PROCESS;
			}
			break;
		case BPF_JMP:
			if (BPF_OP(in->code) == BPF_JA) {
				pc += k;
				break;
			}
			{
				int cond;
				switch (BPF_OP(in->code)) {
				case BPF_JEQ: cond = A == src; break;
				case BPF_JGT: cond = A > src; break;
				case BPF_JGE: cond = A >= src; break;
				case BPF_JSET: cond = (A & src) != 0; break;
				default: return SECCOMP_RET_KILL_PROCESS;
				}
				pc += cond ? in->jt : in->jf;
			}
			break;
		case BPF_RET:
			return BPF_RVAL(in->code) == BPF_A ? A : k;
		case BPF_MISC:
			if (BPF_MISCOP(in->code) == BPF_TAX)
				X = A;
			else
				A = X;
			break;
		default:
			return SECCOMP_RET_KILL_PROCESS;
		}
	}
	return SECCOMP_RET_KILL_PROCESS;
}
