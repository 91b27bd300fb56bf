"""What `vulture` (configured in pyproject.toml, [tool.vulture]) reports as unused in graphlint/ but is used, each
with the reason. Run `vulture` from the repository root; a new finding is either dead code to remove or a name
to add here with its reason."""

# ruff: noqa
# pylint: skip-file
_ = object()

# -- generated tables (graphlint/analysis/generated/): written by scripts/mindspore_tables.py and
# scripts/error_inventory.py, compared with the installed MindSpore by tests/test_generated_tables.py (the drift
# test, `mindspore_tables.py --check`) and tests/test_explain_error.py; the package does not read these, the drift
# test does (a change in what MindSpore lists shows up there before a rule reads it).
_.MINDSPORE_VERSION  # every generated module: the drift test checks they were read from one release
_.MODULES  # generated/__init__.py: the modules the drift tests import
_.BUILTIN_FUNCTIONS, _.OPERATOR_FUNCTIONS, _.CONVERTED_CLASSES, _.INTERNAL_FUNCTIONS  # generated/builtins.py
_.BUILTIN_CLASS_CONVERTERS, _.CONSTANT_FOLD_FUNCTIONS, _.SYNTAX_SUPPORT_CODES, _.TROPE_NAMES
_.STANDARD_METHOD_FUNCTIONS, _.CONTAINER_METHOD_IMPLEMENTATIONS, _.TENSOR_DEPRECATED_METHODS
_.AST_OPERATORS, _.AST_AUGASSIGN_OPERATORS, _.UNSUPPORTED_BUILTIN_TYPES, _.EXPR_STATEMENT_METHODS  # parse_resources
_.THIRD_PARTY_MODULES, _.THIRD_PARTY_ENV_VARIABLES, _.CREATE_INSTANCE_TYPES, _.COMPILE_CONFIGS
_.COUNTS  # generated/error_inventory.py: tests/test_explain_error.py checks the inventory's counts
_.SOURCE_COMMIT  # generated/error_inventory.py: which MindSpore source it was read from (its files and lines are that
# commit's, so explain-error shows where an error was raised from the log instead)
_.MISSING_MESSAGES  # generated/error_messages.py: read by tests/test_generated_tables.py
_.VIEW_UNSUPPORTED, _.DECORATED_BUT_UNREGISTERED  # generated/jit_forbidden.py

# -- called by libcst, not by graphlint: overrides of its code-generator hooks (fixers/base.py _SpanState); its
# visitors' visit_*/leave_* hooks are ignored by name in [tool.vulture]
_._update_position, _.before_codegen, _.after_codegen, _.record_syntactic_position
_.indent_tokens  # fixers/base.py: libcst's CodegenState reads it

# -- registered with pygls by decorator (server/lsp.py): the language server's request and notification handlers
_.initialize, _.initialized, _.did_open, _.did_change, _.did_save, _.did_close, _.did_change_watched
_.did_change_folders, _.hover, _.code_action_resolve
_.disabled  # lsprotocol's CodeAction.disabled, sent to the editor

# -- read by the test suite
_.holds_on, _.code_line  # catalogue/model.py: tests/examples.py and tests/test_examples_lint.py place examples
_.hits, _.partial_hits  # run/cache.py: tests/test_incremental.py asserts how a run was answered
_.prove_batch  # validate/examples.py: tests/test_examples_compile.py and benchmarks/trace_habits.py

# -- data kept for its reader
_.PROFILES  # catalogue/model.py: the capture profiles' names, which Rule's profile methods document
_.stderr_tail  # validate/runner.py: a child's last stderr lines; tests/test_fixers_fallback.py shows them on failure
_.compared  # validate/validator.py: whether outputs were compared (not only compiled); tests/test_fixers.py asserts it
_.find_spec  # validate/child.py _Sources: the import system calls a sys.meta_path finder by this name

# The IR oracle's entry points (graphlint/oracle.py): called by benchmarks/ir_oracle.py and tests/test_ir_oracle.py,
# which vulture does not read.
from graphlint import oracle  # noqa: E402

oracle.measure
oracle.Tally.figures
