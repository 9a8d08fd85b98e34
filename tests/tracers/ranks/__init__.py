"""Tests of tracers/ranks/."""
