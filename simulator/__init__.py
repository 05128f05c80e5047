"""Broadside simulation engines: dice, runner, statistics and the three games."""

__version__ = "0.1.0"
