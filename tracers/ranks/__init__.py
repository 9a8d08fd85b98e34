"""Distributed runs: one trace per rank, merged into one timeline, with the ranks' divergence found."""
