"""The blueprint model and what its names mean: fields, the rules' ids and prose, paths through refs."""
