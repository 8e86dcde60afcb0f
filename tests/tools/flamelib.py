"""flamelib.py - what a flame graph of a log should hold, computed here from
`kprof decode --json` and readelf, not by the tool; and the frames of a
flame graph SVG as drawn.  Shared by test_flamegraph (the numbers and the
markup) and test_flame_browser (the script in Chromium).

Expected tree (docs/report.md, tools/kprof/pictures/flame/flame.c): each
StackWalk with addresses is one stack, weighing the Count of the
SampledProfile on its CPU whose TimeStamp is its EventTimeStamp (at least
1; the first of two at one stamp), 1 for a PmcInterrupt's, or 1 without
one; its path is
    (process, thread, outermost function, ..., sampled function)
with the process and thread named from the first KprofThread record of
each thread in time ("System (4)", "pong (136)"), "Idle" / "process N" /
"thread N" without one, and return addresses (all but the first)
looked up one byte back.  Every prefix of a path is a frame whose samples
are the weights of the stacks under it.
"""
import bisect
import collections
import json
import re
import subprocess
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
PLOT_X, PLOT_W = 10.0, 1180.0   # flame_svg.c: XPAD, WIDTH - 2 * XPAD
MIN_WIDTH = 0.1                 # flame_svg.c: narrower frames are left out
TITLE_RE = re.compile(r"^(.+) \((\d+) samples, (\d+\.\d\d)%\)$")


def decode(kprof, log):
    p = subprocess.run([kprof, "decode", "--json", "--quiet", log], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode:
        raise SystemExit("decode %s failed: %s" % (log, p.stderr.decode(errors="replace")))
    return [json.loads(line) for line in p.stdout.splitlines()]


# ------------------------------------------------------------ symbols

class Symbols:
    """The kernel's functions as tools/kprof/elf/symbols.c picks them:
    STT_FUNC symbols and labels (STT_NOTYPE) in executable sections; at
    one address a function before a label, a global before a local, a
    name without a leading '_' first; a symbol without a size reaches the
    next one (or its section's end)."""

    def __init__(self, elf):
        sections = {}
        out = subprocess.run(["readelf", "-SW", elf], stdout=subprocess.PIPE, check=True).stdout.decode()
        for m in re.finditer(r"^\s*\[\s*(\d+)\]\s+\S+\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\S+\s+(\S*)",
                             out, re.M):
            start, size = int(m.group(2), 16), int(m.group(3), 16)
            sections[m.group(1)] = (start + size, "X" in m.group(4))
        best = {}
        out = subprocess.run(["readelf", "-sW", elf], stdout=subprocess.PIPE, check=True).stdout.decode()
        for line in out.splitlines():
            col = line.split()
            if len(col) != 8 or col[3] not in ("FUNC", "NOTYPE") or col[6] not in sections:
                continue
            end, executable = sections[col[6]]
            if col[3] == "NOTYPE" and not executable:
                continue
            addr = int(col[1], 16)
            key = (col[3] != "FUNC", col[4] == "LOCAL", col[7].startswith("_"))
            if addr not in best or key < best[addr][0]:
                best[addr] = (key, col[7], int(col[2], 0), end)
        self.starts = sorted(best)
        self.entries = []
        for i, a in enumerate(self.starts):
            _, name, size, end = best[a]
            nxt = self.starts[i + 1] if i + 1 < len(self.starts) else end
            self.entries.append((name, a + size if size else min(end, nxt)))

    def name(self, addr):
        i = bisect.bisect_right(self.starts, addr) - 1
        if i >= 0 and addr < self.entries[i][1]:
            return self.entries[i][0]
        return None


# ------------------------------------------------------------ the expected tree

def thread_names(recs):
    """tid -> (pid, thread name, process name) from its first KprofThread in time."""
    names = {}
    for r in sorted((r for r in recs if r["event"] == "KprofThread"), key=lambda r: r["TimeStamp"]):
        names.setdefault(r["ThreadId"], (r["ProcessId"], r["ThreadName"], r["ProcessName"]))
    return names


def process_label(names, pid, tid):
    own = names.get(tid)
    if own and own[0] == pid and own[2]:
        return "%s (%d)" % (own[2], pid)
    for t in sorted(names):
        if names[t][0] == pid and names[t][2]:
            return "%s (%d)" % (names[t][2], pid)
    return "Idle" if pid == 0 else "process %d" % pid


def thread_label(names, tid):
    own = names.get(tid)
    if own and own[1]:
        return "%s (%d)" % (own[1], tid)
    return "Idle" if tid == 0 else "thread %d" % tid


def stacks(recs, syms):
    """[(path, weight, tid, thread name)] for every StackWalk with addresses."""
    counts = {}  # the first sample at a stamp on a CPU, as the tool takes it
    for r in recs:
        if r["event"] in ("SampledProfile", "PmcInterrupt"):
            counts.setdefault((r["cpu"], r["TimeStamp"]), (r["Count"] or 1) if r["event"] == "SampledProfile" else 1)
    names = thread_names(recs)
    out = []
    for r in recs:
        if r["event"] != "StackWalk" or not r["Stack"]:
            continue
        funcs = []
        for i, a in enumerate(int(x, 16) for x in r["Stack"]):
            funcs.append(syms.name(a - 1 if i else a) or "0x%016x" % a)
        tid = r["StackThread"]
        path = (process_label(names, r["StackProcess"], tid), thread_label(names, tid)) + tuple(reversed(funcs))
        out.append((path, counts.get((r["cpu"], r["EventTimeStamp"]), 1), tid, names.get(tid, (0, "", ""))[1]))
    return out


def tree(stack_list):
    """{path prefix: samples}, with () the root "all"."""
    weights = collections.Counter()
    for path, w, _, _ in stack_list:
        for i in range(len(path) + 1):
            weights[path[:i]] += w
    return weights


# ------------------------------------------------------------ the SVG as drawn

def svg_frames(path):
    """The <g class="frame ..."> of a flame graph with their numbers, and
    each frame's path rebuilt from the geometry: a frame's caller is the
    frame one level below whose samples [s, s + n) hold its own."""
    root = ET.parse(path).getroot()
    frames = []
    for g in root.iter(SVG + "g"):
        cls = (g.get("class") or "").split()
        if "frame" not in cls:
            continue
        rect, text, title = g.find(SVG + "rect"), g.find(SVG + "text"), g.find(SVG + "title")
        m = TITLE_RE.match(title.text if title is not None else "")
        frames.append(dict(kind=(cls + ["function"])[1], title=title.text if title is not None else None,
                           name=m.group(1) if m else None, n=int(m.group(2)) if m else None,
                           pct=float(m.group(3)) if m else None, s=int(g.get("data-s", -1)),
                           dn=int(g.get("data-n", -1)), x=float(rect.get("x")), y=float(rect.get("y")),
                           w=float(rect.get("width")), fill=rect.get("fill"),
                           label=text.text if text is not None else None, has_text=text is not None))
    levels = sorted({f["y"] for f in frames}, reverse=True)
    by_level = collections.defaultdict(list)
    for f in frames:
        f["level"] = levels.index(f["y"])
        by_level[f["level"]].append(f)
    for lv in range(len(levels)):
        for f in by_level[lv]:
            f["path"] = () if lv == 0 else None
            if lv == 0:
                continue
            for p in by_level[lv - 1]:
                if p["path"] is not None and p["s"] <= f["s"] and f["s"] + f["dn"] <= p["s"] + p["dn"]:
                    f["path"] = p["path"] + (f["name"],)
                    f["parent"] = p
                    break
    return root, frames
