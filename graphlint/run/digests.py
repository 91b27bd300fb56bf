"""What the result cache compares files by: their bytes' digest, read without blocking on special files."""

from __future__ import annotations

import hashlib
import os
from stat import S_ISREG


def file_hash(path: str) -> str:
    """SHA-256 of a regular file's bytes; a marker for a missing, unreadable or special file."""
    data = read_regular(path)
    return hashlib.sha256(data).hexdigest() if isinstance(data, bytes) else data


def read_regular(path: str) -> bytes | str:
    """The bytes of a regular file, or a marker for a missing, unreadable or special one (never read: a FIFO
    would block, /dev/zero would never end)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return f"unreadable:{exc.errno}"
    try:
        with os.fdopen(fd, "rb") as handle:
            stat = os.fstat(handle.fileno())
            if not S_ISREG(stat.st_mode):
                return f"special:{stat.st_mode:o}"
            return handle.read()
    except OSError as exc:
        return f"unreadable:{exc.errno}"
