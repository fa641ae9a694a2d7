"""Proving a build before it is installed: static checks, probes, the traps that break each rule, lints."""
