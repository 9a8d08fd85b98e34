"""Tests of tracers/capture/."""
