"""Seed worlds: rows and files deterministic from a seed, repaired until they obey every rule and invariant, with the history colleagues left."""
