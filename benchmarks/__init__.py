"""Benchmarks that measure threadline's own pipeline (see /bench/README.md of the project)."""
