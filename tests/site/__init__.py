"""Tests of the site: its build, pages, README, container and the installed package."""
