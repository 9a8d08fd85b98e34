"""HTML for a recorded trace (no Sphinx, no JavaScript): shared by the docs directive and the personal page."""

from .fragment import STYLESHEET, render_body, render_fragment, render_header, stylesheet, stylesheet_path
from .options import ARTIFACT_KINDS, DEFAULT_ARTIFACTS, PARTS, Links, RenderOptions
from .page import render_page
from .versions import VersionCheck, check_version

__all__ = [
    "ARTIFACT_KINDS", "DEFAULT_ARTIFACTS", "PARTS", "STYLESHEET", "Links", "RenderOptions", "VersionCheck",
    "check_version", "render_body", "render_fragment", "render_header", "render_page", "stylesheet",
    "stylesheet_path",
]
