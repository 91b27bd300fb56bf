"""Read and parse one source file, turning every way that can fail into a one-line problem."""

from __future__ import annotations

import ast
import hashlib
import io
import os
import tokenize
import warnings
from dataclasses import dataclass
from stat import S_ISDIR, S_ISREG

import astroid
from astroid import nodes
from astroid.builder import AstroidBuilder
from astroid.exceptions import AstroidBuildingError, AstroidSyntaxError

from graphlint.analysis.tree import deep_recursion


class SourceProblem(Exception):
    """A file graphlint cannot check; ``str()`` is the one-line reason."""


@dataclass
class SourceFile:
    path: str
    text: str
    encoding: str
    bom: bool
    module_name: str
    mtime_ns: int = 0
    size: int = 0
    digest: str = ""  # sha256 of the bytes read: a fix is never written over a file changed since
    module: nodes.Module | None = None


def _undecodable(encoding: str, exc: Exception) -> SourceProblem:
    reason = exc.reason if isinstance(exc, UnicodeDecodeError) else str(exc)
    where = f" at byte {exc.start}" if isinstance(exc, UnicodeDecodeError) else ""
    return SourceProblem(f"cannot decode as {encoding}{where} ({reason}); "
                         "add a coding cookie such as '# -*- coding: latin-1 -*-'")


def decode(data: bytes, path: str) -> tuple[str, str, bool]:
    """Decode as Python does: BOM, then a PEP 263 coding cookie, then UTF-8."""
    bom = data.startswith(b"\xef\xbb\xbf")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        message = str(exc.msg)
        if bom and message.startswith("encoding problem"):
            raise SourceProblem("cannot determine the encoding: the UTF-8 byte-order mark and the coding cookie "
                                "disagree") from None
        if message.startswith("invalid or missing encoding declaration"):  # not UTF-8 in the first two lines
            try:
                data.decode("utf-8-sig" if bom else "utf-8")
            except UnicodeDecodeError as error:
                raise _undecodable("utf-8", error) from None
        raise SourceProblem(f"cannot determine the encoding: {message}") from None
    try:
        text = data.decode("utf-8-sig" if bom else encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        raise _undecodable(encoding, exc) from None
    return text, ("utf-8-sig" if bom else encoding), bom


def module_name_for(path: str) -> str:
    """Dotted module name, walking up through package folders (those with ``__init__.py``)."""
    path = os.path.abspath(path)
    folder, filename = os.path.split(path)
    stem = os.path.splitext(filename)[0]
    parts = [] if stem == "__init__" else [stem]
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        folder, package = os.path.split(folder)
        if not package:
            break
        parts.insert(0, package)
    return ".".join(parts) or stem


def package_root_for(path: str) -> str:
    """The folder above the outermost package that contains ``path``."""
    folder = os.path.dirname(os.path.abspath(path))
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return folder


def read_source(path: str) -> SourceFile:
    try:
        # O_NONBLOCK: opening a FIFO named *.py must not wait for a writer (regular files ignore the flag);
        # only regular files are read, never a FIFO, a socket or a device such as /dev/zero.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with os.fdopen(fd, "rb") as handle:
            stat = os.fstat(handle.fileno())
            if not S_ISREG(stat.st_mode):
                raise SourceProblem("is a directory" if S_ISDIR(stat.st_mode) else "not a regular file")
            data = handle.read()
    except IsADirectoryError:
        raise SourceProblem("is a directory") from None
    except PermissionError:
        raise SourceProblem("permission denied") from None
    except FileNotFoundError:
        raise SourceProblem("no such file") from None
    except OSError as exc:
        raise SourceProblem(exc.strerror or str(exc)) from None
    if b"\x00" in data:
        raise SourceProblem("contains NUL bytes; not a Python source file")
    text, encoding, bom = decode(data, path)
    return SourceFile(path=path, text=text, encoding=encoding, bom=bom,
                      module_name=module_name_for(path), mtime_ns=stat.st_mtime_ns, size=stat.st_size,
                      digest=hashlib.sha256(data).hexdigest())


_BUILDER: AstroidBuilder | None = None


def builder() -> AstroidBuilder:
    """The builder, made on first use: making it builds astroid's model of the builtins (0.15-0.2 s), which
    ``--jobs`` processes then do side by side, after the fork, rather than one after the other before it. (A
    process that forks many short-lived ones makes it first, so that they inherit it.)"""
    global _BUILDER
    if _BUILDER is None:
        _BUILDER = AstroidBuilder(astroid.MANAGER, apply_transforms=False)
    return _BUILDER


def parse(text: str, module_name: str = "", path: str | None = None) -> nodes.Module:
    """Parse with astroid: no inference, no global module cache (2,000-file runs stay small)."""
    if text.endswith("\\\n"):
        # astroid parses ``text + "\n"``: a line continuation at the very end would join that extra line,
        # and text Python rejects ("unexpected EOF") would be linted. Ask Python's parser in this rare case.
        problem = syntax_problem(text, path or "<unknown>")
        if problem:
            raise SourceProblem(problem)
    try:
        # _data_build, not string_build: string_build's post-processing runs astroid inference on
        # attribute assignments, which follows imports into MindSpore's own (huge) sources.
        with warnings.catch_warnings():  # the user's invalid escapes are not graphlint's business
            warnings.simplefilter("ignore")
            with deep_recursion(10000):
                module, _ = builder()._data_build(text, module_name, path)
        module.graphlint_text = text  # (the caller's string, not a copy) for Analysis' module interfaces
    except AstroidSyntaxError as exc:
        error = exc.error
        if isinstance(error, SyntaxError):
            where = f"line {error.lineno}" + (f", column {error.offset}" if error.offset else "")
            raise SourceProblem(f"syntax error at {where}: {error.msg}") from None
        if isinstance(error, (MemoryError, RecursionError)):  # CPython's parser: "too many nested ..." as MemoryError
            raise SourceProblem("too deeply nested for the parser") from None
        reason = str(error).splitlines()[0] if str(error).strip() else type(error).__name__
        raise SourceProblem(f"cannot parse: {reason}") from None
    except (RecursionError, MemoryError):
        raise SourceProblem("too deeply nested for the parser") from None
    except (AstroidBuildingError, ValueError, SyntaxError) as exc:
        raise SourceProblem(f"cannot parse: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
    return module


def syntax_problem(text: str, path: str) -> str | None:
    """A quick syntax check with the C parser, for files that are not analysed further."""
    try:
        python_tree(text, path)
    except SourceProblem as exc:
        return str(exc)
    return None


def python_tree(text: str, path: str):
    """The ``ast`` tree of a file that is not analysed further (the C parser: quick); SourceProblem when its
    syntax is wrong."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text, path)
    except SyntaxError as error:
        where = f"line {error.lineno}" + (f", column {error.offset}" if error.offset else "")
        raise SourceProblem(f"syntax error at {where}: {error.msg}") from None
    except (RecursionError, MemoryError, ValueError):
        raise SourceProblem("too deeply nested for the parser") from None


def load(path: str) -> SourceFile:
    source = read_source(path)
    source.module = parse(source.text, source.module_name, path)
    return source
