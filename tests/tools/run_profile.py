#!/usr/bin/python3
"""run_profile.py - does every file a traced command used come from the
Debian packages of a tools/deps.sh profile (with what they bring along)?

  python3 tests/tools/run_profile.py [--deps DEPS.SH] [--profile run] TRACE...

TRACE: the output of `strace -f -qq -z -y -e signal=none -e trace=`
straceopen.TRACED `-o TRACE COMMAND`, started in the repository's top
directory.  The profile's packages come from `sh DEPS.SH --list PROFILE`
(default tools/deps.sh, run), the packages a fresh machine then has from
debpkgs.Installed.closure.  Prints every file that comes from a package
outside them, with its package and the program that used it, and every
file under a system directory that no package owns (a file installed by
hand is missing on a fresh machine too); exits 1 if there is any.
tests/tools/test_run_profile traces what `make run` does and runs this.
"""

import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import debpkgs  # noqa: E402
import straceopen  # noqa: E402

# Where a file must come from a package: the system's folders, and the
# user's ~/.local (programs and Python modules installed by hand).  Files
# elsewhere (the repository, the build folder, /tmp, /proc, /dev, dpkg's
# database) are the run's own or the machine's.
SYSTEM_DIRS = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/", "/opt/", "/etc/",
               os.path.expanduser("~/.local/"))
# System files that no package lists because a package's installation makes
# them, each with the package whose tools make it.
GENERATED = {
    "/etc/ld.so.cache": "libc-bin",
    "/usr/lib/x86_64-linux-gnu/gconv/gconv-modules.cache": "libc6",
}
# Files a program reads when they are there and does without on a fresh
# machine: they say what this machine has, not what the run needs.
OPTIONAL = [
    (re.compile(r"^/etc/ld\.so\.conf\.d/"), "ld reads every file in /etc/ld.so.conf.d"),
    (re.compile(r"^/.*/lib/python3[^/]*/(dist|site)-packages/[^/]*\.pth$"),
     "python's site module runs every .pth file in its folders"),
    (re.compile(r"^/etc/gitconfig$"), "git's system-wide settings"),
    (re.compile(r"^(/etc|/usr/share/locale)/locale\.alias$"), "the C library's locale name aliases"),
    (re.compile(r"^/usr/lib/locale/"), "the C library's data for the caller's locale (else C)"),
    (re.compile(r"^/usr/share/locale/[^/]+/LC_MESSAGES/"), "translated messages"),
]
PTH_IMPORT_RE = re.compile(r"(?:\bimport\s+|__import__\(\s*['\"])(\w+)")


def pth_modules(accesses):
    """[(folder, module)] that the .pth files opened import: a module that
    only a .pth file pulls in is as optional as the .pth file."""
    found = []
    for acc in accesses:
        if acc.how == "open" and OPTIONAL[1][0].match(acc.path):
            with open(acc.path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            found += [(os.path.dirname(acc.path), m) for m in PTH_IMPORT_RE.findall(text)]
    return found


def optional_reason(name, modules):
    for pattern, why in OPTIONAL:
        if pattern.match(name):
            return why
    for folder, mod in modules:
        if name.startswith((folder + "/" + mod + "/", folder + "/" + mod + ".", folder + "/__pycache__/" + mod + ".")):
            return "imported by a .pth file in %s" % folder
    return None


def profile_packages(deps_sh, profile):
    out = subprocess.run(["sh", deps_sh, "--list", profile], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True)
    if out.returncode != 0:
        raise SystemExit("run_profile: sh %s --list %s failed: %s" % (deps_sh, profile, out.stderr.strip()))
    return out.stdout.split()


class Verdict:
    def __init__(self):
        self.outside = {}    # file -> (packages, first Access)
        self.unowned = {}    # file -> first Access
        self.used = {}       # package -> number of files used from it
        self.files = 0       # distinct system files used
        self.optional = {}   # reason -> files read only because they are there


def judge(accesses, owners, have):
    """Sort what the trace used into a Verdict against the closure have."""
    v = Verdict()
    seen = set()
    modules = pth_modules(accesses)
    for acc in accesses:
        key = (acc.asked, acc.path)
        if key in seen or os.path.isdir(acc.path):
            continue
        seen.add(key)
        for name, pkgs in debpkgs.origins(owners, acc.asked, acc.path):
            if not name.startswith(SYSTEM_DIRS):
                continue
            v.files += 1
            if not pkgs and name in GENERATED:
                pkgs = {GENERATED[name]}
            for p in pkgs:
                v.used[p] = v.used.get(p, 0) + 1
            if pkgs & have or (not pkgs and os.path.islink(name)):   # a link no package lists (ldconfig's)
                continue                                              # leads on to its file
            why = optional_reason(name, modules)
            if why:
                v.optional.setdefault(why, set()).add(name)
            elif pkgs:
                v.outside.setdefault(name, (pkgs, acc))
            else:
                v.unowned.setdefault(name, acc)
    return v


def report(v, out=print):
    """Print the problems of v, one line each; the number printed."""
    for why, names in sorted(v.optional.items()):
        out("  not needed, %d file(s): %s (%s)" % (len(names), why, ", ".join(sorted(names)[:3]) +
                                                   (", ..." if len(names) > 3 else "")))
    for name, (pkgs, acc) in sorted(v.outside.items(), key=lambda kv: (sorted(kv[1][0]), kv[0])):
        out("  %s (package %s) %s by %s" % (name, ", ".join(sorted(pkgs)),
                                          "opened" if acc.how == "open" else "run", acc.by))
    for name, acc in sorted(v.unowned.items()):
        out("  %s (no Debian package) %s by %s" % (name, "opened" if acc.how == "open" else "run", acc.by))
    return len(v.outside) + len(v.unowned)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deps", default="tools/deps.sh", help="the deps.sh to read the profile from")
    ap.add_argument("--profile", default="run")
    ap.add_argument("trace", nargs="+")
    opts = ap.parse_args()
    installed = debpkgs.Installed()
    have, absent = installed.closure(profile_packages(opts.deps, opts.profile))
    owners = debpkgs.load_owners()
    accesses = []
    for t in opts.trace:
        try:
            accesses += straceopen.read_trace(t, os.getcwd())
        except (OSError, straceopen.TraceError) as e:
            print("run_profile: %s (a trace is strace's output: see the top of this file)" % e)
            return 2
    v = judge(accesses, owners, have)
    print("run_profile: %d system files from %d packages; the %s profile brings %d packages%s" % (
        v.files, len(v.used), opts.profile, len(have),
        "; not installed here: %s" % " ".join(absent) if absent else ""))
    if report(v):
        print("run_profile: files from outside the %s profile of %s (above)" % (opts.profile, opts.deps))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
