"""graphlint: find and fix the Python that breaks, slows or silently changes MindSpore GRAPH_MODE."""

__version__ = "0.1.0"


def register(linter) -> None:
    """Pylint plugin entry point (``pylint --load-plugins=graphlint``)."""
    from graphlint.pylint_plugin import register as _register

    _register(linter)
