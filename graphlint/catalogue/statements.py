"""Statements and expressions that MindSpore's graph parser rejects."""

from graphlint.catalogue.model import Rule, Severity, fails, passes

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
FAMILY = "statements"

RULES = (
    Rule(
        id="E5101",
        symbol="try-in-graph",
        family=FAMILY,
        lax=E,
        strict=E,
        message="`try` is not supported in graph code; validate inputs before the graph or remove the handler",
        summary="A `try` statement (with `except`, `else` or `finally`) inside graph code.",
        why=(
            "MindSpore's graph parser has no exception handling: compiling a `construct` or `@jit` "
            "function that contains `try` stops with an error, at every syntax level."
        ),
        mindspore_error="RuntimeError: Unsupported statement 'Try'.",
        fix="Remove the `try`: check the condition explicitly, or handle errors outside the Cell.",
        fails=(
            fails(
                """
                class Net(nn.Cell):
                    def construct(self, x):
                        try:
                            y = x * 2
                        except ValueError:
                            y = x
                        return y
                """,
                error="Unsupported statement 'Try'",
                title="`try` / `except`",
            ),
        ),
        passes=(
            passes(
                """
                class Net(nn.Cell):
                    def construct(self, x):
                        return x * 2
                """,
            ),
        ),
    ),
)
