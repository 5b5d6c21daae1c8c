"""The derived cache (settings.CACHES["derived"], services/derived.py): what a Celery worker builds for a large
project, every web worker reads. On the embedded default (an in-process default cache) it is files in VAR_DIR, so
one process's build is another's answer; with a redis CACHE_URL it is that cache; DERIVED_CACHE_URL overrides."""
from __future__ import annotations

from tests.security.test_production_settings import run_django

SETUP = "import django; django.setup(); from django.conf import settings; from django.core.cache import caches; "


def test_one_processs_build_is_anothers_answer_on_the_embedded_default(tmp_path) -> None:
    write = run_django(["-c", SETUP + (
        "from annotation_tasks.services import derived; caches['derived'].set('factcrowd:t', {'rows': [1, 2]}, 60); "
        "print(type(caches['derived']).__name__, derived.shared_cache())")], {"DEBUG": "true"}, tmp_path)
    assert write.returncode == 0, write.stderr
    assert write.stdout.split() == ["FileBasedCache", "True"]
    read = run_django(["-c", SETUP + "print(caches['derived'].get('factcrowd:t'))"], {"DEBUG": "true"}, tmp_path)
    assert read.returncode == 0, read.stderr
    assert read.stdout.strip() == "{'rows': [1, 2]}"
    assert (tmp_path / "var" / "derived-cache").is_dir()


def test_a_shared_default_cache_is_the_derived_cache_and_the_url_overrides(tmp_path) -> None:
    show = SETUP + "print(settings.CACHES['derived']['BACKEND'], settings.CACHES['derived'] == settings.CACHES['default'])"
    redis = run_django(["-c", show], {"DEBUG": "true", "CACHE_URL": "redis://127.0.0.1:1/0"}, tmp_path)
    assert redis.returncode == 0, redis.stderr
    assert redis.stdout.split() == ["annotation_tasks.resilient_cache.FallbackRedisCache", "True"]
    chosen = run_django(["-c", show], {"DEBUG": "true", "DERIVED_CACHE_URL": "dummycache://"}, tmp_path)
    assert chosen.returncode == 0, chosen.stderr
    assert chosen.stdout.split() == ["django.core.cache.backends.dummy.DummyCache", "False"]
