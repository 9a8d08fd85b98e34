"""Terminal text, beside the page's HTML: the trace summary, its findings, compile time by your code, two traces
compared; ``analysis/`` gives the facts, this wing only says them."""
