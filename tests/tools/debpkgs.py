"""debpkgs.py - which Debian package a file comes from, and which packages a
profile of packages brings onto a fresh Debian machine.

Owners: read once from dpkg's file lists (/var/lib/dpkg/info/*.list) and its
diversions, as `dpkg -S` does, with three things dpkg's lists do not say:
  - merged /usr: /bin, /sbin and /lib* are links into /usr, while packages
    still list many files under the old names, so /usr/lib/X and /lib/X are
    one file;
  - a name that is a symbolic link comes from the link's package, its target
    from the target's (liblz4.so from liblz4-dev, liblz4.so.1.9.4 from
    liblz4-1): every link on the way is looked up;
  - Python's byte code (__pycache__/<module>.cpython-311.pyc), made when a package
    is installed, comes from the package of the <module>.py beside it.

Closure: what `apt-get install --no-install-recommends PROFILE` leaves on a
minimal Debian: the profile, every Essential: yes and Priority: required
package (debootstrap's minimal base), and their Pre-Depends and Depends,
recursively, read from the installed packages (dpkg-query).  An alternative
"a | b" is met by a member already in the closure, else by the first member
installed here (apt takes the first it can); a virtual name by the
installed packages that provide it.
"""

import glob
import os
import re
import subprocess

DPKG_INFO = "/var/lib/dpkg/info"
DIVERSIONS = "/var/lib/dpkg/diversions"
MERGED = ("/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/")
PYC_RE = re.compile(r"^(.*)/__pycache__/([^/.]+)\.[^/]*\.pyc$")


def load_owners():
    """{path: set of package names} from dpkg's lists and diversions."""
    owners = {}
    for lst in glob.glob(os.path.join(DPKG_INFO, "*.list")):
        pkg = os.path.basename(lst)[:-len(".list")].split(":")[0]
        with open(lst, encoding="utf-8", errors="surrogateescape") as f:
            for line in f:
                owners.setdefault(line.rstrip("\n"), set()).add(pkg)
    if os.path.exists(DIVERSIONS):
        with open(DIVERSIONS, encoding="utf-8", errors="surrogateescape") as f:
            lines = f.read().splitlines()
        for i in range(0, len(lines) - 2, 3):
            src, dst, by = lines[i:i + 3]
            shipped = owners.get(src, set()) - {by}
            if shipped:   # the packages' own file now lies at dst; src is the diverter's
                owners.setdefault(dst, set()).update(shipped)
                owners[src] -= shipped
    return owners


def aliases(path):
    """path and its other name under merged /usr."""
    for d in MERGED:
        if path.startswith(d):
            return [path, "/usr" + path]
        if path.startswith("/usr" + d):
            return [path, path[4:]]
    return [path]


def owner_of(owners, path):
    found = set()
    for name in aliases(path):
        found |= owners.get(name, set())
    if not found:
        m = PYC_RE.match(path)
        if m:
            for name in aliases("%s/%s.py" % (m.group(1), m.group(2))):
                found |= owners.get(name, set())
    return found


def link_chain(path):
    """The names path goes through to its file: path itself, then each
    symbolic link's target in turn (directories resolved on the way)."""
    names = []
    path = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
    for _ in range(40):
        names.append(path)
        if not os.path.islink(path):
            return names
        target = os.path.join(os.path.dirname(path), os.readlink(path))
        path = os.path.join(os.path.realpath(os.path.dirname(target)), os.path.basename(target))
    return names


def origins(owners, asked, resolved):
    """[(name, packages)] for every name on the way from the name asked for
    to the file opened (symbolic links followed)."""
    names = link_chain(asked) if os.path.isabs(asked) else []
    if os.path.realpath(resolved) not in names:
        names.append(os.path.realpath(resolved))
    return [(n, owner_of(owners, n)) for n in names]


def relations(field):
    """A Depends-like field as [[names of one alternative group]]."""
    groups = []
    for group in field.split(","):
        alts = []
        for alt in group.split("|"):
            name = re.sub(r"\(.*?\)|\[.*?\]|<.*?>", "", alt).strip().split(":")[0]
            if name:
                alts.append(name)
        if alts:
            groups.append(alts)
    return groups


class Installed:
    """The installed packages' relations, from one dpkg-query."""

    def __init__(self):
        fmt = "${Package}\\t${db:Status-Abbrev}\\t${Essential}\\t${Priority}\\t${Provides}\\t" \
              "${Pre-Depends}\\t${Depends}\\n"
        out = subprocess.run(["dpkg-query", "-W", "-f", fmt], stdout=subprocess.PIPE, check=True,
                             universal_newlines=True).stdout
        self.deps = {}        # package -> [[alternatives]]
        self.base = set()     # Essential or Priority: required
        self.providers = {}   # virtual name -> packages
        for line in out.splitlines():
            pkg, status, essential, priority, provides, pre, deps = line.split("\t")
            if not status.startswith("ii"):
                continue
            self.deps.setdefault(pkg, []).extend(relations(pre) + relations(deps))
            if essential == "yes" or priority == "required":
                self.base.add(pkg)
            for alts in relations(provides):
                self.providers.setdefault(alts[0], set()).add(pkg)

    def candidates(self, name):
        """Installed packages that satisfy a dependency on name."""
        return ([name] if name in self.deps else []) + sorted(self.providers.get(name, ()))

    def closure(self, profile):
        """(packages a fresh machine has after installing profile, the
        profile's names that are not installed here)."""
        have, todo, choices = set(), list(profile) + sorted(self.base), []
        while todo or choices:
            while todo:
                pkg = todo.pop()
                if pkg in have:
                    continue
                have.add(pkg)
                for alts in self.deps.get(pkg, []):
                    cands = [c for a in alts for c in self.candidates(a)]
                    if len(cands) == 1:
                        todo.append(cands[0])
                    elif cands:
                        choices.append(cands)
            if not choices:
                break
            cands = choices.pop(0)
            if not any(c in have for c in cands):
                todo.append(cands[0])
        return have, [p for p in profile if p not in self.deps]
