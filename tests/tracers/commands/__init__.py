"""Tests of tracers/commands/."""
