"""Writes N Lance datasets of ROWS rows each (id, v, s) under ROOT, for bench/spikes/LanceOpenScan.java:
python bench/spikes/make_datasets.py ROOT N ROWS"""

import sys

import lance
import numpy as np
import pyarrow as pa

root, n, rows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(n):
    table = pa.table({"id": np.arange(rows, dtype=np.int64) + i * rows, "v": np.random.rand(rows),
                      "s": pa.array([f"s{j % 17}" for j in range(rows)])})
    lance.write_dataset(table, f"{root}/p{i}.lance", data_storage_version="2.1")
