"""Tests of walkthrough/sphinx/."""
