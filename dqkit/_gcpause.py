"""Build big lookup tables without the cyclic garbage collector running over them half-built.

Tables of tens of thousands of small objects (the ZIP facts, the spoof lists) trigger a collection every 700
allocations, each walking every object built so far: about half of their build time. They hold no cycles to
collect, so the collector is paused while they are built and restored (if it was on) afterwards.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def gc_paused() -> Iterator[None]:
    """No automatic collection inside the block; the collector's previous state afterwards."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def built_without_gc(fn: Callable[P, R]) -> Callable[P, R]:
    """`fn` run with the collector paused (see `gc_paused`)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with gc_paused():
            return fn(*args, **kwargs)

    return wrapper
