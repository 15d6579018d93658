"""An independent implementation of the bucket hash (docs/format.md, "Bucket hash") on top of
the ``mmh3`` package, used to check the shared vectors in testdata/bucket_vectors.json."""

from __future__ import annotations

import datetime as dt
import decimal
import math
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


def encode(value, type_name: str) -> bytes:
    if type_name in ("tinyint", "smallint", "int", "bigint"):
        return struct.pack("<q", value)
    if type_name == "boolean":
        return struct.pack("<q", 1 if value else 0)
    if type_name == "date":
        return struct.pack("<q", (value - dt.date(1970, 1, 1)).days)
    if type_name in ("timestamp", "timestamp_ntz"):
        aware = value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
        delta = aware - EPOCH
        return struct.pack("<q", (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds)
    if type_name in ("float", "double"):
        v = 0.0 if value == 0.0 else (math.nan if math.isnan(value) else value)
        bits = 0x7FF8000000000000 if math.isnan(v) else struct.unpack("<q", struct.pack("<d", v))[0]
        return struct.pack("<q", bits)
    if type_name.startswith("decimal"):
        scale = int(type_name.split(",")[1].rstrip(")"))
        unscaled = int(value.scaleb(scale))
        length = max(1, (unscaled.bit_length() + 8) // 8)
        return unscaled.to_bytes(length, "big", signed=True)
    if type_name == "string":
        return value.encode("utf-8")
    if type_name == "binary":
        return value
    raise ValueError(type_name)


def murmur3(values, type_names) -> int | None:
    parts = [encode(v, t) for v, t in zip(values, type_names) if v is not None]
    return mmh3.hash(b"".join(parts), seed=0, signed=True) if parts else None


def bucket(h: int, n: int) -> int:
    return abs(h) % n
