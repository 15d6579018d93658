"""Seeded random cases for the differential suite: a random schema and partition spec (transforms
both lancepart and Iceberg support), random rows with NULLs and edge values in several appends, a
random DELETE, and random filters and projections over columns and nested fields."""

from __future__ import annotations

import random
from dataclasses import dataclass

from differential import Case


def quoted(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


@dataclass(frozen=True)
class Kind:
    """A column type: its SQL, edge values as SQL literals, and the transforms it may be partitioned by."""
    sql: str
    values: tuple[str, ...]
    transforms: tuple[str, ...]  # {c}: the column, {n}: buckets, {w}: width


INT = Kind("INT", ("0", "1", "-1", "7", "42", "2147483647", "-2147483648", "-100", "99"),
           ("{c}", "bucket({n}, {c})", "truncate({w}, {c})"))
BIGINT = Kind("BIGINT", ("0", "-1", "3", "5000000000", "9223372036854775807",
                         "CAST(-9223372036854775808 AS BIGINT)", "-77", "123456789012"),
              ("{c}", "bucket({n}, {c})", "truncate({w}, {c})"))
STRING = Kind("STRING", tuple(quoted(s) for s in ("", "a", "ab", "abc", "b", "é", "😀", "x y", "o'k", "zz")),
              ("{c}", "bucket({n}, {c})", "truncate({w}, {c})"))
DATE = Kind("DATE", tuple(f"DATE'{d}'" for d in ("1970-01-01", "1969-12-31", "1582-10-10", "1582-10-15",
                                                 "2024-02-29", "2025-03-09", "2000-01-01", "2025-12-31")),
            ("{c}", "years({c})", "months({c})", "days({c})", "bucket({n}, {c})"))
TIMESTAMP = Kind("TIMESTAMP", tuple(f"TIMESTAMP'{t}'" for t in (
    "1970-01-01 00:00:00", "2025-03-09 02:30:00", "2024-02-29 23:59:59.999999", "1969-12-31 23:59:59",
    "2025-11-02 01:30:00", "2025-01-15 10:00:00", "1582-10-10 12:00:00")),
    ("{c}", "years({c})", "months({c})", "days({c})", "hours({c})", "bucket({n}, {c})"))
DECIMAL = Kind("DECIMAL(9, 2)", ("0.00", "-0.01", "1.50", "-1.50", "9999999.99", "-9999999.99", "12.34"),
               ("{c}", "bucket({n}, {c})", "truncate({w}, {c})"))
DOUBLE = Kind("DOUBLE", tuple(f"CAST('{x}' AS DOUBLE)" for x in ("0.0", "-0.0", "NaN", "Infinity", "-Infinity",
                                                                 "1.5", "-2.25", "1e308")), ())
BOOLEAN = Kind("BOOLEAN", ("true", "false"), ("{c}",))
STRUCT_FIELDS = {"a": INT, "b": STRING, "d": DATE}
STRUCT = Kind("STRUCT<a: INT, b: STRING, d: DATE>", (), ())
KINDS = (INT, BIGINT, STRING, DATE, TIMESTAMP, DECIMAL, DOUBLE, BOOLEAN, STRUCT)
COMPARISONS = ("=", "<>", "<", "<=", ">", ">=")


class Generator:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def value(self, kind: Kind) -> str:
        if self.rng.random() < 0.15:
            return "NULL"
        if kind is STRUCT:
            return "named_struct({})".format(", ".join(
                f"'{name}', CAST({self.value(k)} AS {k.sql})" for name, k in STRUCT_FIELDS.items()))
        return self.rng.choice(kind.values)

    def predicate(self, leaves: list[tuple[str, Kind]], depth: int = 0) -> str:
        if depth < 2 and self.rng.random() < 0.3:
            op = self.rng.choice(["AND", "OR"])
            return f"({self.predicate(leaves, depth + 1)} {op} {self.predicate(leaves, depth + 1)})"
        if depth < 2 and self.rng.random() < 0.1:
            return f"NOT ({self.predicate(leaves, depth + 1)})"
        expr, kind = self.rng.choice(leaves)
        choice = self.rng.random()
        if kind is STRUCT or choice < 0.15:
            return f"{expr} IS {self.rng.choice(['', 'NOT '])}NULL"
        literal = self.rng.choice(kind.values)
        if choice < 0.3:
            return f"{expr} IN ({literal}, {self.rng.choice(kind.values)})"
        return f"{expr} {self.rng.choice(COMPARISONS)} {literal}"

    def spec(self, columns: dict[str, Kind]) -> str:
        candidates = [c for c, k in columns.items() if k.transforms]
        fields = []
        for column in self.rng.sample(candidates, min(len(candidates), self.rng.choice([1, 1, 2]))):
            transform = self.rng.choice(columns[column].transforms)
            fields.append(transform.format(c=column, n=self.rng.choice([1, 2, 3, 8]), w=self.rng.choice([1, 2, 5])))
        return ", ".join(fields)

    def case(self, seed: int) -> Case:
        kinds = [self.rng.choice([INT, BIGINT, STRING, DATE, TIMESTAMP, DECIMAL])]  # one partitionable
        kinds += [self.rng.choice(KINDS) for _ in range(self.rng.randint(1, 4))]
        columns = {f"c{i}": kind for i, kind in enumerate(kinds)}
        leaves = [(c, k) for c, k in columns.items()]
        leaves += [(f"{c}.{name}", k) for c, kind in columns.items() if kind is STRUCT
                   for name, k in STRUCT_FIELDS.items()]
        schema = ", ".join(f"{c} {k.sql}" for c, k in columns.items())
        setup = [f"CREATE TABLE {{t}} (id INT, {schema}) PARTITIONED BY ({self.spec(columns)})"]
        next_id = 0
        for _ in range(self.rng.randint(2, 3)):
            rows = []
            for _ in range(self.rng.randint(2, 6)):
                rows.append("({}, {})".format(next_id, ", ".join(self.value(k) for k in columns.values())))
                next_id += 1
            setup.append(f"INSERT INTO {{t}} VALUES {', '.join(rows)}")
        if self.rng.random() < 0.5:
            setup.append(f"DELETE FROM {{t}} WHERE {self.predicate(leaves)}")
        queries = []
        for _ in range(5):
            projection = ", ".join(e for e, _ in self.rng.sample(leaves, self.rng.randint(1, len(leaves))))
            queries.append(f"SELECT id, {projection} FROM {{t}} WHERE {self.predicate(leaves)}")
        group, _ = self.rng.choice(leaves)
        queries.append(f"SELECT {group}, count(*) FROM {{t}} GROUP BY {group}")
        return Case(f"seed {seed}", tuple(setup), tuple(queries),
                    time_zone=self.rng.choice(["UTC", "America/Los_Angeles"]))


def random_case(seed: int) -> Case:
    return Generator(seed).case(seed)
