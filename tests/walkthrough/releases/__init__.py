"""Tests of walkthrough/releases/."""
