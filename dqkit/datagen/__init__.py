"""Generators of synthetic but realistic data that dqkit ships or benchmarks with (fixed seeds, reproducible)."""
