"""`envcraft bench`: how fast the farm is, each figure beside a baseline measured in the same run.

- latency.py: `envcraft bench` (acquire, reset and tool-call figures beside spawning a server per episode);
- figures.py: its further figures (tool calls beside the SDK, shell commands per sandbox, many live episodes, the
  Docker launcher); bfcl.py: a BFCL episode's figures beside ours;
- scale.py: `envcraft bench --scale` (gateway calls/s, gold replay episodes/s, sharding); load.py: the load
  generator process it starts; on_ray.py: `run --ray` on one node and two.

Only the CLI imports this package (the import-graph test keeps it so): nothing an episode runs depends on it.
Foreign benchmarks (BFCL and the like, envcraft.benchmarks) are another thing: their episodes run through
registry/gateway_benchmarks.py, harness/farm_benchmarks.py and harness/benchmark_runs.py.
"""
