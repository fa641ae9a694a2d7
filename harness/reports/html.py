"""`envcraft report --html`: one self-contained page (Plotly's JavaScript inlined, no network needed to view it).

Plots come from Plotly figures built here; the page itself is templates/report.html.j2. Rollout content
(messages, tool results, files) is data written into a JSON script block and shown by the viewer with
textContent only, so nothing an agent or a tool wrote can run as code in the reader's browser.
"""

from __future__ import annotations

import json
from pathlib import Path

import jinja2
import plotly.graph_objects as go
from envcraft.harness.reports.numbers import BOUNDARIES, DIMENSIONS, EPISODE_FAILURE, Run
from plotly.colors import qualitative
from plotly.offline import get_plotlyjs
from plotly.subplots import make_subplots

TEMPLATES = Path(__file__).resolve().parent / "templates"
TEXT_LIMIT = 4000  # characters of one message kept in the page
TITLES = {"env": "environment", "kind": "kind", "archetype": "archetype", "tier": "tier", "split": "split"}


def _layout(fig: go.Figure, title: str, height: int = 420) -> go.Figure:
    fig.update_layout(title=title, height=height, margin={"l": 50, "r": 20, "t": 60, "b": 40},
                      template="plotly_white", legend={"orientation": "h", "y": -0.25})
    return fig


def colors_of(series: list[str]) -> dict[str, str]:
    """One color per series, the same in every plot."""
    palette = qualitative.Plotly
    return {name: palette[i % len(palette)] for i, name in enumerate(series)}


def breakdown_figure(dim: str, rows: list[dict], colors: dict[str, str]) -> go.Figure:
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=("success rate", "mean reward"))
    for series in sorted({r["series"] for r in rows}):
        mine = [r for r in rows if r["series"] == series]
        x = [r["value"] for r in mine]
        hover = [f"{r['episodes']} episode(s)" for r in mine]
        fig.add_trace(go.Bar(name=series, x=x, y=[r["success"] for r in mine], hovertext=hover,
                             legendgroup=series, marker_color=colors[series]), row=1, col=1)
        fig.add_trace(go.Bar(name=series, x=x, y=[r["reward"] for r in mine], hovertext=hover,
                             legendgroup=series, showlegend=False, marker_color=colors[series]), row=2, col=1)
    fig.update_yaxes(range=[0, 1.05])
    return _layout(fig, f"Success and reward by {TITLES[dim]}", 520)


def pass_figure(curves: list[dict], colors: dict[str, str]) -> go.Figure:
    fig = go.Figure()
    for series in sorted({c["series"] for c in curves}):
        mine = [c for c in curves if c["series"] == series]
        ks = [c["k"] for c in mine]
        fig.add_trace(go.Scatter(name=f"{series} pass@k", x=ks, y=[c["pass@k"] for c in mine], mode="lines+markers",
                                 line={"color": colors[series]}))
        fig.add_trace(go.Scatter(name=f"{series} pass^k", x=ks, y=[c["pass^k"] for c in mine], mode="lines+markers",
                                 line={"dash": "dash", "color": colors[series]}))
    fig.update_xaxes(title="k (attempts)", dtick=1)
    fig.update_yaxes(range=[0, 1.05])
    return _layout(fig, "pass@k (any of k succeeds) and pass^k (all k succeed)")


def distribution_figure(dists: dict[str, dict[str, list[float]]], colors: dict[str, str]) -> go.Figure:
    measures = ("steps", "tokens", "seconds")
    fig = make_subplots(rows=1, cols=3, subplot_titles=("steps per episode", "tokens per episode", "seconds per episode"))
    for col, measure in enumerate(measures, start=1):
        for series, values in sorted(dists[measure].items()):
            fig.add_trace(go.Box(name=series, y=values, boxpoints="all", jitter=0.4, pointpos=0, marker_size=3,
                                 legendgroup=series, showlegend=col == 1, marker_color=colors[series]), row=1, col=col)
    return _layout(fig, "Steps, tokens and time per episode")


def failure_figure(rows: list[dict]) -> go.Figure:
    fig = go.Figure()
    series = [r["series"] for r in rows]
    for boundary in BOUNDARIES:
        fig.add_trace(go.Bar(name=f"infra: {boundary}", x=series, y=[r[boundary] for r in rows]))
    fig.add_trace(go.Bar(name="the episode's own failure (scored 0)", x=series, y=[r[EPISODE_FAILURE] for r in rows]))
    fig.add_trace(go.Bar(name="graded below full reward", x=series, y=[r["graded"] for r in rows]))
    fig.update_layout(barmode="stack")
    fig.update_yaxes(title="episodes")
    return _layout(fig, "Failures by boundary (infrastructure: not scored; the episode's own: scored 0) and episodes below full reward")


def comparison_figure(rows: list[dict]) -> go.Figure:
    envs = sorted({r["value"] for r in rows})
    series = sorted({r["series"] for r in rows})
    cell = {(r["series"], r["value"]): r["success"] for r in rows}
    fig = go.Figure(go.Heatmap(z=[[cell.get((s, e)) for e in envs] for s in series], x=envs, y=series,
                               zmin=0, zmax=1, colorscale="RdYlGn", colorbar={"title": "success"}))
    return _layout(fig, "Side by side: success per environment", 160 + 40 * len(series))


def _cut(text: object) -> object:
    if isinstance(text, str) and len(text) > TEXT_LIMIT:
        return text[:TEXT_LIMIT] + f"\n… ({len(text) - TEXT_LIMIT} more characters)"
    return text


def trajectories(runs: list[Run], facts: list[dict]) -> dict[str, dict]:
    """Per rollout id: what the viewer shows (messages cut to TEXT_LIMIT characters each)."""
    fact_of = {f["rollout_id"]: f for f in facts}
    out = {}
    for run in runs:
        for r in run.rollouts:
            messages = [{**m, "content": _cut(m.get("content"))} for m in r.messages]
            out[r.rollout_id] = {
                "fact": fact_of[r.rollout_id], "messages": messages,
                "checks": [c.model_dump() for c in r.checks],
                "state_diff": {env: d.model_dump() for env, d in r.state_diff.items()},
                "failure": r.failure.model_dump() if r.failure else None,
                "usage": r.usage.model_dump(), "timings": r.timings.model_dump(),
            }
    return out


def _script_json(value: object) -> str:
    """JSON safe inside a <script> block: no '</' can close it early."""
    return json.dumps(value, ensure_ascii=False).replace("</", "<\\/").replace("<!--", "<\\!--")


def render_html(data: dict, runs: list[Run]) -> str:
    colors = colors_of([row["series"] for row in data["series"]])
    figures = [("breakdown-" + dim, breakdown_figure(dim, data["breakdowns"][dim], colors)) for dim in DIMENSIONS]
    figures += [("pass-curves", pass_figure(data["pass_curves"], colors)),
                ("distributions", distribution_figure(data["distributions"], colors)),
                ("failures", failure_figure(data["failures"]))]
    if len(data["series"]) > 1:
        figures.insert(0, ("comparison", comparison_figure(data["breakdowns"]["env"])))
    plots = [{"id": name, "html": fig.to_html(full_html=False, include_plotlyjs=False, div_id=name,
                                              config={"displaylogo": False, "responsive": True})}
             for name, fig in figures]
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined)
    runs_view = [{**run, "pass_keys": sorted({k for row in run["by_agent_and_split"] for k in row if k.startswith("pass")},
                                             key=lambda k: (k[4], int(k[5:])))} for run in data["runs"]]
    return env.get_template("report.html.j2").render(
        data={**data, "runs": runs_view}, plots=plots, plotly_js=get_plotlyjs(),
        trajectories_json=_script_json(trajectories(runs, data["episodes"])))
