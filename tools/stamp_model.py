#!/usr/bin/python3
"""stamp_model.py - every interleaving of one CPU's nested trace writers,
for the stamp-order protocol of kernel/trace/tracebuf.c and two cheaper
ones that drop the clamp's compare-and-exchange.

    python3 tools/stamp_model.py [PROTOCOL...]   (default: all three)

A writer's steps: read the position; read the clamp's word(s); read the
clock (any of CLOCKS: a clock that may go back, or a correction that
steps down); stamp = the largest of them; publish the stamp; reserve with
a compare-and-swap of the position (a failure goes round again); publish
again after (the "two" protocol only).  Between any two steps a writer
may be interrupted by another that runs to its end (an interrupt's
writer), up to MAX_DEPTH deep and MAX_WRITERS in all, and a writer may be
dropped after it published (a full buffer).  The property: in buffer
order the stamps never decrease.

  kernel  the clamp's word advanced by a CPU-local compare-and-swap before
          the position's (what tracebuf_reserve_inline and _slow do)
  single  the clamp's word stored plainly before the position's CAS
  two     stored plainly before the CAS, and a second word stored plainly
          after it; the stamp clamped to the larger of the two

Prints each protocol's states and violations, the first violation's
buffer; exits 1 when the kernel's protocol has one.  A design aid
(docs/testing.md, "What the trace write's 16 cycles over its floor are made of"):
the two cheaper protocols each have violations.
"""

import sys

CLOCKS = (0, 1, 2)
MAX_WRITERS = 3
MAX_DEPTH = 3

# A writer's state: (pc, old position, first word read, second word read, stamp).
FRESH = (0, 0, 0, 0, 0)


def explore(protocol):
    """All states reachable; the ones whose buffer went back."""
    start = (0, 0, 0, (), (), 0)  # position, word A, word B, stamps, writers (innermost last), writers begun
    seen, todo, bad = set(), [start], []
    while todo:
        state = todo.pop()
        if state in seen:
            continue
        seen.add(state)
        off, a_word, b_word, buf, writers, begun = state
        if any(buf[i] > buf[i + 1] for i in range(len(buf) - 1)):
            bad.append(state)
            continue
        nxt = []
        if begun < MAX_WRITERS and len(writers) < MAX_DEPTH:  # an interrupt's writer begins
            nxt.append((off, a_word, b_word, buf, writers + (FRESH,), begun + 1))
        if writers:
            pc, old, a, b, ts = writers[-1]
            outer = writers[:-1]

            def go(w, off=off, a_word=a_word, b_word=b_word, buf=buf):
                return (off, a_word, b_word, buf, outer + ((w,) if w else ()), begun)

            if pc == 0:
                nxt.append(go((1, off, a, b, ts)))
            elif pc == 1:
                nxt.append(go((2, old, a_word, b, ts)))
            elif pc == 2:
                nxt.append(go((3, old, a, b_word if protocol == "two" else 0, ts)))
            elif pc == 3:
                nxt.extend(go((4, old, a, b, max(c, a, b))) for c in CLOCKS)
            elif pc == 4:
                if protocol == "kernel" and a_word != a:
                    nxt.append(go(FRESH))  # the clamp's CAS failed: again
                else:
                    nxt.append(go((5, old, a, b, ts), a_word=ts))
            elif pc == 5:
                if off == old:
                    nxt.append(go((6, old, a, b, ts), off=off + 1, buf=buf + (ts,)))
                else:
                    nxt.append(go(FRESH))  # a writer reserved since: again
                nxt.append(go(None))  # dropped
            else:
                nxt.append(go(None, b_word=ts) if protocol == "two" else go(None))
        todo.extend(nxt)
    return len(seen), bad


def main(argv):
    protocols = argv[1:] or ["kernel", "single", "two"]
    failed = False
    for p in protocols:
        if p not in ("kernel", "single", "two"):
            print("stamp_model.py: unknown protocol %r (kernel, single or two)" % p, file=sys.stderr)
            return 2
        states, bad = explore(p)
        first = " first: stamps %s in buffer order" % (bad[0][3],) if bad else ""
        print("%-6s %d states, %d violations.%s" % (p, states, len(bad), first))
        failed |= p == "kernel" and bool(bad)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
