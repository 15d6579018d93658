"""An independent implementation of the bucket hash (docs/format.md, "Bucket hash") on top of
the ``mmh3`` package, used to check the shared vectors in testdata/bucket_vectors.json."""

from __future__ import annotations

import datetime as dt
import decimal
import struct

import mmh3

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def parse(value, type_name: str):
    """A vector's JSON value as a Python value of ``type_name``."""
    if value is None:
        return None
    if type_name in ("float", "double"):
        return float(value)
    if type_name == "date":
        return dt.date.fromisoformat(value)
    if type_name == "timestamp":
        return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    if type_name == "timestamp_ntz":
        return dt.datetime.fromisoformat(value)
    if type_name.startswith("decimal"):
        return decimal.Decimal(value)
    if type_name == "binary":
        return bytes.fromhex(value)
    return value


WIDTHS = {"tinyint": "<b", "smallint": "<h", "int": "<i", "bigint": "<q", "float": "<f", "double": "<d"}


def encode(value, type_name: str) -> bytes:
    """The bytes Lance's murmur3 extension hashes: the Arrow value's little-endian bytes at its own
    width, UTF-8 of strings, raw binary, and the UTF-8 of Arrow's display string otherwise."""
    if type_name in WIDTHS:
        return struct.pack(WIDTHS[type_name], value)
    if type_name == "date":
        return struct.pack("<i", (value - dt.date(1970, 1, 1)).days)
    if type_name in ("timestamp", "timestamp_ntz"):
        aware = value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
        delta = aware - EPOCH
        return struct.pack("<q", (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds)
    if type_name == "boolean":
        return b"true" if value else b"false"
    if type_name.startswith("decimal"):
        return decimal_display(value, int(type_name.split(",")[1].rstrip(")"))).encode("utf-8")
    if type_name == "string":
        return value.encode("utf-8")
    if type_name == "binary":
        return value
    raise ValueError(type_name)


def decimal_display(value: decimal.Decimal, scale: int) -> str:
    """arrow-rs's display of a Decimal128 of ``scale``: plain digits, ``scale`` decimal places."""
    unscaled = int(value.scaleb(scale, decimal.Context(prec=80)))
    digits = str(abs(unscaled)).rjust(scale + 1, "0")
    plain = digits if scale == 0 else f"{digits[:-scale]}.{digits[-scale:]}"
    return ("-" if unscaled < 0 else "") + plain


def murmur3(values, type_names) -> int | None:
    parts = [encode(v, t) for v, t in zip(values, type_names) if v is not None]
    return mmh3.hash(b"".join(parts), seed=0, signed=True) if parts else None


def bucket(h: int, n: int) -> int:
    """abs(h) % N with Python's unbounded abs: h = -2^31 gives 2^31 % N."""
    return abs(h) % n
