"""threadline: multi-turn, strictly grounded chat over a team's documents."""

__version__ = "0.1.0"
