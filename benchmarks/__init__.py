"""Benchmarks run by `nox -s bench`; never part of the tests."""
