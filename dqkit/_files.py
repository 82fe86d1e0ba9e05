"""Files that survive crashes and hostile neighbours: atomic writes and private directories.

`atomic_write(path)` yields a temporary file in the destination's directory and renames it over `path` only once
everything was written and flushed to disk, so a crash, `kill -9` or a full disk leaves the old file whole. A failed
write raises `OutputError` with one line saying why (the temporary file is removed). The temporary name carries the
writer's pid, so the next write of the same file removes what a killed writer left (`sweep_stale_tmp`).

`private_dir(path)` creates a directory readable by its owner only (0700) and checks that an existing one is a real
directory (not a symlink) owned by this user and closed to others, so no other account can plant or read files in
it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from dqkit.contract.errors import DqkitError


class OutputError(DqkitError, OSError):
    """An output file could not be written; the previous file (if any) is left as it was."""


def pid_alive(pid: int) -> bool:
    """Whether process `pid` exists (one of another user counts: its files are not ours to remove)."""
    if pid <= 0:
        return False
    if os.name == "nt":  # os.kill(pid, 0) would end the process there: never call a Windows process gone
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def _why(exc: OSError) -> str:
    if exc.errno == errno.ENOSPC:
        return "the disk is full"
    if exc.errno == errno.EDQUOT:
        return "the disk quota is exhausted"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.EROFS:
        return "the file system is read-only"
    return exc.strerror or type(exc).__name__


def sweep_stale_tmp(dest: Path) -> None:
    """Temporary files of earlier writes of `dest` whose process died before renaming them (`kill -9`):
    `.<name>.<pid>.<random>.tmp`, ours, with no live process of that pid. Another writer's file is never touched."""
    directory = dest.parent if str(dest.parent) else Path(".")
    prefix = f".{dest.name}."
    try:
        names = [n for n in os.listdir(directory) if n.startswith(prefix) and n.endswith(".tmp")]
    except OSError:
        return
    for n in names:
        pid = n[len(prefix):].split(".", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid() or pid_alive(int(pid)):
            continue
        p = directory / n
        with contextlib.suppress(OSError):
            st = os.lstat(p)
            if stat.S_ISREG(st.st_mode) and (not hasattr(os, "getuid") or st.st_uid == os.getuid()):
                p.unlink()


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path next to `path` for a writer that takes a file name (pandas, pyarrow); renamed over `path`
    when the block ends without an exception."""
    dest = Path(path)
    directory = dest.parent if str(dest.parent) else Path(".")
    sweep_stale_tmp(dest)
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.{os.getpid()}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise OutputError(f"cannot write {dest}: {_why(exc)}") from None
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        _keep_mode(dest, tmp)
        os.replace(tmp, dest)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise OutputError(f"cannot write {dest}: {_why(exc)}; the previous file is unchanged") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "w", **open_args: Any) -> Iterator[IO[Any]]:
    """An open temporary file next to `path`, renamed over it when the block ends without an exception."""
    with atomic_path(path) as tmp:
        try:
            with open(tmp, mode, **open_args) as f:
                yield f
        except OSError as exc:
            raise OutputError(f"cannot write {path}: {_why(exc)}; the previous file is unchanged") from None


def write_text(path: str | Path, text: str, encoding: str = "utf-8") -> None:
    with atomic_write(path, "w", encoding=encoding) as f:
        f.write(text)


def write_bytes(path: str | Path, data: bytes) -> None:
    with atomic_write(path, "wb") as f:
        f.write(data)


def write_with(path: str | Path, writer: Callable[[Path], object]) -> None:
    """`writer(tmp)` writes the whole file at a temporary path; it then replaces `path`."""
    with atomic_path(path) as tmp:
        writer(tmp)


def _keep_mode(dest: Path, tmp: Path) -> None:
    """The new file gets the old one's permissions, or the umask's default for a new file (mkstemp makes 0600)."""
    try:
        mode = stat.S_IMODE(dest.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(tmp, mode)


def private_dir(path: str | Path) -> Path:
    """`path` as a directory only this user can enter (0700), created with its parents when missing.

    Raises OSError (EPERM) when it exists but is a symlink, not a directory, or owned by another user; a directory
    of ours that others may enter is closed to them.
    """
    p = Path(path)
    p.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = os.lstat(p)
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise OSError(errno.EPERM, f"{p} is not a plain directory")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise OSError(errno.EPERM, f"{p} belongs to another user")
    if stat.S_IMODE(st.st_mode) & 0o077:
        os.chmod(p, 0o700)
    return p
