"""HTML for a recorded trace (no Sphinx, no JavaScript): shared by the docs directive and the personal page.

No names are handed on here: the page's modules need Jinja2, and ``links``, ``options`` and ``save`` must import
without it (the tracer runs where only torch is installed)."""
