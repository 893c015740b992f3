"""Benchmarks of threadline's own pipeline, run from the repository root (see README.md here).

Not part of the installed `threadline` package: `python -m benchmarks --help` lists them.
"""
