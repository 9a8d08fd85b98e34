"""Tests of tracers/analysis/."""
