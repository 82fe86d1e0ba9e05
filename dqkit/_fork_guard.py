"""Locks a fork waits for, so that no forked worker starts with SQLite's own mutexes held by a thread it lacks.

`dqkit verify --workers` forks while the result cache's writer thread may be inside SQLite. SQLite's mutexes (the
file's lock table among them) are copied held into the child, whose first connection to the same file then waits
forever: a hang seen once in CI (tests/lead/test_verify_chunks.py). A store registers the lock its threads hold
around every SQLite call; a fork in this process first takes every registered lock (so no such call is under way),
and both sides let go after it.
"""

from __future__ import annotations

import os
import threading
import weakref
from typing import Any

_LOCKS: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
_HELD: list[Any] = []
_REGISTRY = threading.Lock()


def hold_at_fork(owner: object, lock: Any) -> None:
    """Have every fork of this process wait until `lock` (a Lock or RLock `owner` holds around SQLite) is free;
    forgotten with `owner`."""
    with _REGISTRY:
        _LOCKS[owner] = lock


def _before() -> None:
    _REGISTRY.acquire()
    for lock in list(_LOCKS.values()):
        lock.acquire()
        _HELD.append(lock)


def _after() -> None:
    while _HELD:
        _HELD.pop().release()
    _REGISTRY.release()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before, after_in_parent=_after, after_in_child=_after)
