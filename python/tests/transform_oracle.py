"""Python implementations of the spec's transforms, independent of the JVM's (test oracle)."""

from __future__ import annotations

import datetime as dt
import decimal
import math

from bucket_oracle import bucket, murmur3


def apply(kind: str, values: list, types: list[str], param: int | None = None):
    """The partition value of transform ``kind`` for source ``values`` of Spark ``types``."""
    if kind == "multi_bucket":
        h = murmur3(values, types)
        return None if h is None else bucket(h, param)
    (v,), (t,) = values, types
    if v is None:
        return None
    if kind == "identity":
        return v
    if kind in ("year", "month", "day", "hour"):
        when = v.astimezone(dt.timezone.utc) if isinstance(v, dt.datetime) and v.tzinfo else v
        return getattr(when, kind)
    if kind == "bucket":
        return bucket(murmur3([v], [t]), param)
    if kind == "truncate":
        if isinstance(v, str):
            return v[:param]
        if isinstance(v, decimal.Decimal):
            return v - (v % param)  # Decimal's % takes the dividend's sign, like the spec's
        return v - int(math.fmod(v, param))
    raise ValueError(kind)
