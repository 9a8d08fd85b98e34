"""The Sphinx layer of the release site (thin: its logic is in walkthrough.releases, tested without Sphinx)."""
