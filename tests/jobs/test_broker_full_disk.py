"""Issue 23 item 8: after a full var disk the filesystem broker held empty message files and the worker crashed on
each start. Empty or cut message files are now moved aside at worker/beat start and skipped while running; the
good messages behind them are still delivered. (The full disk is simulated by the files it leaves: created, never
written.)"""
from __future__ import annotations

from pathlib import Path

import pytest
from kombu import Connection
from kombu.transport import filesystem, virtual

from annotation_tasks import broker_files


@pytest.fixture(autouse=True)
def _fresh_broker_state(monkeypatch):
    """kombu keeps the filesystem transport's declared queues in one process-wide state: each test's folders
    must get their own declarations."""
    monkeypatch.setattr(filesystem.Transport, "global_state", virtual.BrokerState())


def _options(root: Path) -> dict:
    for name in ("queue", "processed", "control"):
        (root / name).mkdir(parents=True, exist_ok=True)
    return {"data_folder_in": str(root / "queue"), "data_folder_out": str(root / "queue"),
            "processed_folder": str(root / "processed"), "store_processed": False,
            "control_folder": str(root / "control")}


def _leave_damage(queue_dir: Path, queue: str = "celery") -> None:
    """What a full disk leaves: files created before the good message, never (or half) written."""
    (queue_dir / f"0000_empty.{queue}.msg").write_bytes(b"")
    (queue_dir / f"0001_cut.{queue}.msg").write_bytes(b'{"body": "abc')


def _drain_one(options: dict):
    with Connection("filesystem://", transport_options=options) as conn:
        queue = conn.SimpleQueue("celery")
        try:
            message = queue.get(timeout=1)
            message.ack()
            return message.payload
        finally:
            queue.close()


def _publish(options: dict, payload: dict) -> None:
    with Connection("filesystem://", transport_options=options) as conn:
        queue = conn.SimpleQueue("celery")
        queue.put(payload)
        queue.close()


def test_a_damaged_file_crashes_kombus_own_reader(tmp_path, monkeypatch):
    options = _options(tmp_path)
    monkeypatch.setattr(filesystem.Channel, "_get", broker_files.KOMBU_GET)
    _publish(options, {"job": 1})
    _leave_damage(Path(options["data_folder_in"]))
    with pytest.raises(ValueError):  # what stopped the worker on every start
        _drain_one(options)


def test_the_tolerant_reader_skips_damaged_files_and_delivers_the_good_one(tmp_path, monkeypatch):
    options = _options(tmp_path)
    monkeypatch.setattr(filesystem.Channel, "_get", broker_files.tolerant_get(broker_files.KOMBU_GET))
    _publish(options, {"job": 1})
    _leave_damage(Path(options["data_folder_in"]))
    assert _drain_one(options) == {"job": 1}


def test_the_start_sweep_moves_damaged_files_aside(tmp_path, settings, caplog, monkeypatch):
    options = _options(tmp_path)
    _publish(options, {"job": 2})
    queue_dir = Path(options["data_folder_in"])
    _leave_damage(queue_dir)
    (Path(options["control_folder"]) / "celery.exchange").write_bytes(b"")
    good = sorted(p.name for p in queue_dir.iterdir() if broker_files._bad(p) is None)
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = options
    from backend.celery_app import _clean_filesystem_broker

    monkeypatch.setattr(filesystem.Channel, "_get", broker_files.KOMBU_GET)  # install() patches it back
    _clean_filesystem_broker()  # what worker_init / beat_init run
    assert sorted(p.name for p in queue_dir.iterdir()) == good
    assert sorted(p.name for p in (tmp_path / "damaged").iterdir()) == [
        "0000_empty.celery.msg", "0001_cut.celery.msg", "celery.exchange"]
    assert "moved out of the queue" in caplog.text
    assert _drain_one(options) == {"job": 2}
