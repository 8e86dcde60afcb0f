#!/usr/bin/python3
"""check-paths.py [TOP] - every repository path that the docs and the source
comments cite exists, and no issue numbers are cited; run by `make check`.

What is read (the repository's files: `git ls-files`, untracked files that
are not ignored included; a walk of the tree outside a git checkout):
  - Markdown (docs/*.md, README.md): all of it, code blocks included;
  - comments of C, headers, GNU assembler, linker script and JavaScript
    (/* */ and //), NASM (;), Python (# and docstrings), shell (#, also
    extension-less scripts by their #! line) and make (#) files.
Code and string literals are not read: a path a program opens fails there.

A cited path (pathtokens.py) is a word of path characters that starts with
a top-level entry of the repository and a '/' (kernel/trace/, docs/running.md,
.ci/run) or is a top-level file (Makefile), or a word that ends in a source
or document extension (.c .h .asm .S .py .sh .mk .md .ld .js .mjs), or the
target of a relative Markdown link.  Not cited paths: build outputs
(build/..., $(BUILD)/...), absolute paths and URLs, a word starting with
../ (tests/tools/test_outside_paths reads it from its file's folder, and
when nothing is there from the top, out of the repository, and reports it
then), a file of another project written as project:path
(lttng-modules:src/lttng-statedump-impl.c) or as the text of a Markdown
link to its URL, and the words of ALLOWED.

A path resolves relative to the top of the repository, to the citing file's
folder or one above it, or through the include path (include/,
arch/x86_64/include/: <arch/cpu.h>, kprof/wire.h); a bare file name
(trace_delta.c) also anywhere in the repository.  A Markdown link resolves
relative to its document, and its #anchor must be a heading there.
Patterns must match: `*`, `?`, `[..]`, `<name>` and a `...` segment are
wildcards that must match at least one entry (kernel/usb/xhci/xhci_*.c), and
each alternative of `{a,b}` must exist.

Issue numbers (the word "issue" and a number, anywhere read; "#" and a
number in the docs' prose) are refused: the docs speak to users, and a
comment says what the code does, not where it was asked for.

Prints one line per problem (file:line, the path, what is wrong) and exits
1 if there is any; else one summary line.
"""
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pathtokens  # noqa: E402
import srccomments  # noqa: E402

# Words that look like repository paths and are not, each with why.  An
# entry no file cites any more, or that now resolves, is reported: remove it.
WINDOWS_HEADERS = "Windows' own headers, named in docs/etw-records.md as public sources of the facts kprof mirrors"
ALLOWED = {
    "wdm.h": WINDOWS_HEADERS + " (the WDK's)",
    "ntwmi.h": WINDOWS_HEADERS + " (phnt's)",
    "ntexapi.h": WINDOWS_HEADERS + " (phnt's)",
    "ntkeapi.h": WINDOWS_HEADERS + " (phnt's)",
    "TraceLoggingProvider.h": WINDOWS_HEADERS + " (the Windows SDK's: TraceLogging's InType and OutType values)",
}

INCLUDE_DIRS = ("include", "arch/x86_64/include")
ISSUE_WORD = re.compile(r"\b[Ii]ssues? +#?\d+\b")
ISSUE_HASH = re.compile(r"(?<![\w&#/])#\d{1,5}\b")


def repo_files(top):
    try:
        out = subprocess.run(["git", "-C", top, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
        files = sorted({f for f in out.decode().split("\0") if f and os.path.isfile(os.path.join(top, f))})
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for d, dirs, names in os.walk(top):
        rel = os.path.relpath(d, top)
        dirs[:] = [x for x in dirs if x not in (".git", "build", "node_modules", "__pycache__")]
        files += [os.path.normpath(os.path.join(rel, n)) for n in names]
    return sorted(files)


class Tree:
    """The repository's files and folders."""

    def __init__(self, top, files):
        self.top = top
        self.files = set(files)
        self.dirs = {""}
        for f in files:
            d = os.path.dirname(f)
            while d not in self.dirs:
                self.dirs.add(d)
                d = os.path.dirname(d)
        self.entries = self.files | self.dirs
        self.basenames = {os.path.basename(f) for f in files}
        self.top_entries = {e.split("/")[0] for e in self.entries if e}

    def exists(self, rel):
        return rel in self.entries or os.path.exists(os.path.join(self.top, rel))

    def matches(self, rx):
        return any(rx.fullmatch(e) for e in self.entries)


def resolve(tree, path, citing):
    """None if path resolves, else what is wrong."""
    here = os.path.dirname(citing)
    bases = [""] + [here.rsplit("/", k)[0] for k in range(here.count("/") + 1) if here] + list(INCLUDE_DIRS)
    for alt in pathtokens.alternatives(path):
        bare = "/" not in alt.rstrip("/")
        rx0 = pathtokens.pattern(alt)
        found = False
        for b in bases:
            rel = os.path.normpath(os.path.join(b, alt))
            if rel.startswith(".."):
                continue
            rx = pathtokens.pattern(rel)
            if tree.matches(rx) if rx else tree.exists(rel):
                found = True
                break
        if not found and bare:
            found = any(rx0.fullmatch(n) for n in tree.basenames) if rx0 else alt in tree.basenames
        if not found:
            what = "matches no file" if rx0 else "does not exist"
            return what if alt == path else "(%s) %s" % (alt, what)
    return None


def check_link(tree, doc, target, anchor, cache):
    """None if a Markdown link from doc resolves (and its anchor is a
    heading of the target), else what is wrong."""
    rel = os.path.normpath(os.path.join(os.path.dirname(doc), target)) if target else doc
    if rel.startswith(".."):
        return None  # out of the repository: test_outside_paths's business
    if not tree.exists(rel):
        return "does not exist"
    if not anchor or not rel.endswith(".md"):
        return None
    if rel not in cache:
        with open(os.path.join(tree.top, rel), encoding="utf-8") as f:
            cache[rel] = pathtokens.markdown_anchors(f.read())
    return None if anchor in cache[rel] else "is no heading of " + rel


def check_file(tree, f, kind, text, problems, allowed_used, anchors):
    cited = 0
    for line, frag, is_code in srccomments.fragments(kind, text):
        words = pathtokens.without_external_links(frag) if kind == "md" and not is_code else frag
        for path in pathtokens.paths(words, tree.top_entries):
            if path in ALLOWED:
                allowed_used.add(path)
                continue
            cited += 1
            why = resolve(tree, path, f)
            if why:
                problems.append("%s:%d: %s %s" % (f, line, path, why))
        issues = [m.group(0) for m in ISSUE_WORD.finditer(frag)]
        if kind == "md" and not is_code:
            issues += [m.group(0) for m in ISSUE_HASH.finditer(re.sub(r"`[^`]*`", "", frag))]
            for target, anchor in pathtokens.markdown_links(frag):
                cited += 1
                why = check_link(tree, f, target, anchor, anchors)
                if why:
                    problems.append("%s:%d: link %s%s %s" % (f, line, target, "#" + anchor if anchor else "", why))
        for i in issues:
            problems.append("%s:%d: cites an issue number (%s): say what it is instead" % (f, line, i))
    return cited


def main():
    top = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    tree = Tree(top, repo_files(top))
    problems, allowed_used, anchors = [], set(), {}
    cited = files_read = 0
    for f in sorted(tree.files):
        kind = srccomments.kind(top, f)
        if kind is None:
            continue
        try:
            with open(os.path.join(top, f), encoding="utf-8") as fh:
                text = fh.read()
        except (UnicodeDecodeError, OSError) as e:
            problems.append("%s: cannot be read as UTF-8 text (%s)" % (f, e))
            continue
        files_read += 1
        cited += check_file(tree, f, kind, text, problems, allowed_used, anchors)
    for word in sorted(ALLOWED):
        if word not in allowed_used:
            problems.append("tools/check-paths.py: ALLOWED %s is cited nowhere any more: remove it" % word)
        elif resolve(tree, word, "") is None:
            problems.append("tools/check-paths.py: ALLOWED %s now resolves: remove it" % word)
    for p in problems:
        print("check-paths: " + p)
    if problems:
        print("check-paths: %d problems (%d cited paths in %d files)" % (len(problems), cited, files_read))
        return 1
    print("check-paths: %d cited paths in %d files resolve, no issue numbers" % (cited, files_read))
    return 0


if __name__ == "__main__":
    sys.exit(main())
