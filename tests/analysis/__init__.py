import pytest

# release.py holds shared assertions: rewrite them so a failure shows the values, as in a test module
pytest.register_assert_rewrite("tests.analysis.release")
