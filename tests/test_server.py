"""``graphlint server`` end to end: the real server process over stdio, driven by pytest-lsp's client."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from lsprotocol import types

from tests.server_support import DEL_MODEL, apply_edits, editor, run, server_subcommand, uri, write

FIXABLE_MODEL = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn, ops


    class Net(nn.Cell):
        def construct(self, x):
            y = x * 2
            x += 1
            del y
            import math
            for i in range(2000):
                x = ops.concat((x, x))
            return x
    """)


def by_code(diagnostics):
    return sorted((d.code, d.range.start.line) for d in diagnostics)


def test_open_diagnostics_quick_fix_and_shutdown(tmp_path):
    write(tmp_path, "pyproject.toml", "[tool.graphlint]\n")
    model = write(tmp_path, "model.py", DEL_MODEL)

    async def scenario():
        async with editor(tmp_path) as ed:
            diagnostics = await ed.open(model)
            assert by_code(diagnostics) == [("E5102", 7)]
            (d,) = diagnostics
            assert d.source == "graphlint" and d.severity == types.DiagnosticSeverity.Error
            assert (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character) == (7, 8, 7, 13)
            assert d.message.startswith("del-in-graph: `del` is not supported in graph code")
            assert d.code_description is not None and d.code_description.href.endswith("/docs/rules/E5102.md")
            actions = await ed.actions(model, 7, 8, diagnostics=[d])
            titles = [a.title for a in actions]
            assert "graphlint: drop `del y` (safe fix)" in titles
            assert "graphlint: disable del-in-graph for this line" in titles
            fix = next(a for a in actions if a.title.endswith("(safe fix)"))
            assert fix.kind == types.CodeActionKind.QuickFix and fix.is_preferred
            assert await ed.apply(model, fix) == []  # re-linted: no finding left
            assert "del y" not in ed.texts[model]
            return ed.client

    client = run(scenario())
    assert client._server.returncode == 0


def test_unsafe_refused_disable_and_fix_all(tmp_path):
    model = write(tmp_path, "model.py", FIXABLE_MODEL)

    async def scenario():
        async with editor(tmp_path) as ed:
            diagnostics = await ed.open(model)
            assert by_code(diagnostics) == [("E5102", 8), ("E5103", 9), ("E5901", 10), ("W5301", 7)]
            (unsafe,) = [a for a in await ed.actions(model, 9) if "import" in a.title and "disable" not in a.title]
            assert unsafe.title == "graphlint: move `import math` to module level (unsafe: may change behaviour in " \
                                   "corner cases)"
            assert not unsafe.is_preferred and unsafe.edit is not None
            # the loop's fix is refused (`x` changes shape each step): no action that would edit nothing
            at_loop = await ed.actions(model, 10, only=["quickfix"])
            assert [a.title for a in at_loop] == ["graphlint: disable python-loop-exceeds-call-depth for this line"]
            assert at_loop[0].edit is not None
            # fix-all: the safe fixes only; the unsafe import and the refused loop stay
            (fix_all,) = [a for a in await ed.actions(model, 0) if a.kind == "source.fixAll.graphlint"]
            assert fix_all.edit is None  # computed on resolve
            remaining = await ed.apply(model, fix_all)
            assert by_code(remaining) == [("E5103", 8), ("E5901", 9)]
            assert "x = x + 1\n        import math" in ed.texts[model] and "del y" not in ed.texts[model]
            # asked for by kind (on save): the edit comes with the answer; nothing safe is left to fix now
            assert await ed.actions(model, 0, only=["source.fixAll.graphlint"]) == []
            # disable for this line
            (disable,) = [a for a in await ed.actions(model, 9) if "disable" in a.title]
            remaining = await ed.apply(model, disable)
            assert by_code(remaining) == [("E5103", 8)]
            assert "for i in range(2000):  # pylint: disable=python-loop-exceeds-call-depth\n" in ed.texts[model]

    run(scenario())


def test_fix_all_on_save_kind(tmp_path):
    model = write(tmp_path, "model.py", DEL_MODEL)

    async def scenario():
        async with editor(tmp_path) as ed:
            await ed.open(model)
            (action,) = await ed.actions(model, 0, only=["source.fixAll"])
            assert action.edit is not None
            assert await ed.apply(model, action) == []
        # a client that does not resolve code actions gets the edit right away
        async with editor(tmp_path, capabilities=types.ClientCapabilities()) as ed:
            await ed.open(model, DEL_MODEL)
            (action,) = [a for a in await ed.actions(model, 0) if a.kind == "source.fixAll.graphlint"]
            assert action.edit is not None and action.edit.changes
            assert await ed.apply(model, action) == []

    run(scenario())


DISPLAY_ONLY_MODEL = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn, ops


    class Net(nn.Cell):
        def construct(self, x):
            while x.sum() > 1:
                x = x - 1
            return x
    """)


@pytest.mark.parametrize("capabilities", [None, "neovim@v0.7.0"])
def test_no_code_action_without_an_edit(tmp_path, capabilities):
    """A refused fix (the loop of FIXABLE_MODEL) and a display-only one (the Tensor `while`, I5806) offer no
    code action: only the ones that edit the document, whatever the client supports."""
    refused = write(tmp_path, "refused.py", FIXABLE_MODEL)
    display = write(tmp_path, "display.py", DISPLAY_ONLY_MODEL)

    async def scenario():
        async with editor(tmp_path, **({"capabilities": capabilities} if capabilities else {})) as ed:
            await ed.open(refused)
            assert by_code(await ed.open(display)) == [("I5806", 6)]
            for model, line, symbol in ((refused, 10, "python-loop-exceeds-call-depth"),
                                        (display, 6, "tensor-condition-control-flow")):
                actions = [a for a in await ed.actions(model, line) if a.kind != "source.fixAll.graphlint"]
                assert [a.title for a in actions] == [f"graphlint: disable {symbol} for this line"], model
                assert all(isinstance(a, types.CodeAction) and a.edit is not None for a in actions)
            # why the loop is not rewritten is on hover instead
            hover = (await ed.hover(refused, 10, 9)).contents.value
            assert "No fix here: `x` changes shape each step (`ops.concat`)" in hover
            assert "No fix here" not in (await ed.hover(refused, 8, 9)).contents.value  # `del y` has a fix
            if capabilities:  # this client takes plain `changes`, not versioned document changes
                fix = next(a for a in await ed.actions(refused, 8) if a.title.endswith("(safe fix)"))
                assert fix.edit.changes and not fix.edit.document_changes

    run(scenario())


def test_hover_shows_the_rule(tmp_path):
    model = write(tmp_path, "model.py", DEL_MODEL)

    async def scenario():
        async with editor(tmp_path) as ed:
            await ed.open(model)
            hover = await ed.hover(model, 7, 10)
            text = hover.contents.value
            assert text.startswith("**E5102 `del-in-graph`** (error at syntax level `lax`)")
            for part in ("**What it detects.**", "**Why it matters.**", "**Fix.**", "safety: **safe**",
                         "# pylint: disable=del-in-graph"):
                assert part in text
            assert await ed.hover(model, 6, 4) is None  # no finding there

    run(scenario())


def test_helper_in_another_file_and_dependents(tmp_path):
    """A helper's finding names its entry (related information in the other file); editing the file that
    reaches it re-checks the helper's open file."""
    helpers = write(tmp_path, "pkg/helpers.py", textwrap.dedent("""\
        def scale(x):
            try:
                y = x * 2
            except ValueError:
                y = x
            return y
        """))
    write(tmp_path, "pkg/__init__.py", "")
    net_text = textwrap.dedent("""\
        from mindspore import nn

        from pkg.helpers import scale


        class Net(nn.Cell):
            def construct(self, x):
                return scale(x)
        """)
    net = write(tmp_path, "pkg/net.py", net_text)

    async def scenario():
        async with editor(tmp_path) as ed:
            diagnostics = await ed.open(helpers)  # never opened net.py: the workspace index knows it
            assert by_code(diagnostics) == [("E5101", 1)]
            (d,) = diagnostics
            assert "(in helper `scale`, reached from `Net.construct`)" in d.message
            (related,) = d.related_information
            assert related.location.uri == uri(net) and related.location.range.start.line == 6
            assert "Net.construct" in related.message
            # net.py changed on disk, not in the editor (a git checkout): the client's file watcher says so
            write(tmp_path, "pkg/net.py", net_text.replace("return scale(x)", "return x"))
            ed.client.diagnostics.pop(uri(helpers), None)
            ed.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=uri(net), type=types.FileChangeType.Changed)]))
            assert await ed.diagnostics(helpers) == []
            write(tmp_path, "pkg/net.py", net_text)
            ed.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=uri(net), type=types.FileChangeType.Changed)]))
            ed.client.diagnostics.pop(uri(helpers), None)
            assert by_code(await ed.diagnostics(helpers)) == [("E5101", 1)]
            # and edited, unsaved, in the editor
            await ed.open(net)
            ed.client.diagnostics.pop(uri(helpers), None)
            await ed.change(net, net_text.replace("return scale(x)", "return x"))
            assert await ed.diagnostics(helpers) == []  # no longer graph code
            ed.client.diagnostics.pop(uri(helpers), None)
            await ed.change(net, net_text)
            assert by_code(await ed.diagnostics(helpers)) == [("E5101", 1)]

    run(scenario())


def test_pyproject_options_and_reload(tmp_path):
    pyproject = write(tmp_path, "pyproject.toml", '[tool.graphlint]\nsyntax-level = "lax"\n')
    model = write(tmp_path, "model.py", textwrap.dedent("""\
        from mindspore import nn


        class Net(nn.Cell):
            def construct(self, x):
                return x.asnumpy()
        """))

    async def scenario():
        async with editor(tmp_path) as ed:
            (d,) = await ed.open(model)
            assert d.code == "W5501" and d.severity == types.DiagnosticSeverity.Warning
            (registration,) = ed.registrations[0].registrations  # the client watches the files for the server
            assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
            assert [w["globPattern"] for w in registration.register_options["watchers"]] == ["**/*.py",
                                                                                             "**/pyproject.toml"]
            write(tmp_path, "pyproject.toml", '[tool.graphlint]\nsyntax-level = "strict"\n')
            os.utime(pyproject, ns=(1, 1))  # a different mtime, however fast the test runs
            ed.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=uri(pyproject), type=types.FileChangeType.Changed)]))
            ed.client.diagnostics.pop(uri(model), None)
            (d,) = await ed.diagnostics(model)
            assert d.severity == types.DiagnosticSeverity.Error
            # without a notification (clients that do not watch files): noticed on the next change
            write(tmp_path, "pyproject.toml", '[tool.graphlint]\nignore = ["W5501"]\n')
            os.utime(pyproject, ns=(2, 2))
            assert await ed.change(model, ed.texts[model] + "\n") == []
            # a bad option: shown once, linted with the defaults
            write(tmp_path, "pyproject.toml", '[tool.graphlint]\nsyntax-level = "loose"\n')
            os.utime(pyproject, ns=(3, 3))
            (d,) = await ed.change(model, ed.texts[model] + "\n")
            assert d.code == "W5501"
            assert any("syntax level must be one of" in m.message for m in ed.client.messages)

    run(scenario())


def test_unparseable_text_clears_diagnostics_and_server_goes_on(tmp_path):
    model = write(tmp_path, "model.py", DEL_MODEL)

    async def scenario():
        async with editor(tmp_path) as ed:
            assert len(await ed.open(model)) == 1
            assert await ed.change(model, DEL_MODEL.replace("del y", "del y +")) == []
            await ed.change(model, DEL_MODEL.replace("del y", "del y ++"))
            logged = [m.message for m in ed.client.log_messages if "cannot check" in m.message]
            assert len(logged) == 1 and "syntax error at line 8" in logged[0]  # one line, not one per keystroke
            assert len(await ed.change(model, DEL_MODEL)) == 1

    run(scenario())


def test_positions_in_utf16_and_debounced_changes(tmp_path):
    text = DEL_MODEL.replace("        del y\n", "        s = '😀é'; del y\n")
    model = write(tmp_path, "model.py", text)

    async def scenario():
        async with editor(tmp_path, options={"debounce": 0.3}) as ed:
            (d,) = await ed.open(model)
            # `del` follows 8 spaces and `s = '😀é'; ` (10 characters, 11 UTF-16 units, 14 UTF-8 bytes)
            assert (d.range.start.line, d.range.start.character) == (7, 19)
            (fix,) = [a for a in await ed.actions(model, 7, 20) if a.title.endswith("(safe fix)")]
            assert await ed.apply(model, fix) == []
            assert "s = '😀é'\n" in ed.texts[model]
            # several quick changes: one lint of the last text
            del ed.published[:]
            for _ in range(3):
                await ed.change(model, text, wait=False)
            (d,) = await ed.diagnostics(model)
            assert [p.version for p in ed.published] == [ed.versions[model]]

    run(scenario())


def test_closing_restores_the_file_on_disk(tmp_path):
    """An unsaved edit is seen by the other files only while its document is open."""
    write(tmp_path, "pkg/__init__.py", "")
    helpers_text = "def scale(x):\n    return x * 2\n"
    helpers = write(tmp_path, "pkg/helpers.py", helpers_text)
    net = write(tmp_path, "pkg/net.py", "from mindspore import nn\nfrom pkg.helpers import scale\n\n\n"
                                        "class Net(nn.Cell):\n    def construct(self, x):\n        return scale(x)\n")

    async def scenario():
        async with editor(tmp_path) as ed:
            assert await ed.open(net) == []
            await ed.open(helpers)
            assert by_code(await ed.change(helpers, "def scale(x):\n    del x\n    return 2\n")) == [("E5102", 1)]
            ed.client.text_document_did_close(types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=uri(helpers))))
            ed.client.diagnostics.pop(uri(helpers), None)
            assert await ed.diagnostics(helpers) == []  # closed: cleared
            assert await ed.change(net, ed.texts[net] + "\n") == []

    run(scenario())


def test_no_mindspore_import_and_no_user_code_run(tmp_path):
    marker = tmp_path / "ran"
    model = write(tmp_path, "model.py", f"open({str(marker)!r}, 'w').close()\n" + DEL_MODEL)
    script = textwrap.dedent(f"""\
        import sys
        from graphlint.server.engine import Engine
        engine = Engine([{str(tmp_path)!r}])
        engine.set_text({model!r}, open({model!r}).read(), 1)
        result = engine.lint({model!r})
        assert [f.rule.id for f in result.findings] == ["E5102"], result
        assert engine.fix_all({model!r}) is not None
        assert engine.fixes({model!r}, result.findings)
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("mindspore", "model"))
        assert not loaded, loaded
        print("ok")
        """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "ok", out.stderr
    assert not marker.exists()


def test_missing_extra_is_one_line(tmp_path):
    script = ("import sys; sys.modules['pygls'] = None\n"
              "from graphlint.server import main\nsys.exit(main([]))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert out.stderr.strip() == ("graphlint server: needs the server extra (pygls is missing): "
                                  "pip install 'mindspore-graphlint[server]'")


def test_graphlint_server_subcommand(tmp_path):
    """``graphlint server`` (the CLI's subcommand) starts the same server."""
    command = server_subcommand()
    if command is None:
        pytest.skip("the installed CLI has no `graphlint server` subcommand yet")
    model = write(tmp_path, "model.py", DEL_MODEL)

    async def scenario():
        async with editor(tmp_path, command=command) as ed:
            assert by_code(await ed.open(model)) == [("E5102", 7)]

    run(scenario())


def test_disable_comment_edge_cases():
    from graphlint.server.engine import disable_on_line

    assert disable_on_line("x = 1\n", 1, "a-b") == "x = 1  # pylint: disable=a-b\n"
    assert disable_on_line("x = 1  # pylint: disable=c-d\n", 1, "a-b") == "x = 1  # pylint: disable=c-d,a-b\n"
    assert disable_on_line("x = 1  # pylint: disable=a-b\n", 1, "a-b") is None
    assert disable_on_line('x = """a\nb"""\n', 1, "a-b") is None  # the line ends inside a string
    assert disable_on_line("x = 1 + \\\n    2\n", 1, "a-b") is None  # a continuation line
    assert disable_on_line("x = 1\r\ny = 2\r\n", 2, "a-b") == "x = 1\r\ny = 2  # pylint: disable=a-b\r\n"
    assert apply_edits("a\nb\n", []) == "a\nb\n"
