"""vendor.py - where the tool tests find third-party references that are not
part of kprof and are never copied into it.

They sit beside the repository: the folder shared/vendor/ next to the
repository's top directory (a clone of kprof with the shared folder beside
it; the top is found from this file, so the tests may run from anywhere).
An environment variable may point elsewhere.  A test that needs a reference
and does not find it says "skipped: <why>" and exits 77; it never passes
without it.

  etl-parser   airbus-cert's pure-Python ETL reader (github.com/
               airbus-cert/etl-parser, Apache-2.0) at a pinned revision,
               with three real Windows ETL files in
               etl-parser:tests/example/.
               ETL_PARSER_SRC overrides the reader's folder (the one that
               holds its `etl` package), ETL_EXAMPLES the folder of the
               real files.
  perfetto-proto  Perfetto's trace schema, perfetto_trace.proto (google/
               perfetto, Apache-2.0), which protoc decodes kprof's
               protobuf traces with.  PERFETTO_PROTO overrides its folder.
"""

import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENDOR = os.path.normpath(os.path.join(TOP, os.pardir, "shared", "vendor"))


def etl_parser():
    """(folder holding etl-parser's `etl` package, None), or (None, why not)."""
    src = os.environ.get("ETL_PARSER_SRC")
    where = src or os.path.join(VENDOR, "etl-parser")
    if not os.path.isfile(os.path.join(where, "etl", "etl.py")):
        return None, "no airbus-cert/etl-parser at %s (%s)" % (
            where, "ETL_PARSER_SRC" if src else "the shared vendor folder beside the repository; "
            "ETL_PARSER_SRC may name another checkout")
    # Import it without writing bytecode into a folder that is not ours.
    sys.dont_write_bytecode = True
    try:
        import construct  # noqa: F401  (etl-parser's one dependency)
    except ImportError:
        return None, "python3-construct is not installed (tools/deps.sh check installs it)"
    return where, None


def etl_examples(names):
    """([paths of the real ETL files names], None), or (None, why not)."""
    d = os.environ.get("ETL_EXAMPLES") or os.path.join(VENDOR, "etl-parser", "tests", "example")
    missing = [n for n in names if not os.path.isfile(os.path.join(d, n))]
    if missing:
        return None, "the real ETL files %s are not in %s (%s)" % (
            ", ".join(missing), d, "ETL_EXAMPLES" if os.environ.get("ETL_EXAMPLES") else
            "etl-parser's tests/example in the shared vendor folder; ETL_EXAMPLES may name another folder")
    return [os.path.join(d, n) for n in names], None


def perfetto_proto():
    """(folder holding perfetto_trace.proto, None), or (None, why not)."""
    src = os.environ.get("PERFETTO_PROTO")
    where = src or os.path.join(VENDOR, "perfetto-proto")
    if not os.path.isfile(os.path.join(where, "perfetto_trace.proto")):
        return None, "no perfetto_trace.proto in %s (%s)" % (
            where, "PERFETTO_PROTO" if src else "perfetto-proto in the shared vendor folder beside the repository; "
            "PERFETTO_PROTO may name another folder")
    return where, None
