"""Driving the real ``graphlint server`` process over stdio with pytest-lsp's client, for tests/test_server*.py."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import textwrap

from lsprotocol import types
from pytest_lsp import ClientServerConfig, client_capabilities
from pygls.uris import from_fs_path

SERVER = [sys.executable, "-m", "graphlint.server"]
TIMEOUT = 30.0

DEL_MODEL = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn, ops


    class Net(nn.Cell):
        def construct(self, x):
            y = x * 2
            del y
            return ops.relu(x)
    """)


def server_subcommand() -> list[str] | None:
    """``[graphlint, "server"]`` when the installed CLI dispatches ``graphlint server`` to this server."""
    import subprocess

    executable = os.path.join(os.path.dirname(sys.executable), "graphlint")
    if not os.path.exists(executable):
        return None
    probe = subprocess.run([executable, "server", "--help"], capture_output=True, text=True, timeout=120)
    return [executable, "server"] if probe.returncode == 0 and "Language Server Protocol" in probe.stdout else None


def write(folder, name, text):
    path = os.path.join(str(folder), name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)
    return path


def uri(path) -> str:
    return from_fs_path(str(path))


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 120))


class Editor:
    """A client session: open, change and read documents as an editor does."""

    def __init__(self, client, root):
        self.client = client
        self.root = str(root)
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}

    async def open(self, path, text=None):
        path = str(path)
        if text is None:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        self.texts[path], self.versions[path] = text, 1
        self.client.diagnostics.pop(uri(path), None)
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri(path), language_id="python", version=1, text=text)))
        return await self.diagnostics(path)

    async def change(self, path, text, wait=True):
        path = str(path)
        self.versions[path] += 1
        self.texts[path] = text
        self.client.diagnostics.pop(uri(path), None)
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri(path), version=self.versions[path]),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        return await self.diagnostics(path) if wait else None

    async def diagnostics(self, path, timeout=TIMEOUT):
        """The next diagnostics published for ``path`` (after the last open/change)."""
        key = uri(path)
        deadline = asyncio.get_running_loop().time() + timeout
        while key not in self.client.diagnostics:
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"no diagnostics for {path} within {timeout} s")
            await asyncio.sleep(0.01)
        return list(self.client.diagnostics[key])

    async def actions(self, path, line, character=None, only=None, diagnostics=()):
        start = types.Position(line=line, character=character or 0)
        end = types.Position(line=line, character=character if character is not None else 200)
        return await self.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri(path)), range=types.Range(start=start, end=end),
            context=types.CodeActionContext(diagnostics=list(diagnostics), only=only))) or []

    async def apply(self, path, action):
        """Apply a code action's edit as the editor would, and send the change."""
        if action.edit is None:
            action = await self.client.code_action_resolve_async(action)
        assert action.edit is not None, action
        edits = []
        for change in action.edit.document_changes or []:
            assert change.text_document.uri == uri(path)
            assert change.text_document.version == self.versions[str(path)]
            edits.extend(change.edits)
        for key, more in (action.edit.changes or {}).items():
            assert key == uri(path)
            edits.extend(more)
        return await self.change(path, apply_edits(self.texts[str(path)], edits))

    async def hover(self, path, line, character):
        return await self.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri(path)),
            position=types.Position(line=line, character=character)))


def apply_edits(text: str, edits) -> str:
    """Apply LSP text edits (UTF-16 positions) to ``text``."""
    lines = text.splitlines(keepends=True)

    def offset(position):
        before = sum(len(line) for line in lines[:position.line])
        line = lines[position.line] if position.line < len(lines) else ""
        units = 0
        for index, char in enumerate(line):
            if units >= position.character:
                return before + index
            units += 2 if ord(char) > 0xFFFF else 1
        return before + len(line)

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start, end = offset(edit.range.start), offset(edit.range.end)
        text = text[:start] + edit.new_text + text[end:]
        lines = text.splitlines(keepends=True)
    return text


@contextlib.asynccontextmanager
async def editor(root, capabilities="visual_studio_code", options=None, command=None):
    """A started and initialized server whose workspace folder is ``root``."""
    client = await ClientServerConfig(server_command=command or SERVER).start()
    registrations, published = [], []

    def register(ls, params):
        registrations.append(params)

    client.feature(types.CLIENT_REGISTER_CAPABILITY)(register)
    features = client.protocol.fm.features
    store = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def publish(params):
        published.append(params)
        return store(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    caps = client_capabilities(capabilities) if isinstance(capabilities, str) else capabilities
    await client.initialize_session(types.InitializeParams(
        capabilities=caps, root_uri=uri(root),
        workspace_folders=[types.WorkspaceFolder(uri=uri(root), name="workspace")],
        initialization_options=options or {"debounce": 0.05}))
    session = Editor(client, root)
    session.registrations, session.published = registrations, published
    try:
        yield session
    finally:
        await client.shutdown_session()
        await client.stop()
