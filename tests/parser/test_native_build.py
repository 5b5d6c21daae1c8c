"""The optional mypyc build of the rule modules (parser/embedded/native.py, scripts/compile_parser.py).

A build is used only when it was made from exactly the sources on disk, it must give the same frames as the
Python rules, and a build that does not load must leave the Python rules running. Each case runs in its own
interpreter: loading or refusing a build changes which modules `parser.embedded` holds for the whole process.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.once  # native build: run once, not per database

REPO = Path(__file__).resolve().parents[2]
SENTENCES = [
    "The minister, who resigned on Monday, was replaced by her deputy after the vote.",
    "Two security guards were robbed by a man who fled in a stolen car.",
    "The withdrawal of troops from the region began in March and ended in May.",
    "She founded the company in 1998 and sold it to investors, including her brother.",
]


def _python(code: str, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k != "FACTCROWD_PURE_PARSER"} | env
    return subprocess.run([sys.executable, "-c", code], cwd=REPO, env=full, capture_output=True, text=True,
                          timeout=300)


_DUMP = f"""
import dataclasses, json, parser.embedded as e
p = e.EmbeddedParser()
frames = [[dataclasses.asdict(f) for f in parsed.frames] for parsed in p.parse_many({SENTENCES!r})]
print(json.dumps({{"compiled": e.COMPILED, "frames": frames}}, sort_keys=True))
"""


def _dump(**env: str) -> dict:
    done = _python(_DUMP, **env)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_pure_parser_env_ignores_any_build() -> None:
    done = _python("import parser.embedded as e; print(e.COMPILED)", FACTCROWD_PURE_PARSER="1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None"


def test_compiled_rules_give_the_python_rules_frames() -> None:
    compiled = _dump()
    if compiled["compiled"] is None:
        pytest.skip("no mypyc build of these sources (scripts/compile_parser.py has not run here, or failed)")
    pure = _dump(FACTCROWD_PURE_PARSER="1")
    assert pure["compiled"] is None
    assert sum(len(s) for s in pure["frames"]) >= 8  # the sentences have frames to compare
    assert compiled["frames"] == pure["frames"]


def test_a_build_of_other_sources_is_never_loaded(tmp_path: Path) -> None:
    """A build folder named after another tag (sources edited since) is not looked at; the rules run as Python."""
    code = f"""
import os, sys
import parser.embedded as e
from parser.embedded import native
native.BUILD_ROOT = __import__("pathlib").Path({str(tmp_path)!r})
stale = native.BUILD_ROOT / "0123456789abcdef"
(stale / "parser" / "embedded").mkdir(parents=True)
(stale / "OK").write_text("")
(stale / "parser" / "embedded" / "words.py").write_text("raise SystemExit('stale build imported')")
del os.environ["FACTCROWD_PURE_PARSER"]
print(native.activate(list(e.__path__)))
"""
    done = _python(code, FACTCROWD_PURE_PARSER="1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None"


def test_a_build_that_fails_to_load_falls_back_to_python(tmp_path: Path) -> None:
    """A build of the current sources whose module raises on import: one warning, and the rules import from source."""
    code = f"""
import os, sys
import parser.embedded as e
from parser.embedded import native
native.BUILD_ROOT = __import__("pathlib").Path({str(tmp_path)!r})
target = native.build_dir()
(target / "parser" / "embedded").mkdir(parents=True)
(target / "OK").write_text("")
(target / "parser" / "embedded" / "words.py").write_text("raise ImportError('broken build')")
del os.environ["FACTCROWD_PURE_PARSER"]
for name in [n for n in sys.modules if n.startswith("parser.embedded.") and n != "parser.embedded.native"]:
    del sys.modules[name]
print(native.activate(e.__path__))
import parser.embedded.words as words
print(words.__file__.startswith({str(REPO)!r} + "/parser/embedded/"), len(e.__path__))
"""
    done = _python(code, FACTCROWD_PURE_PARSER="1")
    assert done.returncode == 0, done.stderr
    result, source = done.stdout.strip().splitlines()
    assert result == "None"
    assert source == "True 1"  # the build's folder was taken off the package path again
    assert "did not load (broken build)" in done.stderr
