"""Broadside simulation engines: dice, runner, statistics and the three games."""

from simulator.compiled import (
    arguments_without_aliases,
    borrow_arguments,
    compile_nested_calls_once,
    index_without_wraparound,
)

__version__ = "0.1.0"

compile_nested_calls_once()  # before any engine compiles: see simulator.compiled
borrow_arguments()  # likewise: see simulator.compiled
index_without_wraparound()  # likewise
arguments_without_aliases()  # likewise
