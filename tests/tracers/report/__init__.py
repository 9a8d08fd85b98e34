"""Tests of tracers/report/."""
