"""Load the mypyc-compiled rule modules when a build of exactly these sources exists; else the rules run as Python.

`scripts/compile_parser.py` (run by scripts/setup.sh) compiles COMPILED_MODULES with mypyc into
`build/parser-mypyc/<tag>/`, where the tag hashes every source the compiled code was built from. At import,
`activate` recomputes the tag from the sources on disk, so a build of other sources is never used: after any
edit the rules run as Python until the next build. The compiled rules give byte-identical frames (checked by
hashing every frame of the QA-SRL GS and QANom dev sets); they run about a fifth faster (parser/README.md).
Set FACTCROWD_PURE_PARSER=1 to ignore a build. This module itself is never compiled.
"""
from __future__ import annotations

import hashlib
import importlib
import os
import sys
from pathlib import Path

# the rule modules mypyc compiles (view.py and linear.py hold classes mypyc cannot compile: a list subclass, a
# RuntimeError subclass; they stay Python and call the compiled ones)
COMPILED_MODULES = ("words", "wordclass", "syntax", "viewbuild", "scoring", "questions", "arguments", "copular",
                    "detector", "nominal", "verbal", "rules")
GROUP = "parser.embedded._rules"  # mypyc's shared library: parser/embedded/_rules__mypyc.*.so in the build
PACKAGE_DIR = Path(__file__).resolve().parent
REPO = PACKAGE_DIR.parent.parent
BUILD_ROOT = REPO / "build" / "parser-mypyc"
# every source the compiled code depends on: the package and the parser modules it imports
_OTHER_SOURCES = ("lexicon.py", "qasrl_slots.py", "types.py")


def source_tag() -> str:
    """A hash of the sources (and the interpreter), naming the build made from them."""
    digest = hashlib.sha256(sys.implementation.cache_tag.encode())
    files = sorted(PACKAGE_DIR.glob("*.py")) + [PACKAGE_DIR.parent / name for name in _OTHER_SOURCES]
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def build_dir(tag: str | None = None) -> Path:
    return BUILD_ROOT / (tag or source_tag())


def activate(package_path: list[str]) -> str | None:
    """Put the build of the current sources first on the package's `__path__` and import its modules; returns the
    build's folder, or None (no build, FACTCROWD_PURE_PARSER set, or the build would not load: one warning line)."""
    if os.environ.get("FACTCROWD_PURE_PARSER"):
        return None
    try:
        target = build_dir()
    except OSError:
        return None
    if not (target / "OK").is_file():
        return None
    compiled = str(target / "parser" / "embedded")
    package_path.insert(0, compiled)
    try:
        for name in COMPILED_MODULES:
            module = importlib.import_module(f"parser.embedded.{name}")
            if not str(getattr(module, "__file__", "")).startswith(compiled):
                raise ImportError(f"parser.embedded.{name} did not load from the build")
    except Exception as exc:  # any failure: forget what loaded and run the sources
        package_path.remove(compiled)
        package = sys.modules.get("parser.embedded")
        for name in [n for n in sys.modules if n.startswith("parser.embedded.") and n != __name__]:
            del sys.modules[name]
            if package is not None and hasattr(package, name.rsplit(".", 1)[1]):
                delattr(package, name.rsplit(".", 1)[1])
        print(f"warning: compiled parser rules in {target} did not load ({exc}); running them as Python",
              file=sys.stderr)
        return None
    return str(target)
