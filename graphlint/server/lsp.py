"""The Language Server Protocol side of ``graphlint server`` (pygls 2 / lsprotocol): diagnostics, code actions,
hover, and the workspace's files and options kept up to date (:mod:`graphlint.server.engine` does the work)."""

from __future__ import annotations

import asyncio
import difflib
import logging
import os
import re

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from graphlint import __version__
from graphlint.catalogue import lookup
from graphlint.catalogue.model import FixSafety, Severity
from graphlint.fixers import fix_safety, fixers_for
from graphlint.server.engine import Engine, Result

log = logging.getLogger("graphlint.server")

FIX_ALL = "source.fixAll.graphlint"
DEFAULT_DEBOUNCE = 0.1  # seconds of quiet after a change before it is linted
SEVERITIES = {Severity.ERROR: types.DiagnosticSeverity.Error, Severity.WARNING: types.DiagnosticSeverity.Warning,
              Severity.INFO: types.DiagnosticSeverity.Information}
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
DOCS_FOLDER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "docs",
                           "rules")


class GraphlintServer(LanguageServer):
    def __init__(self):
        super().__init__("graphlint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.engine = Engine(on_message=self._message)
        self.debounce = DEFAULT_DEBOUNCE
        self.docs_url = ""  # "https://host/docs/rules/{id}.md"; default: the checkout's docs/rules, when present
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._problems: dict[str, str] = {}  # path -> the problem last logged for it

    # -- messages -------------------------------------------------------------------------------------
    def _message(self, level: str, text: str) -> None:
        kind = {"error": types.MessageType.Error, "warning": types.MessageType.Warning}.get(level,
                                                                                            types.MessageType.Info)
        log.warning("%s", text)
        try:
            self.window_show_message(types.ShowMessageParams(type=kind, message=text))
        except Exception:  # noqa: BLE001 - before initialize there is no client to tell
            pass

    def log_line(self, text: str) -> None:
        log.info("%s", text)
        try:
            self.window_log_message(types.LogMessageParams(type=types.MessageType.Info, message=text))
        except Exception:  # noqa: BLE001
            pass

    # -- linting --------------------------------------------------------------------------------------
    def schedule(self, uri: str, delay: float) -> None:
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        if delay <= 0:
            self.lint(uri)
            return
        loop = asyncio.get_running_loop()
        self._timers[uri] = loop.call_later(delay, self.lint, uri)

    def flush(self, uri: str) -> Result | None:
        """Lint a document now if a change is waiting, or if its last lint is of another text."""
        path = to_fs_path(uri)
        pending = self._timers.pop(uri, None)
        if pending is not None:
            pending.cancel()
        document = self.workspace.get_text_document(uri)
        result = self.engine.results.get(os.path.abspath(path)) if path else None
        if path and os.path.abspath(path) in self.engine.open and (
                pending is not None or result is None or result.text != document.source):
            self.engine.set_text(path, document.source, document.version)
            return self.lint(uri)
        return result

    def lint(self, uri: str) -> Result | None:
        try:
            return self._lint(uri)
        except Exception:  # noqa: BLE001 - never stop the server
            log.exception("internal error linting %s", uri)
            return None

    def _lint(self, uri: str) -> Result | None:
        self._timers.pop(uri, None)
        path = to_fs_path(uri)
        if not path:
            return None
        path = os.path.abspath(path)
        if path not in self.engine.open:
            return None
        document = self.workspace.get_text_document(uri)
        self.engine.set_text(path, document.source, document.version)
        result = self.engine.lint(path)
        self.publish(uri, result)
        if result.problem:
            if self._problems.get(path) != result.problem:
                self._problems[path] = result.problem
                self.log_line(f"graphlint: {path}: cannot check: {result.problem}")
        else:
            self._problems.pop(path, None)
            log.debug("linted %s in %.3f s: %d findings", path, result.seconds, len(result.findings))
            for other in self.engine.relint_others(path):
                other_uri = from_fs_path(_path_of(self.engine, other))
                if other_uri:
                    self.publish(other_uri, other)
        return result

    def publish(self, uri: str, result: Result) -> None:
        diagnostics = [] if result.problem else [self.diagnostic(f, result.text) for f in result.findings]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=result.version))

    def clear(self, uri: str) -> None:
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    # -- conversions ----------------------------------------------------------------------------------
    def units(self, text: str) -> int:
        return self.workspace.position_codec.client_num_units(text)

    def position(self, lines: list[str], line: int, byte_column: int) -> types.Position:
        """An LSP position from a finding's 1-based line and 1-based UTF-8 byte column."""
        if not lines:
            return types.Position(line=0, character=0)
        if line > len(lines):
            return types.Position(line=len(lines) - 1, character=self.units(lines[-1]))
        text = lines[max(line, 1) - 1]
        prefix = text.encode("utf-8")[:max(byte_column - 1, 0)].decode("utf-8", "ignore")
        return types.Position(line=max(line, 1) - 1, character=self.units(prefix))

    def byte_column(self, lines: list[str], position: types.Position) -> tuple[int, int]:
        """(1-based line, 1-based UTF-8 byte column) of an LSP position."""
        if position.line >= len(lines):
            return position.line + 1, 1
        text = lines[position.line]
        count = chars = 0
        for char in text:
            if count >= position.character:
                break
            count += self.units(char)
            chars += 1
        return position.line + 1, len(text[:chars].encode("utf-8")) + 1

    def href(self, rule) -> str:
        if self.docs_url:
            return self.docs_url.format(id=rule.id, symbol=rule.symbol)
        page = os.path.join(DOCS_FOLDER, f"{rule.id}.md")
        return from_fs_path(page) if os.path.isfile(page) else ""

    def diagnostic(self, finding, text: str) -> types.Diagnostic:
        lines = _LINE_BREAK.split(text)
        start = self.position(lines, finding.line, finding.column)
        end = self.position(lines, finding.end_line, finding.end_column)
        related = None
        graph = finding.graph
        if finding.note and graph is not None and graph.root is not None and graph.root is not graph:
            root = graph.root
            target = root.info.path
            uri = from_fs_path(target) if target and os.path.isabs(target) else None
            if uri:
                row = max(root.node.lineno - 1, 0)
                column = root.node.col_offset or 0
                related = [types.DiagnosticRelatedInformation(
                    location=types.Location(uri=uri, range=types.Range(start=types.Position(line=row, character=column),
                                                                       end=types.Position(line=row, character=column))),
                    message=f"`{finding.rule.symbol}` in helper `{graph.name}` is reached from graph entry "
                            f"`{graph.entry}`")]
        href = self.href(finding.rule)
        safety = fix_safety(finding.rule)
        return types.Diagnostic(
            range=types.Range(start=start, end=end),
            message=f"{finding.rule.symbol}: {finding.message}",
            severity=SEVERITIES.get(finding.severity, types.DiagnosticSeverity.Warning),
            code=finding.rule.id,
            code_description=types.CodeDescription(href=href) if href else None,
            source="graphlint",
            related_information=related,
            data={"symbol": finding.rule.symbol, "fix": safety.value if safety is not None else None},
        )

    def text_edits(self, before: str, after: str) -> list[types.TextEdit]:
        """Line-wise edits from ``before`` to ``after`` (what changed, not the whole document)."""
        old = before.splitlines(keepends=True)
        new = after.splitlines(keepends=True)
        edits = []
        matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            start = types.Position(line=i1, character=0)
            if i2 == len(old) and old and not old[-1].endswith(("\n", "\r")):
                # the last line has no line break: end at its end, not on a line after it
                end = types.Position(line=i2 - 1, character=self.units(old[-1]))
                if i1 == i2:
                    start = end
            else:
                end = types.Position(line=i2, character=0)
            edits.append(types.TextEdit(range=types.Range(start=start, end=end), new_text="".join(new[j1:j2])))
        return edits

    def workspace_edit(self, uri: str, version, before: str, after: str) -> types.WorkspaceEdit:
        edits = self.text_edits(before, after)
        capabilities = self.client_capabilities
        document_changes = bool(capabilities.workspace and capabilities.workspace.workspace_edit
                                and capabilities.workspace.workspace_edit.document_changes)
        if document_changes:
            return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version), edits=edits)])
        return types.WorkspaceEdit(changes={uri: edits})

    def resolve_support(self) -> bool:
        """Whether the client asks ``codeAction/resolve`` for the edit of an action that has none."""
        text_document = self.client_capabilities.text_document
        support = text_document.code_action.resolve_support if text_document and text_document.code_action else None
        return bool(support and "edit" in (support.properties or []))

    def disabled_support(self) -> bool:
        text_document = self.client_capabilities.text_document
        return bool(text_document and text_document.code_action and text_document.code_action.disabled_support)


def _path_of(engine: Engine, result: Result) -> str:
    for path, other in engine.results.items():
        if other is result:
            return path
    return ""


def _wants(only, kind: str) -> bool:
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


def _overlaps(finding, start: tuple[int, int], end: tuple[int, int]) -> bool:
    return (finding.line, finding.column) <= end and start <= (finding.end_line, finding.end_column)


def build_server() -> GraphlintServer:
    server = GraphlintServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: GraphlintServer, params: types.InitializeParams):
        options = params.initialization_options if isinstance(params.initialization_options, dict) else {}
        if isinstance(options.get("debounce"), (int, float)):
            ls.debounce = max(float(options["debounce"]), 0.0)
        if isinstance(options.get("docsUrl"), str):
            ls.docs_url = options["docsUrl"]
        roots = [to_fs_path(folder.uri) for folder in params.workspace_folders or []]
        if not roots and params.root_uri:
            roots = [to_fs_path(params.root_uri)]
        elif not roots and params.root_path:
            roots = [params.root_path]
        for root in roots:
            if root and os.path.isdir(root):
                ls.engine.add_root(root)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: GraphlintServer, _params):
        workspace = ls.client_capabilities.workspace
        watched = workspace.did_change_watched_files if workspace else None
        if watched and watched.dynamic_registration:
            watchers = [types.FileSystemWatcher(glob_pattern="**/*.py"),
                        types.FileSystemWatcher(glob_pattern="**/pyproject.toml")]
            try:
                await ls.client_register_capability_async(types.RegistrationParams(registrations=[types.Registration(
                    id="graphlint-watched-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers))]))
            except Exception as exc:  # noqa: BLE001 - then a changed pyproject.toml is noticed on the next lint
                log.info("could not register for file changes: %s", exc)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: GraphlintServer, params: types.DidOpenTextDocumentParams):
        document = params.text_document
        path = to_fs_path(document.uri) if document.uri.startswith("file:") else None
        if not path or not path.endswith((".py", ".pyi")) and document.language_id != "python":
            return
        ls.engine.set_text(path, document.text, document.version)
        ls.lint(document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: GraphlintServer, params: types.DidChangeTextDocumentParams):
        path = to_fs_path(params.text_document.uri)
        if path and os.path.abspath(path) in ls.engine.open:
            ls.schedule(params.text_document.uri, ls.debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: GraphlintServer, params: types.DidSaveTextDocumentParams):
        path = to_fs_path(params.text_document.uri)
        if path and os.path.basename(path) == "pyproject.toml":
            ls.engine.reload()
            relint_all(ls)
        elif path and os.path.abspath(path) in ls.engine.open:
            ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: GraphlintServer, params: types.DidCloseTextDocumentParams):
        uri = params.text_document.uri
        timer = ls._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        path = to_fs_path(uri)
        if path and os.path.abspath(path) in ls.engine.open:
            ls.engine.close(path)
            ls.clear(uri)
            for other in ls.engine.relint_others(path):  # they see the file on disk again
                other_uri = from_fs_path(_path_of(ls.engine, other))
                if other_uri:
                    ls.publish(other_uri, other)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched(ls: GraphlintServer, params: types.DidChangeWatchedFilesParams):
        for change in params.changes:
            path = to_fs_path(change.uri)
            if path:
                ls.engine.disk_changed(path)
        relint_all(ls)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_folders(ls: GraphlintServer, params: types.DidChangeWorkspaceFoldersParams):
        for folder in params.event.removed or []:
            ls.engine.remove_root(to_fs_path(folder.uri))
        for folder in params.event.added or []:
            ls.engine.add_root(to_fs_path(folder.uri))
        relint_all(ls)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: GraphlintServer, params: types.HoverParams):
        result = ls.flush(params.text_document.uri)
        if result is None or result.problem:
            return None
        lines = _LINE_BREAK.split(result.text)
        line, column = ls.byte_column(lines, params.position)
        found = [f for f in result.findings
                 if (f.line, f.column) <= (line, column) <= (f.end_line, f.end_column)]
        if not found:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                                        value="\n\n---\n\n".join(hover_text(ls, f) for f in found)))

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=True))
    def code_action(ls: GraphlintServer, params: types.CodeActionParams):
        uri = params.text_document.uri
        result = ls.flush(uri)
        if result is None or result.problem or not result.findings:
            return None
        path = os.path.abspath(to_fs_path(uri))
        lines = _LINE_BREAK.split(result.text)
        start = ls.byte_column(lines, params.range.start)
        end = ls.byte_column(lines, params.range.end)
        wanted = {(d.code, d.range.start.line, d.range.start.character) for d in params.context.diagnostics or []}
        selected = []
        for finding in result.findings:
            diagnostic = ls.diagnostic(finding, result.text)
            key = (finding.rule.id, diagnostic.range.start.line, diagnostic.range.start.character)
            if key in wanted or _overlaps(finding, start, end):
                selected.append((finding, diagnostic))
        only = params.context.only
        actions: list[types.CodeAction] = []
        if selected and _wants(only, types.CodeActionKind.QuickFix):
            diagnostics = {id(f): d for f, d in selected}
            for fix in ls.engine.fixes(path, [f for f, _ in selected]):
                actions.append(code_action_for(ls, uri, result, fix, diagnostics[id(fix.finding)]))
        if _wants(only, FIX_ALL) and any(fixer.safety is FixSafety.SAFE for f in result.findings
                                         for fixer in fixers_for(f.rule)):
            action = types.CodeAction(title="graphlint: apply all safe fixes", kind=FIX_ALL,
                                      data={"uri": uri, "version": result.version, "fixAll": True})
            if only or not ls.resolve_support():  # asked for by kind (on save), or a client that cannot resolve
                action = resolve(ls, action)
                if action.edit is not None:
                    actions.append(action)
            else:
                actions.append(action)
        return actions or None

    @server.feature(types.CODE_ACTION_RESOLVE)
    def code_action_resolve(ls: GraphlintServer, action: types.CodeAction):
        return resolve(ls, action)

    return server


def relint_all(ls: GraphlintServer) -> None:
    for path in list(ls.engine.open):
        uri = from_fs_path(path)
        if uri:
            ls.lint(uri)


def resolve(ls: GraphlintServer, action: types.CodeAction) -> types.CodeAction:
    data = action.data if isinstance(action.data, dict) else {}
    if not data.get("fixAll") or action.edit is not None:
        return action
    uri = data.get("uri", "")
    result = ls.flush(uri)
    path = to_fs_path(uri)
    if result is None or not path or result.problem:
        return action
    fixed = ls.engine.fix_all(path)
    if fixed is not None:
        action.edit = ls.workspace_edit(uri, result.version, result.text, fixed)
    elif ls.disabled_support():
        action.disabled = types.CodeActionDisabled(reason="no safe fix applies")
    return action


def code_action_for(ls: GraphlintServer, uri: str, result: Result, fix, diagnostic) -> types.CodeAction:
    return types.CodeAction(title=fix.title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                            is_preferred=fix.kind == "safe" or None,
                            edit=ls.workspace_edit(uri, result.version, result.text, fix.text),
                            data={"safety": fix.kind})


def hover_text(ls: GraphlintServer, finding) -> str:
    """The rule's summary, why and fix (the ``--explain`` page without its examples), under the finding."""
    rule = lookup(finding.rule.id)
    safety = fix_safety(rule)
    if safety is FixSafety.DISPLAY:
        fixable = "`graphlint --diff --show-fixes` shows a rewrite to make by hand; no quick fix applies it."
    elif safety is not None:
        fixable = f"`graphlint --fix` safety: **{safety.value}** (a quick fix is offered where the rewrite applies)."
    else:
        fixable = "graphlint does not rewrite this automatically."
    refused = ls.engine.refusal(finding.path, finding)
    if refused:
        fixable = f"No fix here: {refused}"
    href = ls.href(rule)
    more = f"[The rule's page]({href}) has" if href else f"`graphlint --explain {rule.id}` shows"
    return "\n".join([
        f"**{rule.id} `{rule.symbol}`** ({finding.severity.value} at syntax level "
        f"`{ls.engine.config_for(finding.path).syntax_level}`)",
        "",
        finding.message,
        "",
        "**What it detects.** " + rule.summary,
        "",
        "**Why it matters.** " + rule.why,
        "",
        "**Fix.** " + rule.fix,
        "",
        fixable,
        "",
        f"Suppress: `# pylint: disable={rule.symbol}`. {more} failing and passing examples, compiled with MindSpore.",
    ])
