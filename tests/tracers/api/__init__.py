"""Tests of tracers/api/."""
