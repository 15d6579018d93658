"""Row comparison used by crosscheck: multisets, so order does not matter but duplicates do."""

import datetime as dt

import pyarrow as pa

from lancepart.crosscheck import _diff, _same_rows


def test_same_rows_ignores_order_and_counts_duplicates():
    a = pa.table({"x": [1, 2, 2, None], "s": ["a", "b", "b", None]})
    assert _same_rows(a, a.take([3, 2, 0, 1]))
    assert not _same_rows(a, a.take([0, 1, 3, 3]))
    assert not _same_rows(a, a.slice(0, 3))


def test_same_rows_handles_types_arrow_cannot_sort():
    a = pa.table({"x": [[1], [2, 3]], "d": [dt.date(2025, 1, 1), None]})
    assert _same_rows(a, a.take([1, 0]))
    assert not _same_rows(a, pa.table({"x": [[1], [2]], "d": [dt.date(2025, 1, 1), None]}))


def test_diff_reports_rows_on_each_side():
    only_left, only_right = _diff([{"x": 1}, {"x": 1}, {"x": 2}], [{"x": 1}, {"x": 3}])
    assert dict(only_left) == {(("x", 1),): 1, (("x", 2),): 1}
    assert dict(only_right) == {(("x", 3),): 1}


def _nan():
    return float("inf") - float("inf")  # a new NaN object each call: Python's == holds NaN != NaN


def test_same_rows_holds_every_nan_equal():
    a = pa.table({"x": pa.array([_nan(), 1.0, None], pa.float64()), "f": pa.array([_nan(), None, 2.0], pa.float32())})
    b = pa.table({"x": pa.array([1.0, None, _nan()], pa.float64()), "f": pa.array([None, 2.0, _nan()], pa.float32())})
    assert _same_rows(a, b)
    assert not _same_rows(a, pa.table({"x": pa.array([_nan(), 1.0, 3.0]), "f": a.column("f")}))


def test_same_rows_holds_nan_equal_inside_structs_lists_and_maps():
    def nested(values):
        return pa.table({"st": [{"a": v} for v in values], "arr": [[v, 0.5] for v in values],
                         "m": pa.array([[("k", v)] for v in values], pa.map_(pa.string(), pa.float64()))})

    assert _same_rows(nested([_nan(), 1.0]), nested([1.0, _nan()]))
    assert not _same_rows(nested([_nan(), 1.0]), nested([1.0, 2.0]))


def test_same_rows_tells_negative_zero_from_zero():
    # Both sides read the bits stored in the files, so a reader that turns -0.0 into 0.0 is wrong.
    assert not _same_rows(pa.table({"x": [-0.0, 1.0]}), pa.table({"x": [0.0, 1.0]}))
    assert not _same_rows(pa.table({"x": pa.array([-0.0], pa.float32())}), pa.table({"x": pa.array([0.0], pa.float32())}))
    assert not _same_rows(pa.table({"arr": [[-0.0]]}), pa.table({"arr": [[0.0]]}))
    assert _same_rows(pa.table({"x": [-0.0, 0.0]}), pa.table({"x": [0.0, -0.0]}))


def test_diff_shows_nan_rows_as_one_value():
    only_left, only_right = _diff([{"x": _nan()}, {"x": -0.0}], [{"x": _nan()}, {"x": 0.0}])
    assert [repr(dict(r)) for r in only_left] == ["{'x': -0.0}"]
    assert [repr(dict(r)) for r in only_right] == ["{'x': 0.0}"]
