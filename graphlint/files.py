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
    """Replace ``source.path`` with ``text``, keeping its owner and mode.

    Refuses (:class:`WriteRefused`) a file the user may not write ("read-only"), and one that changed on disk
    since it was read (size, mtime or content), so a concurrent edit is never overwritten. The new text goes
    to a temporary file in the same folder, renamed over the file, which a crash cannot leave half written.
    Where that rename would lose something, the file is rewritten in place instead, as editors do: its folder is
    not writable, it has other hard links, or it belongs to another user and we are not root (the new file
    would be ours). Anything else that fails raises :class:`OSError`; the file is then as it was (a rename) or
    possibly truncated (in place, on a full disk).
    """
    path = os.path.realpath(source.path)  # write through symlinks, keep the link
    try:
        current = os.stat(path)
    except OSError as exc:
        raise WriteRefused(f"cannot stat: {exc.strerror}") from None
    if not os.access(path, os.W_OK):
        raise WriteRefused("read-only: not fixed")
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
    is_root = os.geteuid() == 0
    if (not os.access(folder, os.W_OK | os.X_OK) or current.st_nlink > 1
            or (current.st_uid != os.geteuid() and not is_root)):
        _write_in_place(path, data)
        return
    fd, temporary = tempfile.mkstemp(prefix=".graphlint-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:  # owner first: chown clears the set-user-id and set-group-id bits that chmod then restores
            os.chown(temporary, current.st_uid if is_root else -1, current.st_gid)
        except OSError:
            pass  # a group we are not in: the file gets our group, as any editor's save would
        os.chmod(temporary, stat.S_IMODE(current.st_mode))
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def _write_in_place(path: str, data: bytes) -> None:
    with open(path, "r+b") as handle:
        handle.write(data)
        handle.truncate()
        handle.flush()
        os.fsync(handle.fileno())


def unified_diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 fromfile=f"a/{path}", tofile=f"b/{path}")
    text = ""
    for line in lines:
        text += line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n"
    return text
