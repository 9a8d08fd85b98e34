"""Tests of tracers/tracefile/."""
