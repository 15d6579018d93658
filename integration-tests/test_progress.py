"""Long admin operations (vacuum, repair, crosscheck) draw a progress bar over partition tables
when asked, and none when told not to."""

import datetime as dt

import lance

import lancepart


def make_table(spark, ns, partitions: int) -> str:
    t = f"lance.{ns}.t"
    spark.sql(f"CREATE TABLE {t} (id INT, p INT) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {t} SELECT id, id % {partitions} FROM range(100)")
    return t


def test_vacuum_and_crosscheck_show_progress_over_partition_tables(spark, ns, admin, capsys):
    t = make_table(spark, ns, 5)
    capsys.readouterr()
    admin.vacuum(f"{ns}.t", older_than=dt.timedelta(0), progress=True, retention_check=False)
    lancepart.crosscheck(spark, t, progress=True)
    err = capsys.readouterr().err
    assert f"vacuum {ns}.t" in err
    assert f"pylance read of {t}" in err
    assert err.count("5/5") >= 2, err


def test_repair_shows_progress_over_manifest_rows(spark, root, ns, admin, capsys):
    make_table(spark, ns, 3)
    uri, storage = lancepart.table_uri(spark, f"lance.{ns}.t")
    manifest = lance.dataset(f"{uri}/__manifest", storage_options=storage)
    manifest.drop_columns(["read_version"])
    capsys.readouterr()
    restored = admin.repair(f"{ns}.t", progress=True)
    err = capsys.readouterr().err
    assert f"repair {ns}.t" in err
    assert f"{restored + 1}/{restored + 1}" in err, err  # every row, then the commit


def test_no_bar_when_progress_is_off(spark, ns, admin, capsys):
    t = make_table(spark, ns, 2)
    capsys.readouterr()
    admin.vacuum(f"{ns}.t", progress=False)
    lancepart.crosscheck(spark, t, progress=False)
    assert capsys.readouterr().err == ""
