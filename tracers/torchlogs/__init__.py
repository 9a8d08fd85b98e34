"""TORCH_TRACE logs read back into this tool's trace model: files found, records parsed, converted, ranks merged."""
