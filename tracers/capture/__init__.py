"""What runs inside the traced process: hooks on the pipeline's entry points, the recorder, torch's own records."""
