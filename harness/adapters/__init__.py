"""Trainer adapters over the episode API: OpenEnv, SkyRL-gym, verl; each imports its trainer package
only inside its own module, so the farm runs without any of them installed."""
