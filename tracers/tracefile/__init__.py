"""The trace's data and its file: spans, artifacts, the stages table they refer to, compile ids, Chrome JSON."""
