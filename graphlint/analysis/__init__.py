"""The analysis of MindSpore graph code: the only code that knows MindSpore (see CONTRIBUTING.md). A regular
package, not a namespace one, so that the layer contracts in pyproject.toml (import-linter) see it."""
