"""Partition values as Spark collects them become the Python values Admin.partitions returns."""

import datetime as dt
import decimal

import pytest

from lancepart.admin import _utc


@pytest.mark.parametrize("value,type_name,expected", [
    (None, "timestamp", None),
    # pyspark collects a TIMESTAMP as a naive datetime in the client's local time
    (dt.datetime.fromtimestamp(1735725600.000001), "timestamp",
     dt.datetime(2025, 1, 1, 10, 0, 0, 1, tzinfo=dt.timezone.utc)),
    (dt.datetime(2025, 1, 1, 10, 0), "timestamp_ntz", dt.datetime(2025, 1, 1, 10, 0)),
    (dt.date(1969, 12, 31), "date", dt.date(1969, 12, 31)),
    (decimal.Decimal("-12.340"), "decimal(10,3)", decimal.Decimal("-12.340")),
    ("a$'/", "string", "a$'/"),
])
def test_utc(value, type_name, expected):
    got = _utc(value, type_name)
    assert got == expected and type(got) is type(expected)
    if type_name == "timestamp" and got is not None:
        assert got.tzinfo == dt.timezone.utc
