"""Eager against torch.compile: each mode and batch size timed in a fresh process, written as JSON and SVG."""
