"""The shared core: task, check, initial-state and rollout models, and grading.

It imports nothing else of EnvCraft; registry, harness and generator import it.
"""
