"""parser.embedded.scoring.round4 gives round(x, 4)'s double exactly (the frames' confidences must not move)."""
import math
import random

from parser.embedded.scoring import round4


def _same(a: float, b: float) -> bool:
    return repr(a) == repr(b) and math.copysign(1.0, a) == math.copysign(1.0, b)


def test_round4_matches_round_on_random_probabilities():
    rnd = random.Random(7)
    xs = [rnd.random() for _ in range(200_000)] + [rnd.random() * 1e-5 for _ in range(20_000)]
    assert all(_same(round4(x), round(x, 4)) for x in xs)


def test_round4_matches_round_at_and_around_ties():
    xs = []
    for k in range(10_001):
        tie = (k + 0.5) / 10_000
        xs += [tie, math.nextafter(tie, 0.0), math.nextafter(tie, 2.0), k / 10_000]
    assert all(_same(round4(x), round(x, 4)) for x in xs)


def test_round4_outside_the_fast_range_is_round():
    for x in (0.0, -0.0, -0.00001, -0.7, 1.00005, 2.5, 12345.67895, 1e-320, float("inf"), float("-inf")):
        assert _same(round4(x), round(x, 4))
    assert math.isnan(round4(float("nan")))
