"""A package run with ``python -m compile_pkg.train``: relative imports, argparse, an exit status."""
