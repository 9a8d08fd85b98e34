"""Tests of tracers/torchlogs/."""
