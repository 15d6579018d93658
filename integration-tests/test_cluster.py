"""The plugin on a real standalone Spark cluster (one master, two workers on loopback): executors
in their own JVMs load the jar from `spark.jars` and Lance's native library, and write and read
partition tables on S3 and on Azure Blob Storage with the catalogs' storage options, and compact
them."""

import json
import subprocess
import sys
from pathlib import Path

from azure_server import CONTAINER
from s3_server import BUCKET
from spark_cluster import standalone_cluster

JOB = Path(__file__).parent / "cluster_job.py"


def test_write_prune_crosscheck_join_and_compaction_on_a_standalone_cluster(tmp_path, s3, azure):
    catalogs = {"s3": [f"s3://{BUCKET}/cluster-warehouse", s3.storage_options()],
                "az": [f"az://{CONTAINER}/cluster-warehouse", azure.storage_options()]}
    with standalone_cluster(tmp_path) as master:
        out = subprocess.run([sys.executable, str(JOB), master, json.dumps(catalogs)],
                             capture_output=True, text=True, timeout=900)
    lines = [line for line in out.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, f"job failed (exit {out.returncode}):\n{out.stderr[-5000:]}"
    results = json.loads(lines[0][len("RESULT "):])

    jp = [i for i in range(20000) if i % 4 == 2]
    matched = [i for i in range(5000) if i % 3 == 0]  # b holds ids 0, 3, 6, ...
    for catalog in catalogs:
        result = results[catalog]
        assert result["pruned"] == [len(jp), sum(jp)], catalog
        assert "tables=1/4" in result["scan"], result["scan"]
        assert result["crosscheck"] == {"rows": 20000, "tables": 4}, catalog
        assert result["join"] == [len(matched), sum(2 * i + i // 3 for i in matched)], catalog
        assert not result["join_shuffles"], f"{catalog}: the bucketed join should need no shuffle"
        assert result["compaction"]["rewritten_partition_tables_count"] == 4, catalog
        assert result["compaction"]["added_data_files_count"] == 4, catalog
        assert result["compacted"] == [40000, 40000, sum(range(40000))], catalog
    tasks = results["executor_tasks"]
    assert len(tasks) == 2, tasks
    assert all(total > 0 and failed == 0 for total, failed in tasks.values()), tasks
    assert len(s3.keys("cluster-warehouse/cluster/events/")) > 0
    assert len(azure.blobs("cluster-warehouse/cluster/events/")) > 0
