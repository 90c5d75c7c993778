/*
 * tests/sandbox/sbx_attacks.h: the cases of sandbox_attacks defined outside
 * test_sandbox.c (which holds main() and lists every case): the network
 * attacks (test_sandbox_net.c), the supervisor, kill and concurrency cases
 * (test_sandbox_proc.c), the pool and filter cases (test_sandbox_pool.c), and
 * the child that shares our memory (test_sandbox_vm.c).
 */
#ifndef TG_SBX_ATTACKS_H
#define TG_SBX_ATTACKS_H

/* test_sandbox_net.c */
void sandbox_net_tcp(void **state);
void sandbox_net_udp(void **state);
void sandbox_net_unix(void **state);
void sandbox_net_abstract(void **state);
void sandbox_net_prepared(void **state);
void sandbox_net_shared(void **state);
void sandbox_net_other_families(void **state);

/* test_sandbox_proc.c */
void sandbox_kill_all(void **state);
void sandbox_supervisor_killed(void **state);
void sandbox_concurrent(void **state);

/* test_sandbox_pool.c */
void sandbox_pool_bounds(void **state);
void sandbox_pool_waiter(void **state);
void sandbox_pool_fork_safe(void **state);
void sandbox_filter_fresh(void **state);
void sandbox_filter_shared_ns(void **state);

/* test_sandbox_vm.c */
void sandbox_shared_vm_faults(void **state);
void sandbox_shared_vm_signals(void **state);

#endif
