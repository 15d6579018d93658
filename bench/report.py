"""Turns a benchmark result (bench/results/latest.json) into a PNG chart and the generated
section of docs/benchmarks.md: per workload, each system's time and its ratio to lancepart's,
and planning time by partition count."""

from __future__ import annotations

import collections
import shutil
from pathlib import Path

START, END = "<!-- results:start (bench/report.py writes this part) -->", "<!-- results:end -->"


def _by_workload(records: list[dict]) -> dict[tuple[str, int], dict[str, dict]]:
    groups = collections.defaultdict(dict)
    for r in records:
        if r["workload"] == "planning_point_query" and r["rows"] == 0:
            continue  # metadata-only tables: the planning table below
        partitions = r["partitions"] if r["system"].startswith(("lancepart", "parquet", "iceberg", "spark floor")) else None
        groups[(r["workload"], partitions)][r["system"]] = r
    # the unpartitioned reference belongs to every partition count of its workload
    for (workload, partitions), systems in list(groups.items()):
        if partitions is None:
            del groups[(workload, partitions)]
            for (w, p), others in groups.items():
                if w == workload:
                    others.update(systems)
    return groups


def cell(record: dict | None, base: dict | None) -> str:
    """A table cell: ``record``'s seconds, with their ratio to ``base``'s (lancepart's record of
    the same workload) when ``record`` is another's; '-' without ``record``."""
    if record is None:
        return "-"
    if base is None or record is base:
        return f"{record['seconds']:.3f}"
    return f"{record['seconds']:.3f} ({record['seconds'] / base['seconds']:.2f}x)"


def markdown(result: dict) -> str:
    groups = _by_workload(result["records"])
    systems = sorted({s for g in groups.values() for s in g}, key=lambda s: (s != "lancepart", s))
    lines = [f"Run: {result['cores']} cores, Spark {result['spark']}, median of {result['repeats']} after a warm-up, "
             f"{result['minutes']} minutes in all. Each cell: seconds (time / lancepart's time).", "",
             "| workload | partitions | " + " | ".join(systems) + " |",
             "|---|---|" + "---|" * len(systems)]
    for (workload, partitions), found in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0)):
        cells = [cell(found.get(system), found.get("lancepart")) for system in systems]
        lines.append(f"| {workload} | {partitions:,} | " + " | ".join(cells) + " |")
    joins = [r for r in result["records"] if r["workload"].startswith("join")]
    if joins:
        lines += ["", "Shuffle bytes written by the joins:", "", "| system | SPJ | shuffle bytes | notes |", "|---|---|---|---|"]
        for r in joins:
            lines.append(f"| {r['system']} | {'off' if r['workload'].endswith('off') else 'on'} | "
                         f"{r['shuffle_bytes']:,} | {r['notes']} |")
    planning = sorted((r for r in result["records"] if r["workload"] == "planning_point_query" and r["rows"] == 0),
                      key=lambda r: r["partitions"])
    if planning:
        lines += ["", "Planning a point query (EXPLAIN) on metadata-only lancepart tables:", "",
                  "| partition tables | " + " | ".join(f"{r['partitions']:,}" for r in planning) + " |",
                  "|---|" + "---|" * len(planning),
                  "| milliseconds | " + " | ".join(f"{r['seconds'] * 1000:.0f}" for r in planning) + " |"]
    return "\n".join(lines)


def chart(result: dict, png: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = _by_workload(result["records"])
    keys = sorted(k for k, g in groups.items() if "lancepart" in g)
    peers = sorted({s for k in keys for s in groups[k] if s != "lancepart"})
    fig, (bars, plan) = plt.subplots(1, 2, figsize=(16, 6), gridspec_kw={"width_ratios": [3, 1]})
    width = 0.8 / max(1, len(peers))
    for i, peer in enumerate(peers):
        ratios = [groups[k][peer]["seconds"] / groups[k]["lancepart"]["seconds"] if peer in groups[k] else 0 for k in keys]
        bars.bar([x + i * width for x in range(len(keys))], ratios, width, label=peer)
    bars.axhline(1.0, color="black", linewidth=0.8)
    bars.set_xticks([x + width * (len(peers) - 1) / 2 for x in range(len(keys))])
    bars.set_xticklabels([f"{w}\n{p:,}" for w, p in keys], rotation=60, ha="right", fontsize=7)
    bars.set_ylabel("time / lancepart time (above 1: lancepart faster)")
    bars.set_yscale("log")
    bars.legend(fontsize=8)
    planning = sorted((r for r in result["records"] if r["workload"] == "planning_point_query" and r["rows"] == 0),
                      key=lambda r: r["partitions"])
    plan.plot([r["partitions"] for r in planning], [r["seconds"] * 1000 for r in planning], marker="o")
    plan.set_xscale("log")
    plan.set_xlabel("partition tables")
    plan.set_ylabel("EXPLAIN point query (ms)")
    plan.set_ylim(bottom=0)
    fig.suptitle(f"lancepart vs peers ({result['cores']} cores, Spark {result['spark']})")
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def write_report(result: dict, png: Path, doc: Path) -> None:
    """Writes the chart to ``png`` and, for the docs site, next to ``doc`` (img/benchmarks.png),
    and the generated section of ``doc``."""
    chart(result, png)
    site_copy = doc.parent / "img" / "benchmarks.png"
    site_copy.parent.mkdir(exist_ok=True)
    shutil.copyfile(png, site_copy)
    replace_section(doc, START, END, markdown(result))


def replace_section(doc: Path, start: str, end: str, body: str) -> None:
    """Replaces the text between the markers ``start`` and ``end`` of ``doc`` with ``body``."""
    text = doc.read_text()
    if start not in text or end not in text:
        raise ValueError(f"{doc} has no section between '{start}' and '{end}': add those two lines where it goes")
    head, _, rest = text.partition(start)
    _, _, tail = rest.partition(end)
    doc.write_text(f"{head}{start}\n{body}\n{end}{tail}")


if __name__ == "__main__":  # regenerate the chart and docs section from bench/results/latest.json
    import json

    here = Path(__file__).parent
    write_report(json.loads((here / "results" / "latest.json").read_text()), here / "results" / "latest.png",
                 here.parent / "docs" / "benchmarks.md")
