#!/usr/bin/env python3
"""bench/mcp/profile.py FILE...: medians of the stages of tools/call in
`toolgate serve`, from the lines TG_CALL_PROFILE=FILE makes it write
(common/prof.c). Per file: the calls' count, how many were pooled, the
median and p90 of each step (from the stage before it that the call
reached), the median total (read to written), and the refill thread's
spans: how many overlap a call (between its read and its reply written)
and by how much, and the gap from the reply to the next request's read.
The first 20 calls (the bench's warm-up) are skipped."""
import sys

def q(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(p * len(xs) + 0.5)) - 1))] if xs else float('nan')

def parse(line):
    head, _, tail = line.partition('|')
    st = {}
    for w in head.split()[2:]:
        k, _, v = w.partition('=')
        st[k] = int(v)
    spans = []
    for w in tail.split():
        k, _, v = w.partition('=')
        a, _, b = v.partition('..')
        spans.append((k, int(a), int(b)))
    return st, spans

# intent_sync: the intent's barrier, only for a run that can act outside its
# result (an effect-free call's intent is made durable with its outcome:
# docs/REGISTRY.md, deferred intents); older builds stamp it after the
# pool's take-out
ORDER = ['read', 'parsed', 'call', 'lookup', 'checked', 'intent_commit', 'slot',
         'pool_taken', 'intent_sync', 'handed', 'setup', 'pipes_eof', 'reaped', 'run_done', 'result',
         'outcome_commit', 'outcome_sync', 'reply', 'written']

for path in sys.argv[1:]:
    calls = [parse(l) for l in open(path) if l.startswith('call us')][20:]
    if not calls:
        print(f'{path}: no calls')
        continue
    pooled = sum(1 for st, _ in calls if 'pool_taken' in st)
    print(f'{path}: {len(calls)} calls, {pooled} pooled')
    steps = {}
    for st, _ in calls:
        prev = None
        for k in ORDER:
            if k in st:
                if prev is not None:
                    steps.setdefault(k, []).append(st[k] - st[prev])
                prev = k
    for k in ORDER:
        if k in steps:
            print(f'  {prev_label if False else k:16s} median {q(steps[k], .5):6d} us  p90 {q(steps[k], .9):6d} us  (n={len(steps[k])})')
    csteps = {}
    for st, _ in calls:
        prev = None
        for k in ORDER:
            if 'c_' + k in st:
                if prev is not None:
                    csteps.setdefault(k, []).append(st['c_' + k] - st['c_' + prev])
                prev = k
    print('  the serving thread\'s CPU time per step:')
    for k in ORDER:
        if k in csteps:
            print(f'    {k:16s} median {q(csteps[k], .5):6d} us  p90 {q(csteps[k], .9):6d} us')
    for k in ('cpu_total', 'cpu_intent_sync', 'cpu_outcome_sync'):
        v = [st[k] for st, _ in calls if k in st]
        if v:
            print(f'  serving thread {k:17s} median {q(v, .5)} us  p90 {q(v, .9)} us')
    flt = [st['minflt'] for st, _ in calls if 'minflt' in st]
    if flt:
        print(f'  page faults of serve per call: median {q(flt, .5)}  p90 {q(flt, .9)}')
    tot = [st['written'] - st['read'] for st, _ in calls if 'read' in st]
    print(f'  total read..written median {q(tot, .5)} us  p90 {q(tot, .9)} us')
    # reply of call i to read of call i+1 (the client's side and the pipes):
    # not measurable from stamps relative to each read, so report the spans
    kinds = {}
    for st, spans in calls:
        end = st.get('written', 0)
        for k, a, b in spans:
            d = kinds.setdefault(k, {'n': 0, 'overlap': [], 'dur': [], 'start': []})
            d['n'] += 1
            d['dur'].append(b - a)
            d['start'].append(a)
            ov = max(0, min(b, end) - max(a, 0))
            d['overlap'].append(ov)
    for k, d in kinds.items():
        hit = sum(1 for o in d['overlap'] if o > 0)
        print(f'  span {k:10s} n={d["n"]} duration median {q(d["dur"], .5)} us; start median '
              f'{q(d["start"], .5)} us from the read; overlaps its call in {hit}/{d["n"]}, '
              f'median overlap {q([o for o in d["overlap"] if o > 0] or [0], .5)} us')
