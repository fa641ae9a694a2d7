"""Topology-aware task engine: tool graphs -> chains -> executed plans -> verified tasks.

    envcraft tasks generate [--seed N] [--per-env N] [--env ...] [--out DIR] [--workers N] [--gzip]
    envcraft tasks stats [--dir DIR] [--json]
    envcraft tasks sample [--seed 12] [--n 12]

Modules, in pipeline order:
  env.py       an environment compiled from a blueprint: blueprint, app functions, seed tables/files
  graph.py     the tool graph of one environment (dataflow, state and scaffold-bridge edges)
  workflow.py  the cross-environment workflow graph (a value read in one env feeds a write in another)
  sampler.py   weighted random walks over a tool graph: reachable, diverse, deterministic chains
  choose.py    concrete argument values drawn from state (slots, enums, ranges, unique values)
  execute.py   binds a chain to rows and runs it on the app functions (the fast path)
  decoys.py    near-miss copies of target rows and stale decoy files
  describe.py  rows described by their distinguishing values (never by id)
  instruct.py  instruction turns: goals, not tool calls (a row's end state in plain words), personas, registers
  phrases.py   the plain-word outcome for every status ("the claim got the green light"), said of a row or "it",
               from phrases_common.py (the states most requests name) and phrases_long_tail.py (the rest);
               phrase_groups.py: statuses that read alike; phrase_reverse.py: each phrasing reads as one state
  gold.py      the gold ToolCalls, with a lookup inserted before any id the agent has not seen
  verify.py    checks from the diff between initial and gold final state, plus guards
  replay.py    runs ToolCalls on tables + files (domain and scaffold tools) and takes Snapshots
  validate.py  gold / no-op / random agent / ablations, graded with core.grading
  build.py     one task from one chain (write chains, questions); cross.py: two-environment tasks
  judgement.py part of the request breaks a rule: the refused change, the blocking fact the answer names
  notes.py     a value only a colleague's note in the workspace holds
  revert.py    a colleague's mistaken change to put back: only the change history holds the old value
  reasoning.py aggregates and comparisons over rows, conditional decisions, a second turn on what the first found
  batch.py     one change (or two, split by a threshold) for every row of a set, with the reason and the count
  realism.py   how much the store reads like a workplace and repeats itself (families, redundancy, openings)
  tiers.py     difficulty from the minimal solution and the reasoning it takes
  quality.py   naturalness lint: tool verbs in the request, step lists, raw enum values, template glitches
  rewrite.py   optional LLM rewrite of instruction turns (OpenAI-compatible endpoint)
  generate.py  every environment, in parallel and deterministically, to tasks/ (no repeats, no family over its
               cap per environment); stats.py: the summary
               (`envcraft tasks stats --json`); sample.py: a fixed-seed sample of instructions
"""
