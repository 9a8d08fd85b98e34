"""Tests of tracers/measure/."""
