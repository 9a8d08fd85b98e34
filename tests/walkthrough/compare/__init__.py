"""Tests of walkthrough/compare/."""
