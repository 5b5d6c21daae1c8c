"""Compile the embedded parser's rule modules with mypyc (optional: on any failure the rules run as Python).

    .venv/bin/python scripts/compile_parser.py [--force]

Builds parser.embedded.native.COMPILED_MODULES into build/parser-mypyc/<tag>/ (the tag hashes the sources, so
parser/embedded/native.py loads a build only while the sources it was made from are unchanged), writes OK there
when every module built, and removes older builds. Needs mypy (requirements-dev.txt, ships mypyc), setuptools, a
C compiler and the Python headers; about a minute on one core. Prints one line; the compiler's output goes to
build/parser-mypyc/build.log.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

# the sources' tag and the module list, read without importing the package (which would load spaCy and the rules)
_spec = importlib.util.spec_from_file_location("_parser_native", REPO / "parser" / "embedded" / "native.py")
assert _spec is not None and _spec.loader is not None
native = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(native)

# mypy settings for the compile: spaCy, thinc and numpy unanalysed (their objects are Any to the rules either way),
# which keeps the type check to seconds
MYPY_CONFIG = """[mypy]
python_version = {version}
cache_dir = {cache}
ignore_missing_imports = True
follow_imports = silent
[mypy-spacy.*,thinc.*,numpy.*,srsly.*,pydantic.*,torch.*]
follow_imports = skip
"""

SETUP = """import sys
from setuptools import setup
from mypyc.build import mypycify
config, target, temp, c_dir, *paths = sys.argv[1:]
setup(name="factcrowd-parser-rules", packages=[], py_modules=[],
      ext_modules=mypycify(["--config-file", config, *paths], opt_level="3", debug_level="0",
                           group_name={group!r}, target_dir=c_dir),
      script_args=["build_ext", "--build-lib", target, "--build-temp", temp])
"""


def build(force: bool = False) -> int:
    tag = native.source_tag()
    target = native.build_dir(tag)
    if (target / "OK").is_file() and not force:
        print(f"parser rules: compiled build {tag} is current")
        return 0
    native.BUILD_ROOT.mkdir(parents=True, exist_ok=True)
    log = native.BUILD_ROOT / "build.log"
    shutil.rmtree(target, ignore_errors=True)
    with tempfile.TemporaryDirectory(dir=native.BUILD_ROOT) as work:
        config = Path(work) / "mypy.ini"
        config.write_text(MYPY_CONFIG.format(version=f"{sys.version_info[0]}.{sys.version_info[1]}",
                                             cache=Path(work) / "mypy_cache"))
        setup = Path(work) / "setup.py"
        setup.write_text(SETUP.format(group=native.GROUP))
        paths = [f"parser/embedded/{name}.py" for name in native.COMPILED_MODULES]
        staging = Path(work) / "out"
        cmd = [sys.executable, str(setup), str(config), str(staging), str(Path(work) / "temp"), str(Path(work) / "c"),
               *paths]
        with open(log, "w", encoding="utf-8") as out:
            done = subprocess.run(cmd, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, check=False,
                                  env={**os.environ, "PYTHONPATH": str(REPO)})
        built = sorted((staging / "parser" / "embedded").glob("*.so")) if staging.is_dir() else []
        if done.returncode != 0 or len(built) != len(native.COMPILED_MODULES) + 1:  # + the shared library
            print(f"warning: compiling the parser rules failed (see {log.relative_to(REPO)}); they run as Python",
                  file=sys.stderr)
            return 1
        if native.source_tag() != tag:  # a source changed while compiling: this build is of neither version
            print("warning: the parser sources changed while compiling; run scripts/compile_parser.py again",
                  file=sys.stderr)
            return 1
        (target / "parser" / "embedded").mkdir(parents=True)
        for so in built:
            shutil.copy2(so, target / "parser" / "embedded" / so.name)
    (target / "OK").write_text(" ".join(native.COMPILED_MODULES) + "\n")
    for old in native.BUILD_ROOT.iterdir():
        if old.is_dir() and old != target:
            with contextlib.suppress(OSError):
                shutil.rmtree(old)
    print(f"parser rules: compiled with mypyc into {target.relative_to(REPO)}")
    return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--force", action="store_true", help="rebuild even when a build of these sources exists")
    args = ap.parse_args()
    try:
        build(args.force)
    except Exception as exc:  # never fail setup: the rules run as Python without a build
        print(f"warning: compiling the parser rules failed ({exc}); they run as Python", file=sys.stderr)
    sys.exit(0)


if __name__ == "__main__":
    main()
