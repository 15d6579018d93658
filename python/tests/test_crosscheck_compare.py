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
