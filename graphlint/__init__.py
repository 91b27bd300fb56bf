"""graphlint: find and fix the Python that breaks, slows or silently changes MindSpore GRAPH_MODE."""

from graphlint.version import __version__

__all__ = ["__version__", "register"]


def register(linter) -> None:
    """Pylint plugin entry point (``pylint --load-plugins=graphlint``)."""
    # here: Pylint loads this package as the plugin; importing Pylint on every `import graphlint` would be slow
    from graphlint.pylint_plugin import register as _register

    _register(linter)
