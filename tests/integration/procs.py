"""The app's real processes for integration tests: celery worker and beat, runserver, manage.py commands.

Every process runs from the repository root with the same environment: a temp FACTCROWD_VAR_DIR (so the
filesystem broker's folders, uploads and the beat schedule are private to the test), a DATABASE_URL, and
CELERY_TASK_ALWAYS_EAGER=false. Each long-running process gets its own session (process group), so stopping
it also stops what it started (prefork children, run.sh's children), and its output goes to a log file that
failures print.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from urllib.parse import quote

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent  # the venv that runs pytest also has celery
PYTHON = sys.executable
CELERY = str(BIN / "celery")


def database_url(settings_dict: dict) -> str:
    """A DATABASE_URL for the database `settings_dict` points at (the test database, once it exists)."""
    engine, name = settings_dict["ENGINE"], str(settings_dict["NAME"])
    if engine.endswith("sqlite3"):
        if name == ":memory:" or name.startswith("file:"):
            raise ValueError("another process cannot open an in-memory SQLite database")
        return f"sqlite:///{Path(name).resolve()}"
    if "postgresql" in engine:
        user, password = quote(settings_dict.get("USER") or "", safe=""), quote(settings_dict.get("PASSWORD") or "", safe="")
        host = quote(settings_dict.get("HOST") or "localhost", safe="")
        port = settings_dict.get("PORT") or 5432
        auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
        return f"postgres://{auth}{host}:{port}/{quote(name, safe='')}"
    raise ValueError(f"no DATABASE_URL for engine {engine}")


def broker_options(var_dir: Path) -> dict:
    """The filesystem broker's folders under var_dir, exactly as backend/settings.py derives them (created)."""
    base = Path(var_dir) / "celery-broker"
    for sub in ("queue", "processed", "control"):
        (base / sub).mkdir(parents=True, exist_ok=True)
    return {
        "data_folder_in": str(base / "queue"),
        "data_folder_out": str(base / "queue"),
        "processed_folder": str(base / "processed"),
        "store_processed": False,
        "control_folder": str(base / "control"),
    }


def app_env(var_dir: Path, db_url: str | None, **extra: str) -> dict[str, str]:
    """The environment of every app process: no inherited CELERY_*/DATABASE_URL, eager off, a private VAR_DIR."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CELERY_", "DATABASE_URL", "PYTEST_", "DJANGO_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="backend.settings",
        FACTCROWD_VAR_DIR=str(var_dir),
        CELERY_BROKER_URL="filesystem://",
        CELERY_RESULT_BACKEND="django-db",
        CELERY_TASK_ALWAYS_EAGER="false",
        PYTHONUNBUFFERED="1",
        PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    if db_url:
        env["DATABASE_URL"] = db_url
    env.update(extra)
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Proc:
    """A long-running subprocess in its own session, logging to a file."""

    def __init__(self, name: str, args: list[str], env: dict[str, str], log_dir: Path) -> None:
        self.name, self.args = name, args
        self.log_path = Path(log_dir) / f"{name}.log"
        self._log = self.log_path.open("wb")
        self.popen = subprocess.Popen(
            args, cwd=REPO, env=env, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.pgid = self.popen.pid  # session leader: its pid is the process group id

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def log(self) -> str:
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(errors="replace")

    def group_pids(self) -> list[int]:
        """Processes still in this process group (children a script or a prefork worker started)."""
        pids = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()  # state ppid pgrp ...
            if int(fields[2]) == self.pgid and fields[0] != "Z":
                pids.append(int(entry.name))
        return pids

    def signal_group(self, sig: int) -> None:
        try:
            os.killpg(self.pgid, sig)
        except ProcessLookupError:
            pass

    def kill(self) -> None:
        """SIGKILL the whole group at once (a crash: no shutdown handlers run)."""
        self.signal_group(signal.SIGKILL)
        self.popen.wait(timeout=10)

    def stop(self, timeout: float = 15) -> None:
        """SIGTERM the group; SIGKILL whatever is left of it after `timeout` seconds."""
        self.signal_group(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while (self.alive() or self.group_pids()) and time.monotonic() < deadline:
            time.sleep(0.05)
        if self.alive() or self.group_pids():
            self.signal_group(signal.SIGKILL)
        self.popen.wait(timeout=10)
        self._log.close()


def manage(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run `manage.py *args` to completion; a non-zero exit fails with its output."""
    done = subprocess.run(
        [PYTHON, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout
    )
    if done.returncode != 0:
        raise AssertionError(f"manage.py {' '.join(args)} exited {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done


def start_worker(env: dict[str, str], log_dir: Path, name: str = "worker", pool: str = "solo",
                 concurrency: int = 1) -> Proc:
    args = [CELERY, "-A", "backend", "worker", f"--pool={pool}", f"--concurrency={concurrency}", "--loglevel=INFO",
            "--without-gossip", "--without-mingle", f"--hostname={name}@%h"]
    return Proc(name, args, env, log_dir)


def start_beat(env: dict[str, str], log_dir: Path, var_dir: Path, name: str = "beat") -> Proc:
    """celery beat as `make run` starts it (its schedule file in the private var_dir)."""
    args = [CELERY, "-A", "backend", "beat", "--loglevel=INFO", "--schedule", str(Path(var_dir) / "celerybeat-schedule")]
    return Proc(name, args, env, log_dir)


def wait_until(check: Callable[[], object], timeout: float, what: str, procs: Iterable[Proc] = (),
               interval: float = 0.1) -> object:
    """Poll `check` until it returns something truthy; fail with the processes' logs on timeout or death."""
    procs = list(procs)
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        dead = [p for p in procs if not p.alive()]
        if dead or time.monotonic() > deadline:
            why = f"{', '.join(p.name for p in dead)} exited" if dead else f"timed out after {timeout:.0f}s"
            raise AssertionError(f"waiting for {what}: {why}\n" + logs(procs))
        time.sleep(interval)


def logs(procs: Iterable[Proc], tail: int = 4000) -> str:
    return "\n".join(f"--- {p.name} (exit {p.popen.poll()}) ---\n{p.log()[-tail:]}" for p in procs)
