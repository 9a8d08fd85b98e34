"""Tests of tracers/vocabulary/."""
