"""The SQLite files dqkit keeps (the run history, the result cache, bulk batches, the shared rate counts): opened only
when they are regular files dqkit made or recognises, never anything else.

Why (issue 30): given a directory, a device node or a FIFO as `--history`, dqkit moved it aside and made a file in its
place (as root, `--history /dev/null` would have renamed /dev/null), and pointed at another program's SQLite database
it added its tables and switched the file to WAL. Now `check_store` looks before anything writes:
- no file, or an empty one: no store yet; `make_store` makes it;
- not a regular file (a directory, a device, a FIFO, a socket; a symbolic link is followed): `StoreError` naming the
  path and what it is;
- a regular file that holds SQLite with this store's mark (`PRAGMA application_id`): dqkit's; one without a mark
  whose tables are exactly the store's own (written before stores were marked): dqkit's too; anything else (not
  SQLite, another mark, other tables): `StoreError`. The file is only read to decide, never renamed or modified.

A new store is never seen half made (issue 29: several processes opening a new history store at once, one saw a
file with SQLite's header but neither mark nor tables yet and refused it as another program's, about 1 run in 4
under load). `make_store` marks the file in one exclusive SQLite transaction whose first and only write is the
file's first page, mark included, before any table or journal mode: another process sees either an empty file (no
store yet: it makes it too, and SQLite's lock makes it wait, then leaves the mark as it is) or a marked one. The
tables come after, in the caller's own transaction.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Final

from dqkit.contract.errors import DqkitError

SQLITE_MAGIC: Final = b"SQLite format 3\x00"
HISTORY_MARK: Final = 0x64714869  # "dqHi"
BULK_MARK: Final = 0x6471426B  # "dqBk"
RATE_MARK: Final = 0x64715274  # "dqRt"
CACHE_MARK: Final = 0x64714361  # "dqCa"


class StoreError(DqkitError):
    """A path given for one of dqkit's stores is not a store dqkit may open (the message names it and why)."""


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def check_store(path: Path, mark: int, what: str, tables: Collection[str], extra: Collection[str] = ()) -> bool:
    """Whether `path` is a store dqkit may open (False: there is none yet, no file or an empty one: `make_store`);
    StoreError if it is anything but one (module docstring). `tables`: the tables an unmarked store of an older
    dqkit holds (and maybe `extra`)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise StoreError(f"the {what} {path} cannot be looked at: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise StoreError(f"the {what} {path} is {_kind(st.st_mode)}, not a file dqkit made; give the path of a new "
                         "or existing store file (nothing was changed)")
    if st.st_size == 0:
        return False
    try:
        with open(path, "rb") as f:
            header = f.read(100)
    except OSError as exc:
        raise StoreError(f"the {what} {path} cannot be read: {exc.strerror or exc}") from None
    if not header.startswith(SQLITE_MAGIC) or len(header) < 100:
        raise StoreError(f"the {what} {path} is not a dqkit store (not an SQLite database); dqkit leaves it as it is "
                         "(give another path)")
    found = int.from_bytes(header[68:72], "big")
    if found == mark:
        return True
    if found == 0:
        held = _tables(path)
        if held is not None and set(tables) <= held <= {*tables, *extra, "sqlite_sequence"}:
            return True  # written by a dqkit from before stores were marked
        shown = ", ".join(sorted(held)[:8]) if held else "none dqkit knows"
        raise StoreError(f"the {what} {path} is another program's SQLite database (tables: {shown}); dqkit leaves "
                         "it as it is (give another path)")
    raise StoreError(f"the {what} {path} is another program's SQLite database (application id {found:#x}); dqkit "
                     "leaves it as it is (give another path)")


def _tables(path: Path) -> set[str] | None:
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return None
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.Error:
        return None
    finally:
        conn.close()


MAKE_SECONDS: Final = 30.0  # how long making a store waits for another process making the same one


def make_store(path: Path, mark: int, what: str, *, mode: int = 0o600) -> None:
    """Make a new store at `path` (no file there, or an empty one): the file created (O_EXCL: never over something
    that appeared meanwhile) and marked in one exclusive transaction (module docstring). A file that holds anything
    by then is left as it is: `check_store` decides what it is. StoreError if it cannot be made."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode))
    except FileExistsError:
        pass
    except OSError as exc:
        raise StoreError(f"cannot create the {what} {path}: {exc.strerror or exc}") from None
    try:
        if os.stat(path).st_size:
            return
        conn = sqlite3.connect(path, timeout=MAKE_SECONDS, isolation_level=None)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"cannot create the {what} {path}: {exc}") from None
    try:
        conn.execute("BEGIN EXCLUSIVE")  # waits for another process making it; a reader never blocks this long
        try:
            if os.stat(path).st_size == 0:  # still empty under the lock: nobody made it meanwhile
                conn.execute(f"PRAGMA application_id = {int(mark)}")
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"cannot create the {what} {path}: {exc}") from None
    finally:
        conn.close()


def open_store(path: Path, mark: int, what: str, tables: Collection[str], extra: Collection[str] = (), *,
               mode: int = 0o600) -> None:
    """`check_store`, and where there is no store yet, `make_store`: afterwards `path` is a store dqkit may open
    (StoreError otherwise, nothing changed)."""
    if check_store(path, mark, what, tables, extra):
        return
    make_store(path, mark, what, mode=mode)
    if not check_store(path, mark, what, tables, extra):
        raise StoreError(f"the {what} {path} could not be made (it is still empty)")


def mark(conn: sqlite3.Connection, value: int) -> None:
    """Mark an opened store as dqkit's (once: a marked store is left as it is)."""
    if conn.execute("PRAGMA application_id").fetchone()[0] != value:
        conn.execute(f"PRAGMA application_id = {int(value)}")


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection, kind: str = "IMMEDIATE") -> Iterator[sqlite3.Connection]:
    """BEGIN `kind` ... COMMIT, rolled back on any exception: the stores' one way to make or change their layout
    (a connection opened with isolation_level=None)."""
    conn.execute(f"BEGIN {kind}")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
