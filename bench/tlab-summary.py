#!/usr/bin/env python3
"""Allocation by site from a JFR recording of the jdk.ObjectAllocationInNewTLAB and OutsideTLAB events.

Each event stands for the TLAB it opened (or the object allocated outside one): with -XX:TLABSize=16k -XX:-ResizeTLAB
the weights are comparable and their sum is the bytes allocated. JFR's ObjectAllocationSample, which the `profile`
scenario records, weights a sample by what its thread allocated since the last one, and so credits a thread's whole
allocation to whatever it allocated last (a lock's ConditionNode while it waits). Usage:

  bench/run.sh --no-build --only=pipeline --reps=1 "--jvm=<the images' options> -XX:TLABSize=16k -XX:-ResizeTLAB \
      -XX:StartFlightRecording=filename=/tmp/p.jfr,settings=bench/results/alloc/one-pass/tlab.jfc"
  jfr print --stack-depth 64 --events jdk.ObjectAllocationInNewTLAB,jdk.ObjectAllocationOutsideTLAB /tmp/p.jfr \
      | python3 bench/tlab-summary.py ROWS [TOP]

ROWS: the rows the recorded JVM wrote (the pipeline's warm-up and measured rows: 300 000). Prints bytes per row by
thread, by thread and first frame of this project, by class, and by site.
"""
import collections
import re
import sys

UNITS = {'bytes': 1, 'byte': 1, 'kB': 1024, 'MB': 1048576}


def main():
    rows = int(sys.argv[1])
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    by_site, by_thread, by_frame, by_class = (collections.Counter() for _ in range(4))
    total = 0
    event = None

    def flush():
        nonlocal total
        if not event:
            return
        weight = event.get('weight', 0)
        total += weight
        thread = re.sub(r'\d+', 'N', event.get('thread', '?'))
        frames = event['frames']
        first = frames[0] if frames else '?'
        ours = next((f for f in frames if f.startswith('io.streamtables')), '-')
        by_thread[thread] += weight
        by_frame[(thread, ours)] += weight
        by_class[event.get('class', '?')] += weight
        by_site[(thread, event.get('class', '?'), first, ours)] += weight

    for line in sys.stdin:
        s = line.strip()
        if s.startswith('jdk.ObjectAllocation'):
            flush()
            event = {'frames': []}
        elif event is None:
            continue
        elif s.startswith('objectClass = '):
            event['class'] = s.split('=', 1)[1].split('(')[0].strip()
        elif s.startswith('tlabSize = ') or (s.startswith('allocationSize = ') and 'weight' not in event):
            value = s.split('=', 1)[1].split()
            event['weight'] = float(value[0].replace(',', '')) * UNITS.get(value[1] if len(value) > 1 else 'bytes', 1)
        elif s.startswith('eventThread = '):
            event['thread'] = s.split('"')[1] if '"' in s else s
        elif 'line:' in s:
            event['frames'].append(s.split('(')[0])
    flush()

    print('total MB %.0f, per row %.0f B' % (total / 1e6, total / rows))
    for thread, w in by_thread.most_common(12):
        print(f'{w / rows:8.1f} B/row  {thread}')
    print('\nby thread and first frame of this project')
    for (thread, ours), w in by_frame.most_common(25):
        print(f'{w / rows:8.1f}  {thread[:20]:20} {ours}')
    print('\nby class')
    for cls, w in by_class.most_common(25):
        print(f'{w / rows:8.1f}  {cls}')
    print('\nby site')
    for (thread, cls, first, ours), w in by_site.most_common(top):
        print(f'{w / rows:7.1f}  {thread[:16]:16} {cls[-38:]:38} {first[-60:]:60} {ours[-55:]}')


if __name__ == '__main__':
    main()
