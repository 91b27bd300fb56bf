"""MindSpore's own lists, as plain data for graphlint's rules.

The modules in this package are written by ``scripts/mindspore_tables.py``
from the installed MindSpore (never edit them by hand) and hold literal data
only, so importing them never imports MindSpore:

* :mod:`.jit_forbidden`: APIs MindSpore refuses inside graph code (its
  ``jit_forbidden_register`` registry and forbidden modules);
* :mod:`.builtins`: what the graph parser does with Python builtins,
  operators and container/Tensor methods;
* :mod:`.parse_resources`: the parser's other lists (ast operators,
  unsupported types, third-party "fallback" modules, compile options);
* :mod:`.error_messages`: compile error message templates, with regexes;
* :mod:`.refused_measured`: measured, not read: what compiling a small program
  that uses each refused API (and a selection of builtins and container
  methods) does at each syntax level; written by
  ``scripts/measure_refused_apis.py``;
* :mod:`.api_measured`: measured too: what the Tensor methods, ops / mint
  functions, nn layer calls, builtins and container methods graphlint models
  do at each level, which api.py derives its tables from; written by
  ``scripts/measure_api_behaviour.py``;
* :mod:`.torch_habits`: measured too: what the PyTorch-style call forms of
  ``scripts/data/torch_forms.json`` (MindSpore's API mapping pages, its Tensor signatures, the nn containers,
  Cell methods, builtins and container methods) do at each level, and the MindSpore spelling measured to give
  PYNATIVE_MODE's result; written by ``scripts/measure_torch_habits.py``;
* :mod:`.pijit_skip`: what PIJit (``capture_mode="bytecode"``) never captures, its skip list of modules and
  the Python releases it refuses, read from ``mindspore/graph/_utils/pijit_context.py``; written by
  ``scripts/pijit_tables.py``.

Each module has ``MINDSPORE_VERSION``. ``tests/test_generated_tables.py`` fails
when the installed MindSpore's lists differ from these files; rerun both
scripts after upgrading MindSpore.
"""

MODULES = ("jit_forbidden", "builtins", "parse_resources", "error_messages", "refused_measured", "api_measured",
           "pijit_skip", "torch_habits", "nn_parameters", "primitive_outputs",
           "layer_shapes")
