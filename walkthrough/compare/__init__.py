"""One script traced under two torch releases, each in its own venv, and what changed for it (``python -m walkthrough compare``)."""
