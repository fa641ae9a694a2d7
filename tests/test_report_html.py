"""The HTML report of small real runs, rendered by headless Chromium (Debian's `chromium`) with every
request beyond the file itself refused: the plots draw, the numbers equal summary.json, a trajectory opens,
and text an agent wrote is shown, never run."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from envcraft.core.rollout import Rollout

from tests.test_run import envcraft

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(CHROMIUM is None, reason="no chromium: .ci/setup installs Debian's chromium")]
HOSTILE = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'
PLOTS = ["breakdown-env", "breakdown-kind", "breakdown-archetype", "breakdown-tier", "breakdown-split",
         "pass-curves", "distributions", "failures"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    first, second = root / "r1", root / "r2"
    assert envcraft("run", "--env", "office", "--limit", "3", "--attempts", "2", "--out", str(first)).returncode == 0
    assert envcraft("run", "--env", "office", "--agent", "gold", "--limit", "2", "--out", str(second)).returncode == 0
    # An agent's message that is markup: the page must show it as text and never run it.
    lines = (first / "rollouts.jsonl").read_text().splitlines()
    rollout = Rollout.model_validate_json(lines[0])
    rollout.messages[0]["content"] = HOSTILE
    (first / "rollouts.jsonl").write_text("\n".join([rollout.model_dump_json(), *lines[1:]]) + "\n")
    return root, first, second


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


def open_offline(browser, page_file: Path):
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    refused: list[str] = []

    def only_the_file(route):
        if route.request.url.startswith("file:"):
            return route.continue_()
        refused.append(route.request.url)
        return route.abort()

    page.route("**/*", only_the_file)
    page.goto(page_file.as_uri())
    page.wait_for_selector(".plotly-graph-div .main-svg")
    return page, refused


def shoot(page, name: str, tmp: Path) -> None:
    folder = Path(os.environ.get("ENVCRAFT_SCREENSHOTS", tmp))
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / name), full_page=False)


def test_report_of_one_run_renders_offline_with_plots_numbers_and_trajectories(runs, browser):
    root, first, _ = runs
    html = root / "one.html"
    done = envcraft("report", str(first), "--html", str(html))
    assert done.returncode == 0, done.stderr
    page, refused = open_offline(browser, html)
    assert refused == []  # nothing but the file itself was asked for

    for plot in PLOTS:  # every plot is drawn: an SVG with at least one trace in it
        assert page.locator(f"#{plot} .main-svg").count() >= 1, plot
        assert page.locator(f"#{plot} g.trace").count() >= 1, plot
    assert page.locator("#comparison g.hm").count() == 1  # gold beside noop, per environment

    summary = json.loads((first / "summary.json").read_text())
    assert {row["agent"] for row in summary} == {"gold", "noop"}
    for row in summary:
        cells = page.locator(f'table#summary-0 tr[data-agent="{row["agent"]}"] td[data-field]')
        shown = {cells.nth(i).get_attribute("data-field"): (cells.nth(i).get_attribute("data-value"), cells.nth(i).inner_text())
                 for i in range(cells.count())}
        assert float(shown["episodes"][0]) == row["episodes"] == int(shown["episodes"][1])
        assert float(shown["success_rate"][0]) == pytest.approx(row["success_rate"])
        assert shown["success_rate"][1] == f"{row['success_rate']:.1%}"
        assert shown["mean_reward"][1] == f"{row['mean_reward']:.3f}"
        assert shown["mean_steps"][1] == f"{row['mean_steps']:.1f}"
        assert shown["mean_seconds"][1] == f"{row['mean_seconds']:.3f}"
        assert int(shown["infra_failures"][1]) == row["infra_failures"]

    rollouts = [Rollout.model_validate_json(line) for line in (first / "rollouts.jsonl").read_text().splitlines()]
    assert page.locator("tr.episode").count() == len(rollouts)
    gold = next(r for r in rollouts if r.agent == "gold" and r.messages[0]["content"] != HOSTILE)
    page.locator(f'tr.episode[data-rollout="{gold.rollout_id}"]').click()
    dialog = page.locator("dialog#trajectory[open]")
    dialog.wait_for()
    assert gold.task_id in dialog.locator("#t-title").inner_text()
    assert dialog.locator("#t-messages .msg").count() == len(gold.messages)
    calls = [c["function"]["name"] for m in gold.messages for c in m.get("tool_calls") or []]
    assert calls and dialog.locator("#t-messages .call").count() == len(calls)
    assert all(f"call {name}" in dialog.locator("#t-messages").text_content() for name in calls)
    assert dialog.locator("#t-checks tr.check").count() == len(gold.checks)
    assert dialog.locator('#t-checks tr.check[data-passed="true"]').count() == sum(c.passed for c in gold.checks)
    changed = next(iter(gold.state_diff["office"].tables))  # the gold solution changed a table
    assert changed in dialog.locator("#t-diff").inner_text()
    shoot(page, "report-trajectory.png", root)
    page.locator("#t-close").click()
    assert page.locator("dialog#trajectory[open]").count() == 0

    hostile = Rollout.model_validate_json((first / "rollouts.jsonl").read_text().splitlines()[0])
    page.locator(f'tr.episode[data-rollout="{hostile.rollout_id}"]').click()
    assert HOSTILE in page.locator("#t-messages").inner_text()  # shown as text
    assert page.evaluate("window.pwned") is None  # and never run
    assert page.locator("#t-messages img").count() == 0
    page.close()


def test_report_of_two_runs_compares_them_side_by_side(runs, browser):
    root, first, second = runs
    html = root / "two.html"
    done = envcraft("report", str(first), str(second), "--html", str(html), "--json", str(root / "two.json"))
    assert done.returncode == 0, done.stderr
    data = json.loads((root / "two.json").read_text())
    page, refused = open_offline(browser, html)
    assert refused == []
    assert page.locator("#comparison g.hm").count() == 1
    shown = page.locator("table#series tr td:first-child").all_inner_texts()
    assert shown == [row["series"] for row in data["series"]] and len(shown) == 3  # r1 gold, r1 noop, r2 gold
    assert page.locator("table.summary").count() == 2
    assert page.locator("#pass-curves g.trace").count() == 2 * len(data["series"])  # pass@k and pass^k each
    page.set_viewport_size({"width": 1300, "height": 1000})
    shoot(page, "report-overview.png", root)
    page.close()
