"""`envcraft report RUN [RUN ...] [--html OUT.html] [--json [OUT.json]]`: tables on the terminal, the same
numbers as JSON, and a self-contained HTML page with plots and a trajectory viewer."""

from __future__ import annotations

import json
from pathlib import Path

from envcraft.harness.reports.numbers import load_run, report_data
from envcraft.harness.terminal import console, table


def _tables(data: dict) -> None:
    out = console()
    for run in data["runs"]:
        rows = run["by_agent_and_split"]
        keys = sorted({k for row in rows for k in row if k.startswith("pass")}, key=lambda k: (k[4], int(k[5:])))
        out.print(table(
            ["agent", "model", "split", "tasks", "attempts", "success", "reward", "infra", *keys],
            ([r["agent"], r["model"], r["split"], r["tasks"], r["attempts"], f"{r['success']:.3f}",
              f"{r['mean_reward']:.3f}", r["infra_failures"], *(f"{r[k]:.3f}" if k in r else "-" for k in keys)]
             for r in rows),
            right=["tasks", "attempts", "success", "reward", "infra", *keys], title=f"run {run['run_id']}"))
        if run["benchmarks"]:  # standard benchmarks beside our splits: accuracy by their own checkers
            out.print(table(
                ["benchmark", "category", "agent", "tasks", "episodes", "accuracy", "infra", "errors (benchmark's types)"],
                ([b["benchmark"], b["category"], b["agent"], b["tasks"], b["episodes"], f"{b['accuracy']:.3f}",
                  b["infra_failures"], ", ".join(f"{k} {v}" for k, v in b["errors"].items()) or "-"]
                 for b in run["benchmarks"]),
                right=["tasks", "episodes", "accuracy", "infra"], title=f"run {run['run_id']}: standard benchmarks"))
    if len(data["runs"]) > 1:
        out.print(table(
            ["series", "tasks", "episodes", "success", "reward", "steps", "tokens", "sec/ep", "infra"],
            ([s["series"], s["tasks"], s["episodes"], f"{s['success']:.1%}", f"{s['reward']:.3f}",
              f"{s['mean_steps']:.1f}", f"{s['mean_tokens']:.0f}", f"{s['mean_seconds']:.3f}", s["infra_failures"]]
             for s in data["series"]),
            right=["tasks", "episodes", "success", "reward", "steps", "tokens", "sec/ep", "infra"], title="side by side"))


def report(folders: list[Path], html: Path | None = None, as_json: str | None = None) -> int:
    runs = [load_run(folder) for folder in folders]  # every folder is checked before anything is written
    data = report_data(runs)
    if as_json == "-":
        print(json.dumps(data, indent=1))
    else:
        _tables(data)
        if as_json:
            Path(as_json).write_text(json.dumps(data, indent=1), "utf-8")
            console(stderr=True).print(f"numbers: {as_json}")
    if html:
        from envcraft.harness.reports.html import render_html  # plotly is imported only when a page is wanted

        Path(html).parent.mkdir(parents=True, exist_ok=True)
        Path(html).write_text(render_html(data, runs), "utf-8")
        console(stderr=True).print(f"report: {html} (self-contained: open it in any browser, offline)")
    return 0
