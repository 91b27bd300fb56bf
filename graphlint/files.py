"""Writing fixed files safely: atomically, in their own encoding, line endings and permissions."""

from __future__ import annotations

import difflib
import hashlib
import os
import stat
import tempfile

from graphlint.analysis.source import SourceFile


class WriteRefused(Exception):
    """The file was not written; ``str()`` says why."""


def fingerprint(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def encode(text: str, source: SourceFile) -> bytes:
    """Encode as the file was: same codec, BOM kept (text already carries the file's line endings)."""
    if source.bom:
        return b"\xef\xbb\xbf" + text.encode("utf-8")
    return text.encode(source.encoding)


def write_atomic(source: SourceFile, text: str) -> None:
    """Replace ``source.path`` with ``text``: temporary file in the same folder, then rename.

    Refuses when the file changed on disk since it was read (size, mtime or
    content), so a concurrent edit is never overwritten.
    """
    path = os.path.realpath(source.path)  # write through symlinks, keep the link
    try:
        current = os.stat(path)
    except OSError as exc:
        raise WriteRefused(f"cannot stat: {exc.strerror}") from None
    if current.st_mtime_ns != source.mtime_ns or current.st_size != source.size:
        raise WriteRefused("changed on disk since it was read; run graphlint again")
    with open(path, "rb") as handle:
        if source.digest and fingerprint(handle.read()) != source.digest:
            raise WriteRefused("changed on disk since it was read; run graphlint again")
    try:
        data = encode(text, source)
    except UnicodeEncodeError as exc:
        raise WriteRefused(f"the fixed text cannot be encoded as {source.encoding}: {exc.reason}") from None
    folder = os.path.dirname(path) or "."
    fd, temporary = tempfile.mkstemp(prefix=".graphlint-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, stat.S_IMODE(current.st_mode))
        try:
            os.chown(temporary, current.st_uid, current.st_gid)
        except (PermissionError, OSError):
            pass  # not root: the file keeps our ownership, as any editor's save would
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def unified_diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 fromfile=f"a/{path}", tofile=f"b/{path}")
    text = ""
    for line in lines:
        text += line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n"
    return text
