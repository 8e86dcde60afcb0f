"""pathtokens.py - the repository paths a line of text cites, patterns in
them, and Markdown links and headings (for tools/check-paths.py).

paths(text, top_entries) yields the words of text that cite a repository
path: a word starting with a top-level entry and a '/' (kernel/trace/,
docs/running.md), a top-level file (Makefile, README.md), or a word ending
in a source or document extension (chunk.c, <arch/cpu.h>, out*.c).  Skipped:
absolute paths and URLs (the word starts with '/', or follows ':', '$', ')',
'\\' or '~'), build outputs (build/...), and words starting with ../
(tests/tools/test_outside_paths holds those).
"""
import re

SOURCE_EXT = (".c", ".h", ".asm", ".S", ".py", ".sh", ".mk", ".md", ".ld", ".js", ".mjs")
# A word: path characters, <placeholder>s, [classes] and {alternatives}.
WORD = re.compile(r"(?:[A-Za-z0-9_./*?+-]|<[A-Za-z0-9_-]+>|\[[^\]\s/]+\]|\{[^}\s/]*\})+")
NOT_AFTER = set(":$)\\~@%")
WILD = re.compile(r"[*?\[<]|(?:^|/)\.\.\.(?:/|$)")
LINK = re.compile(r"\]\(([^)\s]*)\)")
EXTERNAL_LINK = re.compile(r"\[[^\]]*\]\([a-zA-Z][a-zA-Z0-9+.-]*:[^)\s]*\)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")


def clean(word):
    if word.endswith("/..."):
        return word
    word = word.rstrip(".")
    while word.startswith("./"):
        word = word[2:]
    return word


def paths(text, top_entries):
    for m in WORD.finditer(text):
        if m.start() and text[m.start() - 1] in NOT_AFTER:
            continue
        w = clean(m.group(0))
        if not w or w.startswith("/") or w.startswith("-") or set(w) <= set("./"):
            continue
        if w.startswith("../"):
            continue
        first = w.split("/")[0]
        if first in ("build", "$(BUILD)"):
            continue
        if first in top_entries and ("/" in w or "." in w or w == "Makefile"):
            yield w
        elif w.endswith(SOURCE_EXT) and not w.startswith("."):
            yield w


def alternatives(path):
    """{a,b} expanded: every alternative must exist."""
    m = re.search(r"\{([^}]*)\}", path)
    if not m:
        return [path]
    out = []
    for alt in m.group(1).split(","):
        out += alternatives(path[:m.start()] + alt + path[m.end():])
    return out


def pattern(path):
    """A regular expression for a path with wildcards, else None."""
    if not WILD.search(path):
        return None
    rx, i = "", 0
    while i < len(path):
        c = path[i]
        if path.startswith("...", i) and (i == 0 or path[i - 1] == "/"):
            rx += ".+"
            i += 3
        elif c == "*":
            rx += "[^/]*"
            i += 1
        elif c == "?":
            rx += "[^/]"
            i += 1
        elif c == "[":
            j = path.index("]", i)
            rx += "[" + path[i + 1:j].replace("!", "^", 1) + "]"
            i = j + 1
        elif c == "<":
            j = path.index(">", i)
            rx += "[^/]+"
            i = j + 1
        else:
            rx += re.escape(c)
            i += 1
    return re.compile(rx)


def without_external_links(line):
    """A Markdown line without its links to URLs: the text of such a link
    names the file at the URL, not one of ours."""
    return EXTERNAL_LINK.sub(" ", line)


def markdown_links(line):
    """(target, anchor) of each relative link on a Markdown line; target ''
    for a link within the same document."""
    for m in LINK.finditer(line):
        t = m.group(1)
        if not t or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", t) or t.startswith("/"):
            continue
        target, _, anchor = t.partition("#")
        yield target, anchor


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped,
    blanks to '-'."""
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def markdown_anchors(text):
    anchors, seen, fence = set(), {}, None
    for ln in text.split("\n"):
        s = ln.lstrip()
        if s.startswith("```") or s.startswith("~~~"):
            fence = None if fence and s.startswith(fence) else fence or s[:3]
            continue
        if fence:
            continue
        anchors.update(HTML_ANCHOR.findall(ln))
        m = HEADING.match(ln)
        if m:
            a = slug(m.group(2))
            n = seen.get(a, 0)
            seen[a] = n + 1
            anchors.add(a if n == 0 else "%s-%d" % (a, n))
    return anchors
