"""straceopen.py - the files a command opened or executed, read from what
`strace -f -qq -z -y -e signal=none -e trace=TRACED` wrote (TRACED below).

Each file comes with the program that used it: the file the process (or the
process it was forked from) last executed.  A program the kernel loads
without an open is counted too: the interpreter named by a script's "#!"
line and the dynamic loader named by an ELF program's PT_INTERP.

Invariants the reader relies on, and checks:
  - -z: only calls that succeeded are written, each on one line of its own
    (strace holds a call back until it returns), so there are no
    "<unfinished ...>" pieces; a line this reader does not understand is an
    error, never skipped;
  - -y: an open's result is the descriptor with the path the kernel resolved
    (symbolic links followed), and a relative name's directory is written as
    AT_FDCWD</dir>;
  - a child can print calls before its parent's clone() line (both are
    printed when they return), so the program a child ran before its own
    execve is looked up once the whole trace is read.
"""

import codecs
import os
import re
import struct

TRACED = "openat,open,execve,execveat,clone,clone3,fork,vfork"

LINE_RE = re.compile(r"^(\d+) +(\w+)\((.*)\) += (.*)$")
STR_RE = r'"((?:[^"\\]|\\.)*)"'
OPENAT_RE = re.compile(r"^(?:AT_FDCWD|-?\d+)(?:<(.*?)>)?, " + STR_RE)
OPEN_RE = re.compile(r"^" + STR_RE)
EXECVE_RE = re.compile(r"^" + STR_RE)
EXECVEAT_RE = re.compile(r"^(?:AT_FDCWD|-?\d+)(?:<(.*?)>)?, " + STR_RE)
FD_RE = re.compile(r"^\d+<(.*)>$")


class TraceError(Exception):
    """A trace line this reader cannot account for."""


class Access:
    def __init__(self, path, asked, how, pid, index):
        self.path = path      # absolute: resolved by the kernel (opens) or made absolute (execs)
        self.asked = asked    # the name as the program gave it, absolute when it could be made so
        self.how = how        # "open", "exec", "interpreter"
        self.pid = pid
        self.index = index    # line number in the trace
        self.by = ""          # the program that used it (filled in by read_trace)


def unquote(s):
    return codecs.escape_decode(s.encode("latin-1"))[0].decode("utf-8", "surrogateescape")


def interpreter_of(path):
    """What the kernel loads to run path: the "#!" line's program, or an ELF
    file's PT_INTERP; None when neither (or unreadable)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
            if head.startswith(b"#!"):
                words = head[2:].split(b"\n", 1)[0].split()
                return words[0].decode() if words else None
            if head[:4] != b"\x7fELF" or head[4] != 2:    # 64-bit ELF only
                return None
            phoff, = struct.unpack_from("<Q", head, 0x20)
            phentsize, phnum = struct.unpack_from("<HH", head, 0x36)
            for i in range(phnum):
                f.seek(phoff + i * phentsize)
                ph = f.read(phentsize)
                ptype, = struct.unpack_from("<I", ph, 0)
                if ptype == 3:                              # PT_INTERP
                    off, = struct.unpack_from("<Q", ph, 8)
                    size, = struct.unpack_from("<Q", ph, 32)
                    f.seek(off)
                    return f.read(size).rstrip(b"\0").decode()
    except OSError:
        return None
    return None


def absolute(name, cwd):
    if os.path.isabs(name) or cwd is None:
        return os.path.normpath(name) if os.path.isabs(name) else name
    return os.path.normpath(os.path.join(cwd, name))


def read_trace(path, start_dir):
    """[Access] of every file the traced processes opened or executed.
    start_dir: the directory the traced command started in (the first
    execve's relative name is taken from there)."""
    accesses = []
    execs = {}       # pid -> [(index, program)]
    parent = {}      # pid -> (parent pid, index of the clone line)
    cwd = {}         # pid -> last directory seen in its AT_FDCWD<...>
    pending = {}     # pid -> exec Accesses whose relative names wait for the pid's directory
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        lines = f.read().splitlines()
    for index, line in enumerate(lines):
        m = LINE_RE.match(line)
        if not m:
            raise TraceError("%s:%d: not a finished system call: %r" % (path, index + 1, line[:200]))
        pid, call, args, ret = int(m.group(1)), m.group(2), m.group(3), m.group(4)
        if call in ("clone", "clone3", "fork", "vfork"):
            parent[int(ret.split()[0])] = (pid, index)
        elif call in ("openat", "open"):
            a = (OPENAT_RE if call == "openat" else OPEN_RE).match(args)
            r = FD_RE.match(ret)
            if not a or not r:
                raise TraceError("%s:%d: cannot read the %s call: %r" % (path, index + 1, call, line[:200]))
            base = a.group(1) if call == "openat" else None
            name = unquote(a.group(a.lastindex))
            if call == "openat" and line.split("(", 1)[1].startswith("AT_FDCWD<"):
                cwd[pid] = base
                for acc in pending.pop(pid, []):
                    acc.path = acc.asked = absolute(acc.asked, base)
            accesses.append(Access(unquote(r.group(1)), absolute(name, base), "open", pid, index))
        elif call in ("execve", "execveat"):
            a = (EXECVE_RE if call == "execve" else EXECVEAT_RE).match(args)
            if not a:
                raise TraceError("%s:%d: cannot read the %s call: %r" % (path, index + 1, call, line[:200]))
            name = unquote(a.group(a.lastindex))
            base = a.group(1) if call == "execveat" else cwd.get(pid, start_dir if not execs else None)
            acc = Access(absolute(name, base), absolute(name, base), "exec", pid, index)
            if not os.path.isabs(acc.path):
                pending.setdefault(pid, []).append(acc)
            accesses.append(acc)
            execs.setdefault(pid, []).append((index, acc))
        else:
            raise TraceError("%s:%d: system call %s was not asked for" % (path, index + 1, call))
    for accs in pending.values():
        for acc in accs:
            raise TraceError("%s:%d: cannot tell the directory of the relative name %r" %
                             (path, acc.index + 1, acc.asked))

    def program(pid, index):
        for i, acc in reversed(execs.get(pid, [])):
            if i < index:
                return acc.path
        if pid in parent:
            return program(*parent[pid])
        return "?"

    interps = []
    for acc in accesses:
        acc.by = program(acc.pid, acc.index)
        if acc.how == "exec":
            interp = interpreter_of(acc.path)
            if interp:
                extra = Access(os.path.realpath(interp), interp, "interpreter", acc.pid, acc.index)
                extra.by = acc.path
                interps.append(extra)
    return accesses + interps
