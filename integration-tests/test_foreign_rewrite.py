"""Another client rewrites __manifest without the partition and read_version columns (as Lance's
own DirectoryNamespace does from pylance 14 on, keeping only its base columns): queries fail
with an error that says what happened and how to repair it, never with wrong rows; Admin.repair
rebuilds the columns from the values every row keeps in its metadata JSON."""

import decimal
import json
import re

import lance
import lance_namespace as ln
import pytest
from lance.namespace import DirectoryNamespace

import lancepart
from conftest import tables_scanned


def drop_partition_columns(manifest_dir):
    """The state a pylance-14 DirectoryNamespace rewrite leaves: base columns and metadata only."""
    ds = lance.dataset(str(manifest_dir))
    dropped = [c for c in ds.schema.names if c.startswith("partition_field_")] + ["read_version"]
    ds.drop_columns(dropped)
    return dropped


@pytest.mark.parametrize("mode", ["weak", "strong"])
def test_repair_restores_what_a_foreign_rewrite_dropped(spark, admin, root, ns, mode):
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, d DATE, c STRING) PARTITIONED BY (d, c) "
              f"TBLPROPERTIES ('transaction.mode' = '{mode}')")
    for i in range(2):  # two commits per leaf: in strong mode read_version is then a detached version
        spark.sql(f"INSERT INTO {t} VALUES ({i}0, DATE'2025-12-10', 'US'), ({i}1, DATE'2025-12-10', 'FR'), "
                  f"({i}2, DATE'2025-12-11', 'US'), ({i}3, DATE'2025-12-11', NULL), ({i}4, NULL, 'US')")
    expected = sorted(tuple(r) for r in spark.table(t).collect())
    manifest_dir = root / ns / "t" / "__manifest"
    before = lance.dataset(str(manifest_dir)).to_table().sort_by("object_id").to_pylist()
    assert drop_partition_columns(manifest_dir) == ["partition_field_d", "partition_field_c", "read_version"]
    # Lance's DirectoryNamespace still works on it: the layout is intact
    dirns = DirectoryNamespace(root=str(root / ns / "t"))
    assert len(dirns.list_namespaces(ln.ListNamespacesRequest(id=["v1"])).namespaces) == 3

    refusal = (rf"table {t}: __manifest has no 'read_version' column, which transaction.mode=strong needs; another "
               rf"client rewrote the manifest without it. Admin.repair\('{t}'\) restores it" if mode == "strong" else
               rf"table {t}: __manifest has no column 'partition_field_d' for field 'd' of partition_spec_v1; another "
               rf"client rewrote the manifest without its partition columns. Admin.repair\('{t}'\) restores them")
    for query in (f"SELECT * FROM {t}", f"SELECT * FROM {t} WHERE c = 'US'"):
        with pytest.raises(Exception, match=refusal):
            spark.sql(query).collect()
    with pytest.raises(Exception, match=r"Admin.repair"):
        spark.sql(f"INSERT INTO {t} VALUES (9, DATE'2025-12-10', 'US')")

    assert admin.repair(t) == len(before)
    after = lance.dataset(str(manifest_dir)).to_table().sort_by("object_id").to_pylist()
    assert after == before, "every column value restored, read_version included"
    assert sorted(tuple(r) for r in spark.table(t).collect()) == expected
    query = f"SELECT id FROM {t} WHERE d = DATE'2025-12-10' AND c = 'US'"
    assert tables_scanned(spark, query) == (1, 5), "pruning works again"
    assert sorted(r.id for r in spark.sql(query).collect()) == [0, 10]
    lancepart.crosscheck(spark, t)
    assert admin.repair(t) == 0, "nothing left to repair"


def test_repair_keeps_a_row_without_metadata_unguessed_and_read_by_every_scan(spark, admin, root, ns):
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, c STRING) PARTITIONED BY (c)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'US'), (2, 'FR')")
    manifest_dir = root / ns / "t" / "__manifest"
    ds = lance.dataset(str(manifest_dir))
    leaf_id = ds.to_table(filter="object_type = 'table' AND partition_field_c = 'US'")["object_id"][0].as_py()
    ds.update({"metadata": "NULL"}, where=f"object_id = '{leaf_id}'")  # a row some other client wrote
    drop_partition_columns(manifest_dir)
    with pytest.warns(UserWarning, match=re.escape(f"read by every scan (another client created them): {leaf_id}")):
        admin.repair(t)
    manifest = lance.dataset(str(manifest_dir))
    assert json.loads(manifest.metadata["lancepart.unpartitioned-tables"]) == [leaf_id]
    assert manifest.to_table(filter=f"object_id = '{leaf_id}'")["partition_field_c"].to_pylist() == [None]
    for c, ids in [("US", [1]), ("FR", [2])]:
        assert [r.id for r in spark.sql(f"SELECT id FROM {t} WHERE c = '{c}'").collect()] == ids
    assert tables_scanned(spark, f"SELECT id FROM {t} WHERE c = 'FR'") == (2, 2)


def test_partition_values_are_kept_as_text_in_row_metadata(spark, root, ns):
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, ts TIMESTAMP, amount DECIMAL(10, 2), flag BOOLEAN) "
              "PARTITIONED BY (days(ts), amount, flag)")
    spark.sql(f"INSERT INTO {t} VALUES (1, TIMESTAMP'2025-12-10 23:30:00', 12.50, true)")
    leaf = lance.dataset(str(root / ns / "t" / "__manifest")).to_table(filter="object_type = 'table'").to_pylist()[0]
    kept = json.loads(leaf["metadata"])
    stats = {k: kept.pop(k) for k in list(kept) if k.startswith("lancepart.stats.")}
    assert kept == {"partition.ts_year": "2025", "partition.ts_month": "12", "partition.ts_day": "10",
                    "partition.amount": "12.50", "partition.flag": "true", "lancepart.written_version": "1"}
    assert {k: stats[k] for k in ("lancepart.stats.location", "lancepart.stats.version", "lancepart.stats.rows")} == {
        "lancepart.stats.location": leaf["location"], "lancepart.stats.version": "1", "lancepart.stats.rows": "1"}
    assert leaf["partition_field_ts_day"] == 10 and leaf["partition_field_amount"] == decimal.Decimal("12.50")


def test_an_interrupted_repair_is_refused_until_repair_runs_again(spark, admin, root, ns):
    """Repair adds the columns (NULL) before it fills them; a reader between the two steps would
    prune on NULLs, so the table is refused while the repair's marker is set."""
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, c STRING) PARTITIONED BY (c)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'US'), (2, 'FR')")
    manifest = lance.dataset(str(root / ns / "t" / "__manifest"))
    # the state a repair killed after adding the columns leaves: marker set, values NULL
    manifest.update({"partition_field_c": "NULL"}, where="object_type <> 'namespace' OR object_id <> 'v1'")
    lance.dataset(str(root / ns / "t" / "__manifest")).update_metadata({"lancepart.repair-in-progress": "true"})
    with pytest.raises(Exception, match=rf"table {t}: a repair of its __manifest did not finish; run Admin.repair\('{t}'\) again"):
        spark.sql(f"SELECT * FROM {t} WHERE c = 'US'").collect()
    assert admin.repair(t) == 5
    assert "lancepart.repair-in-progress" not in lance.dataset(str(root / ns / "t" / "__manifest")).metadata
    assert [r.id for r in spark.sql(f"SELECT id FROM {t} WHERE c = 'US'").collect()] == [1]
