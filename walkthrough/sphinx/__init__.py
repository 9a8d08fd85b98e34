"""The Sphinx layer: directives, roles and page hooks, thin over the plain functions of walkthrough and tracers."""
