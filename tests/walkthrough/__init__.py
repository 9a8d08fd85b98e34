"""Tests of walkthrough/."""
