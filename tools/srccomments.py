"""srccomments.py - the comments of a source file, line by line, and the
lines of a Markdown file (for tools/check-paths.py).

kind(top, path) names how a file is read: "md", "c" (C, headers, GNU
assembler, linker script, JavaScript: /* */ and //), "nasm" (;), "py" (#
comments and docstrings), "sh" and "make" (#), or None (not read).
fragments(kind, text) yields (line number, text, is_code): each comment's
text on each line it spans, or each Markdown line (is_code: inside a fenced
code block).  String literals are skipped, so "//" or "#" inside one starts
no comment.
"""
import io
import os
import tokenize

EXT_KIND = {".md": "md", ".c": "c", ".h": "c", ".S": "c", ".ld": "c", ".js": "c", ".mjs": "c",
            ".asm": "nasm", ".py": "py", ".sh": "sh", ".mk": "make"}


def kind(top, path):
    name = os.path.basename(path)
    if name == "Makefile":
        return "make"
    k = EXT_KIND.get(os.path.splitext(name)[1])
    if k or "." in name:
        return k
    try:
        with open(os.path.join(top, path), "rb") as f:
            first = f.readline(200)
    except OSError:
        return None
    if first.startswith(b"#!"):
        return "py" if b"python" in first else "sh" if first.split(b"/")[-1].split()[0] in (b"sh", b"bash") else None
    return None


def c_comments(text):
    """/* */ and // comments of C-like text; strings and character
    constants skipped."""
    i, n, line = 0, len(text), 1
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
        elif ch in "\"'":
            j = i + 1
            while j < n and text[j] != ch and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            yield line, text[i + 2:j], False
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j
            for k, part in enumerate(text[i + 2:j].split("\n")):
                yield line + k, part, False
            line += text.count("\n", i, j)
            i = j + 2
        else:
            i += 1


def hash_comments(text, quotes):
    """# comments (make, shell): a # at a line's start or after a blank,
    outside quotes, not $# or \\#; the #! line is not one."""
    for no, ln in enumerate(text.split("\n"), 1):
        if no == 1 and ln.startswith("#!"):
            continue
        q = None
        for i, ch in enumerate(ln):
            if q:
                if ch == q:
                    q = None
            elif ch in quotes:
                q = ch
            elif ch == "#" and (i == 0 or ln[i - 1] in " \t"):
                yield no, ln[i + 1:], False
                break


def nasm_comments(text):
    for no, ln in enumerate(text.split("\n"), 1):
        q = None
        for i, ch in enumerate(ln):
            if q:
                if ch == q:
                    q = None
            elif ch in "\"'`":
                q = ch
            elif ch == ";":
                yield no, ln[i + 1:], False
                break


def py_comments(text):
    """# comments and docstrings (a string that is a statement of its own)."""
    prev = tokenize.NEWLINE
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                if not (tok.start[0] == 1 and tok.string.startswith("#!")):
                    yield tok.start[0], tok.string[1:], False
            elif tok.type == tokenize.STRING and prev in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                for k, part in enumerate(tok.string.split("\n")):
                    yield tok.start[0] + k, part, False
            if tok.type not in (tokenize.COMMENT, tokenize.NL):
                prev = tok.type
    except (tokenize.TokenError, SyntaxError):
        return


def md_lines(text):
    fence = None
    for no, ln in enumerate(text.split("\n"), 1):
        s = ln.lstrip()
        if fence and s.startswith(fence):
            fence = None
            yield no, ln, True
        elif not fence and (s.startswith("```") or s.startswith("~~~")):
            fence = s[:3]
            yield no, ln, True
        else:
            yield no, ln, bool(fence)


def fragments(k, text):
    if k == "md":
        return md_lines(text)
    if k == "c":
        return c_comments(text)
    if k == "nasm":
        return nasm_comments(text)
    if k == "py":
        return py_comments(text)
    return hash_comments(text, "\"'" if k == "sh" else "")
