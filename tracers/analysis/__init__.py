"""A trace in, facts out (no torch needed): the call tree, the compile table, totals, the summary, the diff."""
