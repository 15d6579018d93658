"""Partition values from the JVM's JSON become the Python values Spark itself returns."""

import datetime as dt
import decimal

import pytest

from lancepart.admin import _from_json


@pytest.mark.parametrize("value,type_name,expected", [
    (None, "date", None),
    ("1969-12-31", "date", dt.date(1969, 12, 31)),
    ("2025-01-01T10:00:00.000001Z", "timestamp", dt.datetime(2025, 1, 1, 10, 0, 0, 1, tzinfo=dt.timezone.utc)),
    ("2025-01-01T10:00", "timestamp_ntz", dt.datetime(2025, 1, 1, 10, 0)),
    ("-12.340", "decimal(10,3)", decimal.Decimal("-12.340")),
    ("a$'/", "string", "a$'/"),
    (9223372036854775807, "bigint", 9223372036854775807),
    (True, "boolean", True),
])
def test_from_json(value, type_name, expected):
    assert _from_json(value, type_name) == expected
