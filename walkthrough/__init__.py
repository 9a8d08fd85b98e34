"""Excerpts of torch's own source, pulled by qualified name, and verify against any release; a Sphinx extension."""

from __future__ import annotations

from tracers.vocabulary.releases import TOOL_VERSION as __version__  # noqa: E402 - one version for the package


def setup(app):  # noqa: ANN001, ANN201 - Sphinx's extension entry point
    """Register the ``torch-excerpt`` directive and the ``torch-symbol``/``torch-fact`` roles."""
    # Imported here so that ``python -m walkthrough verify`` never needs Sphinx installed.
    from walkthrough.sphinx.directives import setup as setup_directives

    return setup_directives(app)
