"""Tests of walkthrough/toolbox/."""
