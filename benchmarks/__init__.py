"""Benchmarks: ``python -m benchmarks.bench [NAME…]`` (``make bench`` runs them all)."""
