"""`envcraft report`: what a run folder says about the agents that ran in it."""
