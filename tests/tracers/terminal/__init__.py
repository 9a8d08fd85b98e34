"""Tests of tracers/terminal/."""
