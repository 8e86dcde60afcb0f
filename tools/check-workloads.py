#!/usr/bin/python3
"""check-workloads.py [--quiet] DIR... - the mistakes of WORKLOADS= folders that the
compiler cannot see, refused before anything is compiled (make runs it with
the layering check; docs/workloads.md):

  - a folder with no descriptor: none of its .c files has a WORKLOAD_DEFINE
    (the run would be refused only at boot, "scenario=NAME: unknown value");
  - two workloads with one name, in the folders or among kprof's own
    (the kernel would keep one of them);
  - a key not named WORKLOAD.KEY, WORKLOAD the name of a workload of its
    folder (a key `cpus` would be the kernel's and never get its value);
  - a key named in two tables: another workload's, or the kernel's own
    (docs/cmdline.md, which `make docs` writes from the kernel's tables).

Every error names the file and line.  The sources are read as text, not
compiled (the Makefile runs this as it reads WORKLOADS=, so nothing is
built first): comments are skipped, and a descriptor or key table must name its
workload and keys with string literals, as the examples do (`.name = "..."`).
The kernel holds to the same rules at boot (kernel/init/cmdline.c refuses a
key in two tables, kernel/workloads/registry.c two workloads of one name).
Exit status 0 when there is nothing to say (--quiet: then nothing is
printed), 1 otherwise.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CMDLINE_DOC = os.path.join(ROOT, "docs", "cmdline.md")
NAME_RE = re.compile(r"[a-z0-9_]{1,31}$")
KEY_RE = re.compile(r"([a-z0-9_]+)\.[a-z0-9_]+(\.[a-z0-9_]+)*$")


def strip_comments(text):
    """text with every comment blanked (newlines kept, so lines still count)
    and string literals left as they are."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def closing(text, at, open_c, close_c):
    """The index of the bracket closing the one at text[at], strings skipped."""
    depth, i = 0, at
    while i < len(text):
        c = text[i]
        if c == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == open_c:
            depth += 1
        elif c == close_c:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return len(text)


def line_of(text, at):
    return text.count("\n", 0, at) + 1


def names_in(text, start, end):
    """(name, offset) of every `.name = "..."` between start and end."""
    return [(m.group(1), start + m.start(1)) for m in re.finditer(r'\.name\s*=\s*"([^"\\]*)"', text[start:end])]


def descriptors(path, text):
    """(name or None, line) of each WORKLOAD_DEFINE in a file."""
    found = []
    for m in re.finditer(r"\bWORKLOAD_DEFINE\s*\(", text):
        end = closing(text, m.end() - 1, "(", ")")
        names = names_in(text, m.end(), end)
        found.append((names[0][0], line_of(text, names[0][1])) if names else (None, line_of(text, m.start())))
    return found


def key_rows(text):
    """(key, line) of every row of every struct cmdline_key array."""
    rows = []
    for m in re.finditer(r"\bstruct\s+cmdline_key\s+\w+\s*\[[^\]]*\]\s*=\s*\{", text):
        end = closing(text, m.end() - 1, "{", "}")
        rows += [(name, line_of(text, at)) for name, at in names_in(text, m.end(), end)]
    return rows


def kernel_table():
    """The kernel's own keys and workload names, from docs/cmdline.md."""
    keys, scenarios = set(), []
    with open(CMDLINE_DOC) as f:
        for line in f:
            m = re.match(r"^\| `([a-z0-9_.]+)=` \| [^|]*\| [^|]*\| ([^|]*)\|", line)
            if not m:
                continue
            keys.add(m.group(1))
            if m.group(1) == "scenario":
                scenarios = re.findall(r"`([a-z0-9_]+)`", m.group(2))
    return keys, scenarios


def check(dirs):
    errors = []
    kernel_keys, kernel_names = kernel_table()
    names = {}  # workload name -> "file:line"
    keys = {}   # key -> "file:line"
    folders = []
    for d in dirs:
        files = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".c"))
        texts = {}
        for path in files:
            with open(path, errors="replace") as f:
                texts[path] = strip_comments(f.read())
        found = [(path, name, line) for path in files for name, line in descriptors(path, texts[path])]
        if not found:
            errors.append("%s: no workload descriptor in %s: none has a WORKLOAD_DEFINE(ident, .name = \"...\", "
                          ".description = \"...\", .run = ...) (docs/workloads.md)"
                          % (d, ", ".join(os.path.basename(f) for f in files) or "its .c files"))
        own = set()
        for path, name, line in found:
            where = "%s:%d" % (path, line)
            if name is None:
                errors.append("%s: WORKLOAD_DEFINE without .name = \"...\"; accepted: a string literal of 1 to 31 "
                              "of a-z, 0-9, _" % where)
            elif not NAME_RE.match(name):
                errors.append("%s: workload name \"%s\"; accepted: 1 to 31 of a-z, 0-9, _" % (where, name))
            elif name in kernel_names:
                errors.append("%s: workload name \"%s\" is kprof's own workload's; accepted: a name none of %s"
                              % (where, name, ", ".join(kernel_names)))
            elif name in names:
                errors.append("%s: workload name \"%s\" is already the name of the workload at %s; accepted: one "
                              "workload a name" % (where, name, names[name]))
            else:
                names[name] = where
            if name:
                own.add(name)
        folders.append((d, files, texts, own))
    for d, files, texts, own in folders:
        for path in files:
            for key, line in key_rows(texts[path]):
                where = "%s:%d" % (path, line)
                m = KEY_RE.match(key)
                if not m or m.group(1) not in own:
                    errors.append("%s: key \"%s\" is not named WORKLOAD.KEY%s; accepted: %s (a-z, 0-9, _ after "
                                  "the dot)" % (where, key, " (and is the kernel's own %s=)" % key
                                                if key in kernel_keys else "",
                                                " or ".join("\"%s.KEY\"" % n for n in sorted(own))
                                                or "the name of a workload of this folder, a dot, the key"))
                elif key in kernel_keys:
                    errors.append("%s: key \"%s\" is already the kernel's (docs/cmdline.md); accepted: a key no "
                                  "other table has" % (where, key))
                elif key in keys:
                    errors.append("%s: key \"%s\" is already the key at %s; accepted: a key no other table has"
                                  % (where, key, keys[key]))
                else:
                    keys[key] = where
    return errors


def main(argv):
    quiet = argv[:1] == ["--quiet"]
    argv = argv[1:] if quiet else argv
    dirs = []
    for d in argv:  # a folder named twice is one folder
        d = os.path.relpath(d) if not os.path.relpath(d).startswith("..") else os.path.abspath(d)
        if d not in dirs:
            dirs.append(d)
    if not dirs:
        print("usage: check-workloads.py DIR...", file=sys.stderr)
        return 2
    errors = check(dirs)
    for e in errors:
        print("workloads: " + e)
    if errors:
        print("workloads: %d error%s; nothing was built (docs/workloads.md)" % (
            len(errors), "" if len(errors) == 1 else "s"))
        return 1
    if not quiet:
        print("workloads: %s: descriptors, names and keys checked" % " ".join(dirs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
