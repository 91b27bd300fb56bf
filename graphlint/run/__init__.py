"""The run layer: the only code that decides how work is executed.

:mod:`~graphlint.run.lint` picks a lint strategy (the result cache, a re-check of what an edit reaches, one
process, processes that each parse a share, processes bounded in memory); :mod:`~graphlint.run.fix` runs
``--fix`` in one process or several. Below it, :class:`graphlint.session.LintSession` reads, parses, summarises,
checks and updates modules and never calls back up; above it, the front ends (the command line, the language
server, the Pylint plugin) ask it for results.
"""
