"""Small writers of the binary formats, for tests and benchmarks (they follow the docs' layout tables)."""
