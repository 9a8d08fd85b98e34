"""Tests of tracers/."""
