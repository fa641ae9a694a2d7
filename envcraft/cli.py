"""`envcraft`: one console script, thin over the packages. Subcommands: list, serve, run, report, export,
bench, generate, audit, catalog, tasks, pack, doctor."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from envcraft.core.paths import SERVERS, TASKS
from pydantic import ValidationError

from envcraft import __version__
from envcraft.registry.clients import CLIENTS


def _list(args: argparse.Namespace) -> int:
    from envcraft.benchmarks.registry import every
    from envcraft.harness.terminal import console, table
    from envcraft.registry.catalog import discover

    environments = discover()
    rows = [[name, env.manifest.env.kind, len(env.manifest.env.tools), ", ".join(env.manifest.env.archetypes)]
            for name, env in environments.items()]
    missing = []
    for bench in every():  # standard benchmarks served by the farm, under their own kind
        if problem := bench.installed():
            missing.append(f"{bench.name}: {problem}")
            continue
        rows += [[e.name, e.kind, e.tools, f"{e.tasks} tasks of {bench.name} (envcraft run --bench {bench.name})"]
                 for e in bench.environments()]
    out = console()
    out.print(table(["environment", "kind", "tools", "archetypes"], rows, right=["tools"]))
    served = len(rows) - len(environments)
    out.print(f"{len(environments)} environment(s)" + (f", and {served} of standard benchmarks" if served else "")
              + "".join(f"\n{line}" for line in missing))
    return 0


def _serve(args: argparse.Namespace) -> int:
    if args.all:
        from envcraft.registry.gateway import serve_gateway

        if args.workers > 1 or args.ray:
            from envcraft.registry.gateway_pool import serve_pool

            return serve_pool(host=args.host, port=args.port, token=args.token, max_episodes=args.max_episodes,
                              tasks_dir=args.tasks_dir, idle_seconds=args.idle_seconds, workers=args.workers,
                              advertise_host=args.advertise_host, ray=args.ray, grade_seconds=args.grade_seconds)
        return serve_gateway(host=args.host, port=args.port, token=args.token, max_episodes=args.max_episodes,
                             tasks_dir=args.tasks_dir, idle_seconds=args.idle_seconds, advertise_host=args.advertise_host,
                             grade_seconds=args.grade_seconds)
    if not args.env:
        raise ValueError("name an environment (envcraft list shows them) or pass --all for the gateway")
    from envcraft.harness.serve import serve

    return serve(args.env, http=not args.stdio, host=args.host, port=args.port, workspace=args.workspace,
                 client=args.client)


def _run(args: argparse.Namespace) -> int:
    from envcraft.harness.agent_options import AgentOptions
    from envcraft.harness.episode import EpisodeBudget
    from envcraft.harness.run import RunSettings, run_main_job
    from envcraft.harness.shards import parse_workers

    limits = EpisodeBudget(max_steps=args.max_steps, max_tokens=args.max_tokens, max_call_tokens=args.max_call_tokens,
                    max_seconds=args.max_seconds, tool_seconds=args.tool_timeout)
    options = AgentOptions(temperature=args.temperature, request_timeout=args.request_timeout,
                           model_retries=args.model_retries, system_prompt_file=args.system_prompt,
                           return_token_ids=args.return_token_ids, logprobs=args.logprobs)
    settings = RunSettings(
        envs=args.env, tasks_dir=args.tasks_dir, agents=args.agent, base_url=args.base_url, api_key=args.api_key,
        model=args.model, launcher=args.launcher, sandbox=args.sandbox, concurrency=args.concurrency, out=args.out, limit=args.limit,
        split=args.split, attempts=args.attempts, retries=args.retries, limits=limits, agent_options=options, ray=args.ray,
        workers=parse_workers(args.workers), bench=args.bench, category=args.category)
    return run_main_job(settings)


def _bench(args: argparse.Namespace) -> int:
    if args.scale:
        from envcraft.harness.bench.scale import run_scale_bench

        figures = tuple(f.strip() for f in args.figures.split(",") if f.strip())
        if not figures or set(figures) - {"gateway", "gold", "ray"}:
            raise ValueError(f"--figures takes a comma list of gateway, gold, ray; got {args.figures!r}")
        return run_scale_bench(args.json, seconds=args.seconds, figures=figures)
    from envcraft.harness.bench.latency import run_bench, run_grading_bench

    if args.grading:
        return run_grading_bench(args.env, args.n, args.json)
    return run_bench(args.env, args.n, args.json, args.live)


def _doctor(args: argparse.Namespace) -> int:
    from envcraft.registry.doctor import run_doctor

    return run_doctor()


def _pack(args: argparse.Namespace) -> int:
    from envcraft.registry.catalog import get
    from envcraft.registry.pack import pack

    out = pack(get(args.env), args.out)
    print(f"packed {args.env} into {out}: run `python {out / 'server.py'} --workspace <a copy of its seed/>` "
          "with only mcp==2.3.0 installed")
    return 0


def _generate(args: argparse.Namespace) -> int:
    if args.scenario:
        from envcraft.generator.commands import generate_from_scenario

        return generate_from_scenario(args.scenario, args.out, args.base_url, args.api_key, args.model, args.rounds)
    from envcraft.generator.commands import generate

    return generate(args.blueprint, args.out, verbose=args.verbose)


def _audit(args: argparse.Namespace) -> int:
    from envcraft.generator.commands import audit_envs

    return audit_envs(args.env, as_json=args.json)


def _catalog(args: argparse.Namespace) -> int:
    from envcraft.generator.catalog_stats import print_stats

    return print_stats(run_audit=args.audit, as_json=args.json)


def _tasks(args: argparse.Namespace) -> int:
    if args.tasks_command in ("stats", "sample") and not Path(args.dir).is_dir():
        raise FileNotFoundError(f"no task folder {args.dir}: `envcraft tasks generate --out {args.dir}` writes one")
    if args.tasks_command == "stats":
        from envcraft.generator.tasks.stats import stats

        print(stats(args.dir, as_json=args.json) if args.json else stats(args.dir))
        return 0
    if args.tasks_command == "sample":
        from envcraft.generator.tasks.sample import render_sample

        print(render_sample(args.dir, args.seed, args.n, args.like), end="")
        return 0
    from envcraft.generator.tasks.generate import generate

    report = generate(seed=args.seed, per_env=args.per_env, envs=args.env, out=args.out, workers=args.workers,
                      compress=args.gzip, rewrite=args.rewrite_url, rewrite_model=args.rewrite_model)
    return 0 if report["tasks"] else 1


def _tasks_audit(args: argparse.Namespace) -> int:
    import json

    import anyio

    from envcraft.generator.tasks.audit import audit, table, violations
    from envcraft.replays import cross_check

    report = audit(args.sample, args.seed, args.dir)
    print(json.dumps(report.model_dump(), sort_keys=False) if args.json else table(report))
    broken = violations(report)
    for name, what in broken.items():
        print(f"  {name}: {what}", file=sys.stderr)
    if args.mcp:
        rows = anyio.run(cross_check, args.mcp, args.seed, args.dir)  # the same store the audit read
        differ = [r for r in rows if r[2] != r[3]]
        print(f"MCP cross-check: {len(rows) - len(differ)}/{len(rows)} mutants graded the same through the real "
              "servers" + "".join(f"\n  {t} {m}: fast {a} mcp {b}" for t, m, a, b in differ), file=sys.stderr)
        if differ:
            return 1
    return 1 if broken else 0


def _tasks_replay(args: argparse.Namespace) -> int:
    import json

    import anyio

    from envcraft.replays import replay_store

    result = anyio.run(lambda: replay_store(args.dir, args.env, args.limit, args.concurrency,
                                            log=lambda m: print(m, file=sys.stderr)))
    print(json.dumps(result, indent=1) if args.json else
          f"{result['tasks']} tasks' gold replayed through the registry and MCP (in-process) in {result['seconds']}s: "
          f"gold below 1.0: {len(result['gold_below_one'])}, no-op above 0: {len(result['noop_above_zero'])}"
          + "".join(f"\n  {t} gold {r}: {why}" for t, r, why in result["gold_below_one"][:20]))
    return 1 if result["gold_below_one"] or result["noop_above_zero"] else 0


def _report(args: argparse.Namespace) -> int:
    from envcraft.harness.reports.command import report

    return report(args.run, html=args.html, as_json=args.json)


def _export(args: argparse.Namespace) -> int:
    from envcraft.harness.export import export

    return export(args.run, args.format, args.out, args.min_reward, tasks_dir=args.tasks_dir,
                  gateway_url=args.gateway_url)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="envcraft", description="An MCP server farm for tool-using agents.")
    parser.add_argument("--version", action="version", version=f"envcraft {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    commands.add_parser("list", help="list environments from their manifests").set_defaults(fn=_list)

    serve = commands.add_parser("serve", help="serve one environment, or --all through the episode gateway")
    serve.add_argument("env", nargs="?")
    serve.add_argument("--all", action="store_true", help="gateway: every environment, a URL per episode, a control API")
    serve.add_argument("--token", default=None, help="control API token for --all (default: random, printed)")
    serve.add_argument("--max-episodes", type=int, default=512, help="live episodes the gateway holds at most")
    serve.add_argument("--idle-seconds", type=float, default=900.0,
                       help="--all: delete an episode after this long without an agent request")
    serve.add_argument("--tasks-dir", type=Path, default=None, help="task files the gateway grades against (default: tasks/)")
    serve.add_argument("--grade-seconds", type=float, default=30.0,
                       help="--all: one grade's time limit; a grade past it is the episode's failure (reward 0)")
    serve.add_argument("--advertise-host", default=None,
                       help="the address episode URLs name (default: --host, or this machine's name for 0.0.0.0); "
                       "with --ray it names the control API, and each worker's URLs name its own node's address")
    serve.add_argument("--workers", type=int, default=1,
                       help="--all: gateway worker processes behind one control API (throughput grows with cores)")
    serve.add_argument("--ray", nargs="?", const="auto", default=None, metavar="ADDRESS",
                       help="--all: gateway workers as Ray actors, --workers per node, across a cluster")
    serve.add_argument("--stdio", action="store_true", help="serve over stdio (for an mcpServers 'command' entry)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument("--workspace", help="use this folder as the workspace instead of a fresh copy of the seed")
    serve.add_argument("--client", choices=CLIENTS, help="print the entry this client reads (with --stdio: print "
                       "the stdio entry and exit, the client starts the server itself)")
    serve.set_defaults(fn=_serve)

    run = commands.add_parser("run", help="run agents over tasks, grade, write rollouts, print a summary")
    run.add_argument("--env", action="append", help="environment(s) to run (default: every one with tasks)")
    run.add_argument("--tasks-dir", default=None, help="folder of <env>.jsonl task files (default: tasks/)")
    run.add_argument("--agent", action="append", help="gold, noop or claw (default: claw with an endpoint, else gold+noop)")
    run.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint (or ENVCRAFT_BASE_URL)")
    run.add_argument("--api-key", default=None, help="API key (or ENVCRAFT_API_KEY)")
    run.add_argument("--model", default=None, help="model name (or ENVCRAFT_MODEL)")
    run.add_argument("--launcher", default="inprocess", metavar="{inprocess,stdio,docker}",
                     help="how servers run: inprocess (pooled, fastest), stdio (a process per episode) or docker "
                          "(a container per episode, whose shell commands run in the container)")
    run.add_argument("--sandbox", default="auto", metavar="{auto,bwrap,process}",
                     help="where shell commands run: bwrap (auto's choice on Linux) or process (NOT isolating: "
                          "development only)")
    run.add_argument("--concurrency", type=int, default=4)
    run.add_argument("--attempts", type=int, default=1, help="episodes per task (for pass^k)")
    run.add_argument("--bench", default=None, metavar="NAME",
                     help="a standard benchmark's tasks instead of ours, graded by its own checker: bfcl-multi-turn, "
                     "or the path of a benchmark module of your own (benchmarks/README.md)")
    run.add_argument("--category", default=None, help="--bench: one category (e.g. multi_turn_miss_func; default: all)")
    run.add_argument("--split", choices=["train", "test", "all"], default="all")
    run.add_argument("--limit", type=int, default=None, help="tasks per environment (default: all with --env, else a sample of 5; 0: all)")
    run.add_argument("--out", default=None, help="run folder; an existing one is resumed (default: runs/<new id>)")
    run.add_argument("--retries", type=int, default=2, help="a resume re-runs an episode that failed at the "
                     "infrastructure (model, server, sandbox) while it has failed at most this often")
    run.add_argument("--ray", nargs="?", const="auto", default=None, metavar="ADDRESS",
                     help="shard episodes over Ray actors, one farm worker per node: a cluster address "
                          "(host:port), 'auto' (the running cluster; the default with no value) or 'local'")
    run.add_argument("--workers", default="1", metavar="N",
                     help="local worker processes sharing the episodes, each with its own farm and --concurrency "
                          "(default 1: one process; 'auto': one per core)")
    limits = run.add_argument_group("limits (per episode)")
    limits.add_argument("--max-steps", type=int, default=40, help="model calls per episode")
    limits.add_argument("--max-tokens", type=int, default=32_768, help="episode budget: transcript length in tokens")
    limits.add_argument("--max-call-tokens", type=int, default=2_048, help="completion budget of one model call")
    limits.add_argument("--max-seconds", type=float, default=600.0, help="wall clock per episode")
    limits.add_argument("--tool-timeout", type=float, default=120.0, help="seconds one tool call may take")
    model = run.add_argument_group("the claw agent's model calls")
    model.add_argument("--temperature", type=float, default=0.0)
    model.add_argument("--request-timeout", type=float, default=120.0, help="seconds per model request")
    model.add_argument("--model-retries", type=int, default=2, help="retries of one failed model request")
    model.add_argument("--system-prompt", default=None, help="file whose text replaces the built-in system prompt")
    model.add_argument("--return-token-ids", action="store_true",
                       help="ask the endpoint for prompt/completion token ids (vLLM return_token_ids); kept on rollouts")
    model.add_argument("--logprobs", action="store_true", help="ask for completion logprobs; kept on rollouts")
    run.set_defaults(fn=_run)

    report = commands.add_parser("report", help="success, reward, pass@k and pass^k; --html: plots and trajectories")
    report.add_argument("run", type=Path, nargs="+", help="run folder(s) (runs/<id>); several are compared side by side")
    report.add_argument("--html", type=Path, default=None, help="write a self-contained HTML report here")
    report.add_argument("--json", nargs="?", const="-", default=None, metavar="OUT",
                        help="the same numbers as JSON, to stdout or to OUT")
    report.set_defaults(fn=_report)

    export = commands.add_parser("export", help="rollouts for SFT, or task prompts for verl or SkyRL")
    export.add_argument("run", type=Path)
    export.add_argument("--format", choices=["sft", "verl", "skyrl"], required=True)
    export.add_argument("--out", type=Path, required=True, help="a .jsonl or .parquet file (verl: .parquet)")
    export.add_argument("--tasks-dir", type=Path, default=None, help="the task folder the run used (default: the one it recorded)")
    export.add_argument("--min-reward", type=float, default=1.0, help="sft: keep rollouts with at least this reward")
    export.add_argument("--gateway-url", default="http://127.0.0.1:8765",
                        help="verl: the gateway the tool config points at (its token: ENVCRAFT_GATEWAY_TOKEN)")
    export.set_defaults(fn=_export)

    bench = commands.add_parser("bench", help="acquire, reset and tool-call figures beside a spawn-per-episode baseline")
    bench.add_argument("--env", default="office")
    bench.add_argument("-n", type=int, default=30, help="samples per figure")
    bench.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    bench.add_argument("--live", type=int, default=256, help="episodes held live at once for the concurrency figure")
    bench.add_argument("--scale", action="store_true", help="throughput instead: gateway calls/s (1 and 2 workers vs the "
                       "SDK's standalone server), gold replay episodes/s, run --ray on 1 vs 2 nodes")
    bench.add_argument("--seconds", type=float, default=8.0, help="--scale: seconds of load per throughput figure")
    bench.add_argument("--figures", default="gateway,gold,ray",
                       help="--scale: which figures, a comma list of gateway, gold, ray (default: all)")
    bench.add_argument("--grading", action="store_true", help="only the grading figures: an answer check and a "
                       "question task's grade with the world index found vs built each time (no server, no Docker)")
    bench.set_defaults(fn=_bench)

    commands.add_parser("doctor", help="which containment this host gives (sandbox, cgroups, grep engine, docker)") \
        .set_defaults(fn=_doctor)

    packer = commands.add_parser("pack", help="write a standalone copy of one environment, runtime vendored in")
    packer.add_argument("env", help="environment name (envcraft list)")
    packer.add_argument("out", type=Path, help="a new (or empty) folder to write")
    packer.set_defaults(fn=_pack)

    generate = commands.add_parser("generate", help="compile blueprints into servers/, audit each, install those that pass")
    generate.add_argument("--blueprint", action="append", type=Path, help="blueprint YAML (default: all of generator/blueprints/)")
    generate.add_argument("--out", type=Path, default=SERVERS,
                          help="where environment folders go (default: servers/)")
    generate.add_argument("-v", "--verbose", action="store_true", help="also print warnings of passing environments")
    generate.add_argument("--scenario", help="describe a new environment in prose; an LLM writes its blueprint")
    generate.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint (or ENVCRAFT_BASE_URL)")
    generate.add_argument("--api-key", default=None, help="API key (or ENVCRAFT_API_KEY)")
    generate.add_argument("--model", default=None, help="model name (or ENVCRAFT_MODEL)")
    generate.add_argument("--rounds", type=int, default=3, help="repair rounds after a failed validation or audit")
    generate.set_defaults(fn=_generate)

    audit = commands.add_parser("audit", help="audit environments: static checks and a runtime exploration")
    audit.add_argument("env", nargs="*", help="environment(s) to audit (default: every one in servers/)")
    audit.add_argument("--json", action="store_true", help="print the full audit reports as JSON")
    audit.set_defaults(fn=_audit)

    catalog = commands.add_parser("catalog", help="what the catalog holds")
    catalog_commands = catalog.add_subparsers(dest="catalog_command", required=True)
    stats = catalog_commands.add_parser("stats", help="counts per kind and archetype, tools, signatures, audit results")
    stats.add_argument("--audit", action="store_true", help="also audit every environment (about 30 s)")
    stats.add_argument("--json", action="store_true")
    stats.set_defaults(fn=_catalog)

    tasks = commands.add_parser("tasks", help="generate verified tasks from the tool graphs; task statistics")
    tasks_commands = tasks.add_subparsers(dest="tasks_command", required=True)
    tasks_dir = TASKS
    make = tasks_commands.add_parser("generate", help="tasks/<env>.jsonl for every environment compiled from a blueprint")
    make.add_argument("--seed", type=int, default=0, help="same seed, same bytes")
    make.add_argument("--per-env", type=int, default=160, help="validated tasks per environment (the most; generate()'s default)")
    make.add_argument("--env", action="append", help="only these environments (default: all compiled from blueprints)")
    make.add_argument("--out", type=Path, default=tasks_dir, help="where task files go (default: tasks/)")
    make.add_argument("--workers", type=int, default=None, help="worker processes (default: one per core)")
    make.add_argument("--gzip", action="store_true", help="write <env>.jsonl.gz instead of <env>.jsonl")
    make.add_argument("--rewrite-url", default=None, help="OpenAI-compatible endpoint for an instruction rewrite pass "
                      "(or ENVCRAFT_REWRITE_BASE_URL; off by default)")
    make.add_argument("--rewrite-model", default=None, help="model for the rewrite pass (or ENVCRAFT_REWRITE_MODEL)")
    make.set_defaults(fn=_tasks)
    show = tasks_commands.add_parser("stats", help="counts per environment, kind, archetype, tier, split; drops")
    show.add_argument("--dir", type=Path, default=tasks_dir, help="task folder (default: tasks/)")
    show.add_argument("--json", action="store_true", help="the figures as one JSON object")
    show.set_defaults(fn=_tasks)
    pick = tasks_commands.add_parser("sample", help="instructions of a fixed-seed sample of tasks, verbatim")
    pick.add_argument("--dir", type=Path, default=tasks_dir, help="task folder (default: tasks/)")
    pick.add_argument("--seed", type=int, default=12)
    pick.add_argument("--n", type=int, default=12)
    pick.add_argument("--like", type=Path, default=None, help="the same ids as an earlier sample file")
    pick.set_defaults(fn=_tasks)
    check = tasks_commands.add_parser("audit", help="mutate gold solutions of a task sample; how the reward moves")
    check.add_argument("--sample", type=int, default=300, help="tasks to sample (default: 300)")
    check.add_argument("--seed", type=int, default=0)
    check.add_argument("--dir", type=Path, default=tasks_dir, help="task folder (default: tasks/)")
    check.add_argument("--json", action="store_true", help="print {sample, mutations: {name: {n, kept_full, partial, zero}}}")
    check.add_argument("--mcp", type=int, default=0, help="also replay the mutants of this many tasks through the real "
                       "MCP servers and compare rewards (default: 0)")
    check.set_defaults(fn=_tasks_audit)
    again = tasks_commands.add_parser("replay", help="replay every task's gold through the registry and MCP; "
                                      "print the time and any task whose gold is not 1.0 or no-op not 0")
    again.add_argument("--dir", type=Path, default=tasks_dir, help="task folder (default: tasks/)")
    again.add_argument("--env", action="append", help="only tasks whose first environment is this")
    again.add_argument("--limit", type=int, default=None, help="only the first N tasks")
    again.add_argument("--concurrency", type=int, default=4)
    again.add_argument("--json", action="store_true")
    again.set_defaults(fn=_tasks_replay)
    return parser


def quiet_http_loggers() -> None:
    """Third-party clients log every request at INFO (`HTTP Request: POST ...`), burying the progress line."""
    import logging

    for name in ("httpx", "httpx2", "httpcore", "openai", "mcp", "uvicorn.access"):
        logging.getLogger(name).setLevel(logging.WARNING)


def silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush finds no closed pipe to complain about."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    quiet_http_loggers()
    try:
        code = args.fn(args)
        sys.stdout.flush()  # inside the try: a reader gone before the last flush is a closed pipe too
        return code
    except (KeyError, FileNotFoundError, ValueError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        if isinstance(exc, ValidationError):  # our own checks' words, without pydantic's frame around them
            message = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())
        print(f"envcraft {args.command}: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader left (`envcraft report --json | head`): what it took is all it wanted
        silence_stdout()
        return 141  # what a shell reports for a writer ended by SIGPIPE
    except KeyboardInterrupt:
        if args.command == "run":
            print("interrupted: completed rollouts are saved; run again with the same --out to resume", file=sys.stderr)
        else:
            print(f"envcraft {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
