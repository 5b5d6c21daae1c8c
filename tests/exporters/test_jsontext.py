"""exporters.jsontext: the exporters' JSON text through orjson reads back as the standard library's, and what
orjson refuses still goes out (through the standard encoder) instead of failing an export halfway."""
import json
import math

import numpy as np
import pytest

from annotation_tasks.exporters.jsontext import json_bytes, json_line, json_value

pytestmark = pytest.mark.db_free


def test_a_record_reads_back_equal_and_compact():
    record = {"question": "Wer starb? «ß» 死", "votes": ["supported", None], "posterior": 0.6, "n": 3, "ok": True,
              "ci": [0.1941, 0.9324], "tiny": 2.5e-05}
    line = json_line(record)
    assert json.loads(line) == record and ", " not in line and ": " not in line
    assert "死" in line  # UTF-8, not \\u escapes
    assert json_value(line) == record and json_value(line.encode()) == record


def test_what_orjson_refuses_goes_through_the_standard_encoder():
    huge = {"id": 2 ** 70, "keys": {1: "a"}}  # beyond 64 bits; a non-str key
    assert json.loads(json_bytes(huge)) == {"id": 2 ** 70, "keys": {"1": "a"}}
    assert json.loads(json_line({"x": np.float64(0.25), "y": np.int64(4)})) == {"x": 0.25, "y": 4}


def test_nan_is_written_null_and_read_from_python_text():
    assert json_line({"p": math.nan}) == '{"p":null}'
    assert math.isnan(json_value('{"p": NaN}')["p"])  # json.dumps' text, as SQLite may hold it
