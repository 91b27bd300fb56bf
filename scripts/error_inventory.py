#!/usr/bin/env python3
"""Write graphlint's inventory of the errors MindSpore's graph frontend raises, read from its source.

Every error site of the graph frontend (the parser, the resolver and type inference in C++, the parser's Python
package; plus the few files of EXTRA) is read from a git mirror of MindSpore's source tree, not from the installed
wheel (which has no C++ source), and written to graphlint/analysis/generated/error_inventory.py for
``graphlint explain-error``::

    .venv/bin/python scripts/error_inventory.py                  # rewrite the generated module
    .venv/bin/python scripts/error_inventory.py --check          # exit 1 if the committed module is stale
    .venv/bin/python scripts/error_inventory.py --verify-rules   # also compile the catalogue's failing examples
                                                                 # and check the `rule` rows (minutes)
    .venv/bin/python scripts/error_inventory.py --mirror GIT_DIR # another mirror (default: $MS_SOURCE_MIRROR or
                                                                 # /work/.mirror/mindspore-ai+mindspore_test/repo)

What counts as an error site:

* C++ ``MS_EXCEPTION(SomeError) << ...;``, ``MS_INTERNAL_EXCEPTION(SomeError) << ...;``, ``MS_LOG(EXCEPTION) <<
  ...;`` and ``MS_LOG(INTERNAL_EXCEPTION) << ...;`` (the INTERNAL ones are MindSpore's own mark of a compiler
  invariant), ``MS_CHECK_VALUE(cond, msg)``, and the messages of DEFERRED. The message is the streamed string
  pieces joined, each streamed value written ``{}``. A site that streams only a ``std::ostringstream``
  (``<< oss.str()``) takes the ``oss << ...;`` statements of its function: those in sequence make one message, a
  sentence written in a nested block is an alternative message of its own.
* Python ``raise SomeError(<message>)``: the message is read like scripts/mindspore_tables.py reads it (f-strings,
  ``+``, ``%``, ``.format``; a name is looked up in the function's assignments).

Left out: sites whose message has no text of its own (``raise NameError(name)``), and the ``MS_EXCEPTION_IF_NULL``
/ ``MS_EXCEPTION_IF_CHECK_FAIL`` checks (invariants with generated messages). Each entry is classified by the
first row of CLASSES that matches it; an entry no row classifies, a row that matches nothing, or one message
classified two ways is an error of this script (exit 1).

The classes: ``rule`` (a graphlint rule predicts it: its compiled examples produce this message), ``value-dependent``
(it depends on values, shapes, dtypes or argument types only known when the network is called), ``device``
(backend, device or environment), ``internal`` (a compiler invariant: a MindSpore bug, or unreachable from user
code) and ``no-rule`` (the cause is in the source, but no rule predicts it: see CLASSES).
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(1, ROOT)
from mindspore_tables import _assignments, _message_text, describe_difference, render_module  # noqa: E402

OUT = os.path.join(ROOT, "graphlint", "analysis", "generated", "error_inventory.py")
SCRIPT = "scripts/error_inventory.py"
DEFAULT_MIRROR = "/work/.mirror/mindspore-ai+mindspore_test/repo"

# The graph frontend: every error site of these folders.
FRONTEND = (
    "mindspore/ccsrc/pipeline/jit/ps/parse/",
    "mindspore/ccsrc/pipeline/jit/ps/static_analysis/",
    "mindspore/python/mindspore/_extends/parse/",
)
# Other files whose errors surface while compiling graph code, and which of their sites are taken (a regex over
# the message template; None: all). Each is here for a message users report from graph code.
EXTRA = {
    # mutable() lists grow to dynamic-length sequences; asking their size at compile time fails
    "mindspore/core/abstract/abstract_value.cc": r"dynamic length",
    # list.append in graph code (ListAppend), on fixed and dynamic-length (mutable) lists
    "mindspore/ops/infer/list_append.cc": None,
    # the check ListAppend runs on a dynamic-length list's items
    "mindspore/core/utils/check_convert_utils.cc": r"abstract '\{\}' is not same with the",
    # Tensor indexing by a Tensor (and ops.gather_nd) lowers to GatherNd
    "mindspore/ops/infer/ops_func_impl/gather_nd.cc": None,
    "mindspore/ops/kernel/cpu/gathernd_cpu_kernel.cc": None,
    # nn.LSTM / nn.GRU / nn.RNN (and their cells) check their state arguments with raise inside graph code
    "mindspore/python/mindspore/nn/layer/rnns.py": r"^For '\{\}', the (length of )?'\{\}' must be",
    "mindspore/python/mindspore/nn/layer/rnn_cells.py": r"^For '\{\}', the (length of )?'\{\}' must be",
}

# Messages the frontend builds in a function and raises later (type inference keeps them in an AbstractJoinedAny
# and raises when the joined value is used): file -> {function: exception}. The function's first `buffer << ...;`
# statement is the message.
DEFERRED = {
    "mindspore/ccsrc/pipeline/jit/ps/static_analysis/static_analysis.cc": {"JoinBranchesFailedInfo": "TypeError"},
}

RULE, VALUE, DEVICE, INTERNAL, NO_RULE = "rule", "value-dependent", "device", "internal", "no-rule"
CLASS_NAMES = (RULE, VALUE, DEVICE, INTERNAL, NO_RULE)


# --------------------------------------------------------------------------------------------
# Classification (hand-written)
# --------------------------------------------------------------------------------------------
# A row is (matcher, class, detail). The matcher is an entry id, "text:REGEX" (searched in the message template)
# or "macro:REGEX" (the raising macro). An entry takes the first row naming its id; else the first text row that
# matches; else the row of its id without a ".2", ".3" ... suffix (the same message raised at another site); else
# the first macro row. The detail is the ids of the rules for `rule` (the rules whose compiled examples produce
# this message with the installed MindSpore: `--verify-rules` checks it), else a short reason.
#
# `no-rule` is a fifth class next to the four of the task: the cause can be read from the source, but no rule's
# compiled examples produce the message (an API misused the same way in PYNATIVE_MODE, or graph-mode syntax
# graphlint has no rule for yet). Calling those `value-dependent` would be false.
PYNATIVE_TOO = "fails in PYNATIVE_MODE too"

CLASSES = (
    # ---- rule: a rule's compiled examples produce the message -----------------------------------------------
    ("data_converter.failed_to_compile_in_graph_mode_because_the", RULE, ("E6001",)),
    ("prim.failed_to_compile_in_graph_mode_because_the", RULE, ("E6001",)),
    ("prim.in_jit_strict_mode_cannot_get_attributes", RULE, ("E6001", "I5702", "W5501", "W5506", "W6103", "W6104")),
    ("evaluator.exceed_function_call_depth_limit_function_call", RULE, ("E5901", "E5903")),
    ("function_block.the_local_variable_defined_in_the_loop", RULE, ("E5802",)),
    ("list_append.the_prim_the_input_data_must_be_list", RULE, ("E5808",)),
    ("function_block.the_local_variable_is_not_defined_in", RULE, ("E5801",)),
    ("parse.in_jit_strict_mode_if_need_to", RULE, ("W5209",)),
    ("parse.when_jit_syntax_level_is_not_set_to_lax", RULE, ("W5207", "W5209")),
    ("prim.object_has_no_attribute", RULE, ("W5209", "E6109")),  # "{} object has no attribute {}" (no colon) only
    ("parse.parse_lambda_function_fail_node_type_must", RULE, ("E5110",)),
    ("parse.the_for_else_statement_is_not_supported", RULE, ("E5111",)),
    ("parse.the_while_else_statement_is_not_supported", RULE, ("E5111",)),
    ("parse.the_generators_supports_comprehension_in_listcomp_generatorexp", RULE, ("E5113",)),
    ("parse.unsupported_expression_more_details_please_refer_to", RULE, ("E5104", "E5108", "E5112")),
    ("parse.unsupported_statement_more_details_please_refer_to", RULE,
     ("E5101", "E5102", "E5103", "E5105", "E5107", "E5109", "E5110")),
    ("prim.only_support_jit_class_instance_but_got", RULE, ("E5106",)),
    ("prim.when_handling_script_in_graph_mode_the", RULE,
     ("W5502", "W5503", "W5504", "W5505", "W5506", "W5508", "W6102", "W6108", "E6109", "E6110")),
    ("prim.for_scan_op_loop_func_expects_two_arguments", RULE, ("E5403",)),
    ("evaluator.the_parameters_number_of_the_function_is", RULE, ("E5403", "E5117")),
    ("stack_frame.the_parameters_number_of_the_function_is", RULE, ("E5403", "E5117")),
    ("prim.whileloop_op_has_invalid_argument_the_return", RULE, ("E5404",)),
    ("prim.scan_op_has_invalid_argument_the_first", RULE, ("E5404",)),
    ("static_analysis.cannot_join_the_return_values_of_different", RULE, ("E5803", "W5804", "E5807", "E5404")),
    ("static_analysis.illegal_anfnode_for_evaluating_node_type_fg", RULE, ("E5401",)),
    ("static_analysis.the_object_is_not_callable_please_check", RULE, ("E5401",)),
    ("prim_utils.unsupported_parameter_type_for_python_primitive_the", RULE, ("E5511",)),
    ("py.parser.an_error_occurred_while_parsing_the_positional", RULE, ("E6003",)),
    ("py.parser.failed_to_compile_in_graph_mode_because_creating", RULE, ("E6002",)),
    ("py.standard_method.max_cannot_support_tensor_in_list_or", RULE, ("E6101",)),
    ("py.standard_method.min_cannot_support_tensor_in_list_or", RULE, ("E6101",)),
    ("resolve.the_parameter_its_name_already_exists_please", RULE, ("W6201", "E6202")),
    # nn.LSTM/GRU/RNN (and cells) checking hx: "For 'LSTM', the 'hx' must be Tuple, but got Tensor"
    ("text:^For '\\{\\}', the '\\{\\}' must be '\\{\\}', but got", RULE, ("E5211",)),

    # ---- value-dependent: values, shapes, dtypes or argument types only known when the network is called -----
    ("abstract_value.can_not_get_size_for_dynamic_length", VALUE,
     "a mutable (dynamic-length) list's length is only known at run time; this use needs it at compile time"),
    ("abstract_value.can_not_call_function_empty_for_dynamic", VALUE,
     "a mutable (dynamic-length) list's emptiness is only known at run time"),
    ("abstract_value.can_not_get_element_from_dynamic_length", VALUE,
     "an element of a mutable (dynamic-length) list is only known at run time"),
    ("abstract_value.in_graph_mode_the_element_type_of", VALUE,
     "the element dtypes of a list made dynamic-length (mutable) differ"),
    ("abstract_value.in_graph_mode_the_element_shape_of", VALUE,
     "the element shapes of a list made dynamic-length (mutable) differ"),
    ("check_convert_utils.the_abstract_is_not_same_with_the", VALUE,
     "an item appended to a mutable (dynamic-length) list differs in type or shape from its items"),
    ("gather_nd.for_primitive_the_in_gathernd_the_input", VALUE,
     "GatherNd (Tensor indexing, ops.gather_nd): the index's last dimension exceeds the input's rank (shapes)"),
    ("gathernd_cpu_kernel.for_the_indices_does_not_index_into", VALUE,
     "GatherNd (Tensor indexing, ops.gather_nd): an index value is out of range, found by the kernel at run time"),
    ("text:^The truth value of an array with more than one element", VALUE,
     "a Tensor with more than one element used as a condition or a bool (its shape)"),
    ("py.standard_method.only_tensor_which_shape_is_or_can", VALUE,
     "bool() of a Tensor with more than one element (its shape)"),
    ("py.standard_method.can_not_convert_tensor_with_more_than", VALUE,
     "int()/float() of a Tensor with more than one element (its shape)"),
    ("data_converter.can_only_convert_tensor_with_one_element", VALUE,
     "a constant Tensor of more than one element used as a number (its shape)"),
    ("data_converter.can_not_convert_to_int", VALUE, "a constant Tensor of a non-integer dtype used as an int"),
    ("data_converter.can_not_convert_to_number", VALUE, "a constant Tensor of an unsupported dtype used as a number"),
    ("data_converter.attribute_of_should_be_int_or_tensor", VALUE, "the type of a slice bound (int or int Tensor)"),
    ("data_converter.attribute_convert_error_with_type", VALUE, "a Python object of a type MindSpore cannot convert"),
    ("data_converter.get_arg_is_not_mindspore_type", VALUE, "an operator's dtype argument is not a MindSpore dtype"),
    ("async_eval_result.there_isn_t_any_branch_that_can", VALUE,
     "recursion (or a loop) whose stop condition depends on Tensor values"),
    ("evaluator.the_shape_of_sense_must_not_be", VALUE, "the gradient's sens has a dynamic shape"),
    ("evaluator.the_orig_abs_should_be_abstracttensor_when_corresponding", VALUE,
     "vmap's in_axes does not fit the inputs given (a non-Tensor input mapped on an axis)"),
    ("evaluator.the_axis_in_in_axes_is_out_of", VALUE, "vmap's in_axes is out of the inputs' rank (shapes)"),
    ("evaluator.the_axis_in_out_axes_is_out_of", VALUE, "vmap's out_axes is out of the outputs' rank (shapes)"),
    ("evaluator.the_axis_size_of_each_argument_in_the", VALUE, "vmap's inputs differ in their mapped axis' size"),
    ("evaluator.the_outputs_of_vmap_s_fn_should", VALUE, "what vmap's fn returns (not Tensors or constants)"),
    ("prim.for_operator_s_type_does_not_match", VALUE,
     "an operator given an argument of the wrong type; " + PYNATIVE_TOO),
    ("prim_utils.unsupported_parameter_for_python_primitive", VALUE,
     "a Python primitive given a value only known at run time"),
    ("prim.when_creating_an_instance_of_all_arguments", VALUE,
     "a class instantiated in graph code with a run-time (variable) argument"),
    ("prim.for_scan_op_supposed_to_have_the", VALUE, "Scan's length differs from the length of xs"),
    ("prim.for_scan_op_expect_abstract_of_argument", VALUE, "the type of Scan's xs (not a tuple, list or None)"),
    ("prim.scan_op_has_invalid_xs_argument", VALUE, "the type of Scan's xs"),
    ("py.standard_method.when_the_input_to_is_dynamic_length", VALUE,
     "max()/min() of a dynamic-length sequence of non-scalars"),
    ("py.standard_method.arg_is_an_empty_sequence", VALUE, "max()/min() of an empty sequence; " + PYNATIVE_TOO),
    ("py.standard_method.max_arg_is_an_empty_sequence", VALUE, "max() of an empty sequence; " + PYNATIVE_TOO),
    ("py.standard_method.min_arg_is_an_empty_sequence", VALUE, "min() of an empty sequence; " + PYNATIVE_TOO),
    ("py.standard_method.cannot_iterate_over_a_scalar_tensor", VALUE, "iterating a 0-d Tensor (its shape)"),
    ("py.standard_method.max_or_min_does_not_support_the", VALUE, "max()/min() of values of an unsupported type"),
    ("py.standard_method.the_object_is_not_iterable", VALUE, "max()/min() of a non-iterable value; " + PYNATIVE_TOO),
    ("py.standard_method.object_is_not_iterable", VALUE, "sum() of a non-iterable value; " + PYNATIVE_TOO),
    ("py.standard_method.for_enumerate_the_first_input_should_be", VALUE,
     "enumerate() of a value that is not a tuple, list or Tensor"),
    ("py.standard_method.bool_does_not_support_sparse_tensor_input", VALUE, "bool() of a sparse Tensor"),
    ("py.standard_method.list_does_not_support_single_sparse_tensor", VALUE, "list() of a sparse Tensor"),
    ("py.standard_method.tuple_does_not_support_single_sparse_tensor", VALUE, "tuple() of a sparse Tensor"),
    ("py.standard_method.currently_dict_only_supports_tuple_or_list", VALUE, "dict() of a value not a tuple or list"),
    ("py.standard_method.for_sum_to_size_size_is_not_expandable_to", VALUE,
     "Tensor.sum_to_size: the size does not fit the Tensor's shape"),
    ("py.standard_method.for_repeat_number_of_items_of_repeats", VALUE,
     "Tensor.repeat: fewer repeats than the Tensor's rank"),
    ("py.standard_method.the_size_of_sorter_must_be_the", VALUE, "Tensor.searchsorted: sorter's size (shapes)"),
    ("py.standard_method.for_the_should_be_a_const_int", VALUE,
     "an argument that must be a constant int is a run-time value or of another type"),
    ("text:^For Tensor\\.|^For 'Tensor\\.|^For select|^For view_as|^The shape variable|^Only one tuple is needed",
     VALUE, "an argument of a Tensor method, checked against its value or type; " + PYNATIVE_TOO),
    ("text:^For '\\{\\}', the length of '\\{\\}' must be", VALUE, "the length of an LSTM's hx tuple (h, c)"),

    # ---- device: backend, device or environment ----------------------------------------------------------------
    ("gathernd_cpu_kernel.gathernd_does_not_support_this_kernel_data", DEVICE,
     "the CPU GatherNd kernel has no implementation for this dtype"),
    ("gathernd_cpu_kernel.for_memcpy_s_failed_error_no", DEVICE, "a memory copy failed in the CPU GatherNd kernel"),
    ("py.parser.mindspore_can_not_compile_temporary_source_code", DEVICE,
     "environment: graph code typed into an interactive terminal has no source file"),
    ("py.parser.don_t_have_the_write_permission_on", DEVICE,
     "environment: MindSpore cannot write a source file it needs"),

    # ---- no-rule: readable from the source, but no rule's examples produce the message --------------------------
    ("parse.the_generators_supports_comprehension_in_dictcomp_generatorexp", NO_RULE,
     "a dict comprehension with two `for`s: E5113 reports it, no compiled example shows this message"),
    ("function_block.the_name_is_not_defined_or_not", NO_RULE,
     "an undefined (or unsupported) name; no compiled example shows this message"),
    ("resolve.the_name_is_not_defined", NO_RULE, "an undefined global name; " + PYNATIVE_TOO),
    ("function_block.cell_shard_or_ms_shard_not_supported", NO_RULE, "Cell.shard / ms.shard called in graph code"),
    ("function_block.it_is_not_supported_to_register_multiple", NO_RULE,
     "two hooks registered for one Tensor in graph code"),
    ("parse.do_not_support_using_under_ast_mode", NO_RULE, "jit_trace / trace markers used inside graph code"),
    ("parse.dead_code_exist_please_remove_it_node", NO_RULE, "statements after a return, break or continue"),
    ("parse.only_support_number_type_of_int_and", NO_RULE, "a number literal that is not int or float (complex)"),
    ("parse.unsupported_constant_type", NO_RULE, "a literal of an unsupported type (such as bytes)"),
    ("parse.argument_of_super_must_be_self_but", NO_RULE, "super(A, obj) with obj other than self"),
    ("parse.arguments_number_of_super_should_be_or", NO_RULE, "super() with one or three arguments; " + PYNATIVE_TOO),
    ("py.parser.the_first_argument_of_super_must_be", NO_RULE, "super(A, self) with A not a class; " + PYNATIVE_TOO),
    ("py.parser.the_second_argument_of_super_must_be", NO_RULE, "super(A, obj) with obj other than self"),
    ("parse.unsupported_exception_type_raise_only_support_some", NO_RULE,
     "raise of an exception class graph mode does not support (a custom exception)"),
    ("prim.unsupported_exception_type_raise_only_support_some", NO_RULE,
     "raise of an exception class graph mode does not support (a custom exception)"),
    ("parse.syntaxerror_starred_expressions_in_assignment", NO_RULE,
     "two starred targets in one assignment (a SyntaxError in Python too)"),
    ("parse.in_graph_mode_only_attribute_and_name", NO_RULE,
     "an assignment target graph mode does not support; no compiled example shows this message"),
    ("parse.only_supported_augassign_to_attribute_of_self", NO_RULE,
     "an augmented assignment to an unsupported target; no compiled example shows this message"),
    ("parse.should_be_initialized_in_the_init___function", NO_RULE,
     "item assignment to a self attribute that __init__ does not set; " + PYNATIVE_TOO),
    ("parse.celllist_or_celldict_object_is_not_support", NO_RULE, "item assignment into a CellList or CellDict"),
    ("resolve.the_parameter_in_obj_with_nested_structure", NO_RULE,
     "a Parameter nested deeper than a tuple/list/dict of Parameters"),
    ("prim.do_not_support_to_set_attribute_for", NO_RULE,
     "setattr on a Parameter in graph code; no compiled example shows this message"),
    ("text:^\\{\\} object has no attribute: ", NO_RULE, "a missing attribute; " + PYNATIVE_TOO),
    ("prim.for_getattr_the_third_input_default_can", NO_RULE, "getattr() with a Python object as its default"),
    ("prim.getattr_attribute_name_must_be_string_but", NO_RULE, "getattr() with a name that is not a str"),
    ("prim.create_python_object_failed_only_support_to", NO_RULE,
     "a class instantiated in graph code that is not a Cell, Primitive or jit_class"),
    ("text:^\\{\\} has no \\{\\} function, please check the code", NO_RULE,
     "a jit_class lacks the method its use needs (__call__, or __enter__/__exit__ for `with`)"),
    ("static_analysis.is_not_a_callable_object", NO_RULE, "an object that is not callable is called"),
    ("py.parser.is_not_supported_both_in_jit_fallback", NO_RULE,
     "a module graph mode and its fallback both refuse (such as a C extension)"),
    ("py.standard_method.the_method_move_to_is_not_supported_in", NO_RULE, "Tensor.move_to in graph code"),
    ("py.standard_method.register_hook_for_parameter_inside_graph_is", NO_RULE,
     "Parameter.register_hook in graph code"),
    ("evaluator.in_jit_strict_mode_the_primitive_does", NO_RULE,
     "STRICT: a primitive given a Python object; no compiled example shows this message"),
    ("prim.grad_with_sens_but_the_sens_is", NO_RULE, "GradOperation(sens_param=True) called without sens"),
    ("evaluator.the_axis_in_vmap_s_in_axes_should", NO_RULE, "vmap's in_axes holds something other than None or int"),
    ("evaluator.the_axis_in_vmap_s_out_axes_should", NO_RULE,
     "vmap's out_axes holds something other than None or int"),
    ("evaluator.the_size_of_vmap_s_out_axes_should", NO_RULE,
     "vmap's out_axes does not match the number of fn's results"),
    ("evaluator.if_you_want_to_execute_the_model", NO_RULE,
     "vmap's axis_size differs from the number of Cells in the CellList"),
    ("text:^For `Scan` op|^ForiLoop op", NO_RULE, "an argument of ops.Scan / ops.ForiLoop of the wrong kind"),
    ("prim.for_operator_the_inputs_number_should_be", NO_RULE, "an operator called with too many or too few inputs"),
    ("prim.for_operator_the_number_of_inputs_and", NO_RULE, "an operator called with too many or too few inputs"),
    ("prim_utils.for_operator_the_number_of_including_default", NO_RULE,
     "an operator called with too many or too few inputs"),
    ("prim_utils.for_primitive_only_positional_arguments_as_inputs", NO_RULE, "a Primitive called with a keyword"),
    ("prim_utils.got_an_unexpected_keyword_argument", NO_RULE, "an operator called with an unknown keyword"),
    ("builtin_prim.abs_requires_argument", NO_RULE, "abs() without an argument; " + PYNATIVE_TOO),
    ("builtin_prim.round_requires_or_arguments", NO_RULE,
     "round() with the wrong number of arguments; " + PYNATIVE_TOO),
    ("py.standard_method.max_requires_argument_at_least", NO_RULE, "max() without arguments; " + PYNATIVE_TOO),
    ("py.standard_method.min_requires_argument_at_least", NO_RULE, "min() without arguments; " + PYNATIVE_TOO),
    ("py.standard_method.sum_requires_or_arguments", NO_RULE,
     "sum() with the wrong number of arguments; " + PYNATIVE_TOO),
    ("py.standard_method.repeat_got_multiple_values_for_argument_repeat", NO_RULE,
     "Tensor.repeat given `repeats` twice; " + PYNATIVE_TOO),
    ("parse.the_input_of_dict_which_need_unpack", NO_RULE,
     "`**x` in a dict display where x is not a dict; " + PYNATIVE_TOO),
    ("static_analysis.the_tuple_getitem_index_should_be_less_than", NO_RULE,
     "a constant index past the end of a tuple; " + PYNATIVE_TOO),
    ("prim_utils.custom_operator_primitive_s_attribute_output_num_not", NO_RULE,
     "a Custom operator's output_num does not match its infer function"),

    # ---- internal: compiler invariants ------------------------------------------------------------------------
    ("text:^Index: \\{\\} out of range: \\{\\}$", INTERNAL, "a compiler invariant"),
    ("macro:INTERNAL", INTERNAL, "MindSpore marks it an internal error"),
    ("py.trope.this_operation_is_not_meant_to_be", INTERNAL, "a parser helper called directly"),
    ("text:^eval_script\\(\\)|^When call 'create_instance'|^Should not get item from a object|"
     "^Obj should be nn\\.CellList|^nn\\.CellList is missing",
     INTERNAL, "a helper of the parser given what the parser never passes"),
    ("text:args size should equal to inputs size|^Input size: \\{\\} should bigger|"
     "^Switch evaluator requires|^Not support this condition value|^The abstract of view operation|"
     "^Expect a string, but got|^Expect to get string or PrimitivePtr|"
     "^Can not get origin function from constexpr|^For Primitive [GS]etAttr, the input size|"
     "^Expected args_abs_list size|^CreateInstanceEvaluator|^Failed to evaluate loop function|"
     "^Constant raise is not raising|^Trace node missing|^Encounter error: .* nested trace graph|"
     "^Invalid model type|^There are at least 2 evaluators|^Operator '\\{\\}' is invalid|"
     "^The number of outputs must be greater than the inplace|^The func graph .* has no return node|"
     "^\\{\\} value is nullptr|^Unexpected type, namespace|^Resolve class Parameter error|"
     "^Parameter object should have name attribute|^The attr operate has wrong input|"
     "^Unsupported NameConstant type|^Can not find converter for|^Invalid shape, need list|"
     "is not supported as the default value for",
     INTERNAL, "a compiler invariant"),
)


# --------------------------------------------------------------------------------------------
# Reading the mirror
# --------------------------------------------------------------------------------------------

def _git(mirror: str, *args: str) -> str:
    return subprocess.run(["git", "-C", mirror, *args], check=True, capture_output=True, text=True,
                          encoding="utf-8", errors="replace").stdout


def source_files(mirror: str) -> list:
    names = _git(mirror, "ls-tree", "-r", "HEAD", "--name-only").splitlines()
    chosen = [n for n in names if n.startswith(FRONTEND) and n.endswith((".cc", ".h", ".py"))]
    chosen += [n for n in EXTRA if n in names]
    missing = sorted(set(EXTRA) - set(names))
    if missing:
        raise SystemExit(f"error_inventory: files gone from the mirror: {', '.join(missing)} (update EXTRA)")
    return sorted(set(chosen))


def mirror_version(mirror: str) -> tuple:
    version = _git(mirror, "show", "HEAD:version.txt").strip()
    commit = _git(mirror, "rev-parse", "HEAD").strip()
    return version, commit


# --------------------------------------------------------------------------------------------
# C++ error sites
# --------------------------------------------------------------------------------------------

_SITE = re.compile(r"\bMS_(?P<internal>INTERNAL_)?EXCEPTION\((?P<exc>\w+)\)\s*<<|"
                   r"\bMS_LOG\((?P<log>EXCEPTION|INTERNAL_EXCEPTION)\)\s*<<")
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "0": "\0", "r": "\r"}
_FUNCTION_HEAD = re.compile(r"^ {0,2}(?!namespace\b|class\b|struct\b|using\b|template\b|static_assert\b|return\b|if\b|"
                            r"for\b|while\b|switch\b|#|//|}|\(|\s)[^;=\n]*?\b(?P<name>[A-Za-z_~][\w:~]*)\s*\(", re.M)


def _blank(text: str) -> str:
    """``text`` with comments and the contents of string/char literals replaced by spaces (offsets kept).
    String delimiters stay, so literals can still be found."""
    out, i, n = list(text), 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out[i:j] = " " * (j - i)
            i = j
        elif c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out[i:j] = [ch if ch == "\n" else " " for ch in text[i:j]]
            i = j
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            open_paren = text.find("(", i)
            delim = text[i + 2:open_paren]
            j = text.find(")" + delim + '"', open_paren)
            j = n if j < 0 else j + len(delim) + 2
            out[i + 1:j - 1] = [ch if ch == "\n" else " " for ch in text[i + 1:j - 1]]
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out[i + 1:j] = " " * (j - i - 1)
            i = j + 1
        else:
            i += 1
    return "".join(out)


def _unescape(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            out.append(_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def _split_top(code: str, blank: str, separator: str) -> list:
    """Split ``code`` at ``separator`` outside brackets (``blank`` is its literal-free twin)."""
    pieces, depth, start, i = [], 0, 0, 0
    while i < len(blank):
        c = blank[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and blank.startswith(separator, i) and \
                (separator != "+" or (blank[i + 1:i + 2] not in "+=" and blank[i - 1:i] != "+")):
            pieces.append((code[start:i], blank[start:i]))
            i += len(separator)
            start = i
            continue
        i += 1
    pieces.append((code[start:], blank[start:]))
    return pieces


def _literal_text(code: str, blank: str):
    """The text of a piece made only of adjacent string literals, else None."""
    if not blank.strip() or blank.strip()[0] != '"':
        return None
    parts, i = [], 0
    while i < len(blank):
        c = blank[i]
        if c.isspace():
            i += 1
            continue
        if c != '"':
            return None
        j = blank.index('"', i + 1)
        parts.append(_unescape(code[i + 1:j]))
        i = j + 1
    return "".join(parts)


def _piece_text(code: str, blank: str) -> str:
    text = _literal_text(code, blank)
    if text is not None:
        return text
    if code.strip() == "std::endl":
        return "\n"
    operands = _split_top(code, blank, "+")
    if len(operands) > 1 and any(_literal_text(c, b) is not None for c, b in operands):
        return "".join(t if (t := _literal_text(c, b)) is not None else "{}" for c, b in operands)
    return "{}"


def _join(pieces) -> str:
    return re.sub(r"(\{\})+", "{}", "".join(pieces))


def _statement_end(blank: str, start: int) -> int:
    depth, i = 0, start
    while i < len(blank):
        c = blank[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return i
        elif c == ";" and depth == 0:
            return i
        i += 1
    return len(blank)


def _stream_pieces(text: str, blank: str, start: int, end: int) -> list:
    return [_piece_text(c, b) for c, b in _split_top(text[start:end], blank[start:end], "<<")]


def _enclosing_function(blank: str, offset: int) -> tuple:
    """(name, start offset) of the function around ``offset``: the last column-0 signature before it."""
    found = None
    for match in _FUNCTION_HEAD.finditer(blank, 0, offset):
        rest = blank[match.end():offset]
        body = min((i for i in (rest.find("{"), rest.find(";")) if i >= 0), default=-1)
        if body >= 0 and rest[body] == "{":  # a definition, not a call statement
            found = match
    if found is None:
        return "<file>", 0
    return found.group("name").split("::")[-1], found.start()


_CHECK_VALUE = re.compile(r"\bMS_CHECK_VALUE\(")
_FORMAT_CHECK = re.compile(r"^\s*CheckAndConvertUtils::FormatCheckIntegerMsg\(")


def _check_value_sites(path: str, text: str, blank: str) -> list:
    """``MS_CHECK_VALUE(cond, msg)`` raises ValueError with ``msg``; MindSpore's checks build it with
    ``CheckAndConvertUtils::FormatCheckIntegerMsg("name", value, op, bound, primitive)``, which writes
    "For primitive[<op>], the <name> must <op><bound>, but got <value>."."""
    sites = []
    for match in _CHECK_VALUE.finditer(blank):
        end = _statement_end(blank, match.end())
        arguments = _split_top(text[match.end():end], blank[match.end():end], ",")
        if len(arguments) < 2:
            continue
        code = ",".join(c for c, _ in arguments[1:])
        code_blank = ",".join(b for _, b in arguments[1:])
        head = _FORMAT_CHECK.match(code_blank)
        if head:
            inner = _split_top(code[head.end():], code_blank[head.end():], ",")
            name = _literal_text(*inner[0])
            template = "For primitive[{}], the " + (name if name is not None else "{}") + " must {}, but got {}."
        else:
            template = _join([_piece_text(code, code_blank)])
        function, _ = _enclosing_function(blank, match.start())
        sites.append({"template": template, "exception": "ValueError", "macro": "MS_CHECK_VALUE", "file": path,
                      "line": text.count("\n", 0, match.start()) + 1, "function": function})
    return sites


def _deferred_sites(path: str, text: str, blank: str) -> list:
    sites = []
    for name, exc in DEFERRED.get(path, {}).items():
        head = re.search(r"^[^;\n]*\b" + re.escape(name) + r"\(", blank, re.M)
        if head is None:
            raise SystemExit(f"error_inventory: {name} is gone from {path} (update DEFERRED)")
        statement = re.compile(r"\b\w+\s*<<").search(blank, head.end())
        stop = _statement_end(blank, statement.end())
        sites.append({"template": _join(_stream_pieces(text, blank, statement.end(), stop)), "exception": exc,
                      "macro": "deferred", "file": path, "line": text.count("\n", 0, statement.start()) + 1,
                      "function": name})
    return sites


def cpp_sites(path: str, text: str) -> list:
    blank = _blank(text)
    sites = _check_value_sites(path, text, blank) + _deferred_sites(path, text, blank)
    for match in _SITE.finditer(blank):
        exc = match.group("exc") or "RuntimeError"
        if match.group("exc"):
            macro = f"MS_{match.group('internal') or ''}EXCEPTION({exc})"
        else:
            macro = f"MS_LOG({match.group('log')})"
        end = _statement_end(blank, match.end())
        pieces = _stream_pieces(text, blank, match.end(), end)
        line = text.count("\n", 0, match.start()) + 1
        function, function_start = _enclosing_function(blank, match.start())
        raw = [p.strip() for p in text[match.end():end].split("<<")]
        streams = [re.fullmatch(r"(\w+)\.str\(\)", piece) for piece in raw]
        stream = next((s.group(1) for s in streams if s), None)
        texts = []
        if stream is not None and literal_length(_join(pieces)) == 0:
            # The `oss << ...;` statements of this function before the raise: those in the raise's block (or an
            # enclosing one) run in sequence and make one message; a sentence written in a nested block is one
            # alternative message of its own (`if (loop) oss << "..."; if (branch) oss << "...";`).
            head = re.compile(r"(?<![\w.])" + re.escape(stream) + r"\s*<<")

            def depth(offset):
                return blank.count("{", function_start, offset) - blank.count("}", function_start, offset)

            base, alternatives = [], []
            for statement in head.finditer(blank, function_start, match.start()):
                stop = _statement_end(blank, statement.end())
                written = _join(_stream_pieces(text, blank, statement.end(), stop))
                if depth(statement.start()) <= depth(match.start()):
                    base.append(written)
                elif re.match(r"[A-Z]", written):
                    alternatives.append(written)
                else:
                    base.append("{}")
            texts = alternatives or [_join(base)]
        else:
            texts.append(_join(pieces))
        for template in texts:
            sites.append({"template": template, "exception": exc, "macro": macro, "file": path, "line": line,
                          "function": function})
    return sites


# --------------------------------------------------------------------------------------------
# Python error sites
# --------------------------------------------------------------------------------------------

def _assigned_text(function, name: str, before: int):
    """The message text last assigned to ``name`` in ``function`` before line ``before``."""
    text = None
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and node.lineno < before and \
                any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            candidate = _message_text(node.value)
            if candidate is not None:
                text = candidate
    return text


def py_sites(path: str, text: str) -> list:
    tree = ast.parse(text)
    sites = []

    def visit(node, scope, function):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = child if not isinstance(child, ast.ClassDef) else function
                visit(child, scope + [child.name], inner)
                continue
            if isinstance(child, ast.Raise) and isinstance(child.exc, ast.Call) and child.exc.args:
                arg = child.exc.args[0]
                message = _message_text(arg)
                if message is None and isinstance(arg, ast.Name) and function is not None:
                    message = _assigned_text(function, arg.id, child.lineno)
                exc = getattr(child.exc.func, "id", None) or getattr(child.exc.func, "attr", "Exception")
                sites.append({"template": _join([message if message is not None else "{}"]), "exception": exc,
                              "macro": "raise", "file": path, "line": child.lineno,
                              "function": ".".join(scope) or "<module>"})
            visit(child, scope, function)

    visit(tree, [], None)
    return sites


# --------------------------------------------------------------------------------------------
# Entries
# --------------------------------------------------------------------------------------------

def literal_length(template: str) -> int:
    return len(re.sub(r"\s+", " ", template.replace("{}", "")).strip())


def message_regex(template: str) -> str:
    """A regex (for ``re.search``) for a template. Only its first line is matched: MindSpore appends details,
    links and call stacks after a newline, and those differ between its versions. Values ``{}`` match anything
    (line breaks included: MindSpore prints abstract values over several lines) and their quotes are optional
    (versions differ in quoting them); values at either end are dropped; white space matches any white space."""
    head = template.strip().split("\n", 1)[0].strip()
    pieces = re.split(r"('?\{\}'?)", head)
    while pieces and (not pieces[0].strip() or "{}" in pieces[0]):
        pieces.pop(0)
    while pieces and (not pieces[-1].strip() or "{}" in pieces[-1]):
        pieces.pop()
    out = []
    for piece in pieces:
        if "{}" in piece:
            value = r"[\s\S]*?"
            out.append(("'?" if piece.startswith("'") else "") + value + ("'?" if piece.endswith("'") else ""))
        else:
            out.append(r"\s+".join(re.escape(word) for word in piece.split()) if piece.strip() else r"\s*")
            if piece[:1].isspace():
                out[-1] = r"\s*" + out[-1]
            if piece[-1:].isspace():
                out[-1] += r"\s*"
    return "".join(out)


def _slug(template: str) -> str:
    words = re.findall(r"[A-Za-z][A-Za-z0-9_]*", template.replace("{}", " "))
    return "_".join(w.lower() for w in words[:7]) or "message"


def _short(path: str) -> str:
    stem = os.path.splitext(os.path.basename(path))[0]
    return "py." + stem if path.endswith(".py") else stem


def extract(mirror: str) -> list:
    sites = []
    for path in source_files(mirror):
        text = _git(mirror, "show", f"HEAD:{path}")
        found = py_sites(path, text) if path.endswith(".py") else cpp_sites(path, text)
        wanted = EXTRA.get(path)
        if wanted is not None:
            found = [s for s in found if re.search(wanted, s["template"])]
        sites += found
    # Sites with no text of their own cannot be told apart from any other message: left out.
    return [s for s in sites if literal_length(s["template"]) >= 4]


def with_ids(sites: list) -> dict:
    entries, seen = {}, {}
    for site in sorted(sites, key=lambda s: (s["file"], s["line"], s["template"])):
        base = f"{_short(site['file'])}.{_slug(site['template'])}"
        seen[base] = seen.get(base, 0) + 1
        key = base if seen[base] == 1 else f"{base}.{seen[base]}"
        entries[key] = dict(site)
    return entries


def _row_matches(matcher: str, key: str, entry: dict, stage: int) -> bool:
    """Stages: 0 the id itself, 1 a text row, 2 the id with a ".N" suffix (the same message at another site),
    3 a macro row."""
    if matcher.startswith("text:"):
        return stage == 1 and re.search(matcher[5:], entry["template"]) is not None
    if matcher.startswith("macro:"):
        return stage == 3 and re.search(matcher[6:], entry["macro"]) is not None
    if stage == 0:
        return key == matcher
    return stage == 2 and key.startswith(matcher + ".") and key[len(matcher) + 1:].isdigit()


def classify(entries: dict) -> list:
    """Add class, rules and reason to each entry; return the problems (unclassified entries, unused rows)."""
    from graphlint.catalogue import BY_NAME

    problems, used = [], set()
    for key, entry in entries.items():
        row = None
        for stage in range(4):
            row = next((r for r in CLASSES if _row_matches(r[0], key, entry, stage)), None)
            if row is not None:
                break
        if row is None:
            problems.append(f"unclassified: {key} ({entry['file']}:{entry['line']}): {entry['template'][:100]!r}")
            continue
        used.add(row[0])
        matcher, cls, detail = row
        if cls not in CLASS_NAMES:
            problems.append(f"{matcher}: unknown class {cls!r}")
        entry["class"] = cls
        if cls == RULE:
            unknown = [rule for rule in detail if rule not in BY_NAME]
            if unknown or isinstance(detail, str):
                problems.append(f"{matcher}: not rule ids: {detail!r}")
            entry["rules"] = tuple(detail)
        else:
            entry["reason"] = detail
    same = {}
    for key, entry in entries.items():
        same.setdefault(message_regex(entry["template"]), []).append(key)
    for keys in same.values():
        kinds = {(entries[k].get("class"), entries[k].get("rules")) for k in keys}
        if len(kinds) > 1:
            problems.append(f"one message, different classes or rules: {', '.join(keys)}")
    for matcher, _, _ in CLASSES:
        if matcher not in used:
            problems.append(f"row matches no entry (stale?): {matcher}")
    return problems


def build(mirror: str) -> tuple:
    """(module text, problems)."""
    version, commit = mirror_version(mirror)
    entries = with_ids(extract(mirror))
    problems = classify(entries)
    for entry in entries.values():
        entry["regex"] = message_regex(entry["template"])
    counts = {}
    for entry in entries.values():
        counts[entry.get("class", "?")] = counts.get(entry.get("class", "?"), 0) + 1
    doc = (f"Every error MindSpore's graph frontend raises, read from its source (commit {commit[:12]}, version\n"
           f"{version}), with what graphlint knows about it. Read by ``graphlint explain-error``.\n\n"
           "That source may be of another MindSpore version than the installed one the other tables are read\n"
           "from: line numbers are those of the commit, and a message is matched on its first line only, its\n"
           "values leniently (their quotes optional).")
    tables = [
        ("SOURCE_COMMIT", commit, "The MindSpore source commit the inventory was read from."),
        ("CLASSES", {name: CLASS_DOCS[name] for name in CLASS_NAMES},
         "The classes of an entry."),
        ("COUNTS", counts, "How many entries each class has."),
        ("INVENTORY", entries,
         "id -> the site: template ('{}' where MindSpore inserts a value), regex (re.search, first line only),\n"
         "exception (as Python sees it), macro (how it is raised), file and line in the source commit, function,\n"
         "class; rules (class 'rule': the rules whose compiled examples produce it) or reason (otherwise)."),
    ]
    text = render_module(version, doc, tables, script=SCRIPT, how=f" (source commit {commit[:12]})")
    return text, problems


CLASS_DOCS = {
    RULE: "a graphlint rule predicts it: the rules' compiled examples produce this message",
    VALUE: "it depends on values, shapes, dtypes or argument types only known when the network is called",
    DEVICE: "backend, device or environment",
    INTERNAL: "a compiler invariant (a MindSpore bug, or not reachable from user code)",
    NO_RULE: "the cause is in the source, but no graphlint rule predicts it (API misuse that fails in "
             "PYNATIVE_MODE too, or graph syntax without a rule yet)",
}


# --------------------------------------------------------------------------------------------
# Checking the `rule` rows against compiled examples
# --------------------------------------------------------------------------------------------

def verify_rules(module_text: str) -> list:
    """Compile every flagged example that fails (MindSpore must be installed; minutes) and check each `rule` row:
    some example of one of its rules produces a message the entry matches best, and no entry claims a rule
    whose examples never produce it."""
    sys.path.insert(0, ROOT)
    from graphlint.catalogue import RULES
    from graphlint.catalogue.model import FAILS
    from graphlint.validate.runner import run_job

    inventory = _assignments(module_text)["INVENTORY"]
    produced = {}  # entry id -> rules whose examples produce it
    for rule in RULES:
        for example in rule.flagged:
            runs = [mode for level, mode in (("lax", "graph"), ("strict", "strict"))
                    if getattr(example, level) == FAILS]
            if not runs:
                continue
            result = run_job({"source": example.source, "filename": "example.py", "module_name": "graphlint_example",
                              "entry": example.entry, "inputs": example.inputs, "runs": runs}, timeout=example.timeout)
            for mode in runs:
                run = result[mode]
                if run.status != "error":
                    continue
                key = best_entry(inventory, f"{run.error_type}: {run.message}")
                if key is not None:
                    produced.setdefault(key, set()).add(rule.id)
    problems = []
    for key, entry in inventory.items():
        if entry["class"] != RULE:
            if key in produced:
                problems.append(f"{key}: classed {entry['class']}, but the examples of {sorted(produced[key])} "
                                "produce it")
            continue
        same = [k for k, e in inventory.items() if e["regex"] == entry["regex"]]
        seen = set().union(*(produced.get(k, set()) for k in same))
        missing = set(entry["rules"]) - seen
        if missing:
            problems.append(f"{key}: no compiled example of {sorted(missing)} produces it")
        extra = seen - set(entry["rules"])
        if extra:
            problems.append(f"{key}: the examples of {sorted(extra)} produce it too")
    return problems


def best_entry(inventory: dict, text: str):
    """The id of the entry that matches ``text`` on its earliest line (then with the most text), or None."""
    best = None
    for key, entry in inventory.items():
        match = re.search(entry["regex"], text)
        if match is not None:
            rank = (text.count("\n", 0, match.start()), -literal_length(entry["template"].split("\n", 1)[0]), key)
            if best is None or rank < best[0]:
                best = (rank, key)
    return best[1] if best else None


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", default=os.environ.get("MS_SOURCE_MIRROR", DEFAULT_MIRROR),
                        help="a git directory of MindSpore's source (default: %(default)s)")
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed file differs")
    parser.add_argument("--verify-rules", action="store_true",
                        help="also compile the catalogue's failing examples and check the `rule` rows (minutes)")
    parser.add_argument("--out", default=OUT, help="the generated module (default: %(default)s)")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.mirror):
        print(f"error_inventory: no MindSpore source mirror at {args.mirror} (--mirror)", file=sys.stderr)
        return 2
    text, problems = build(args.mirror)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        print(f"error_inventory: {len(problems)} problem(s): fix CLASSES in {SCRIPT}", file=sys.stderr)
        return 1
    if args.verify_rules:
        wrong = verify_rules(text)
        if wrong:
            print("\n".join(wrong), file=sys.stderr)
            return 1
        print("the `rule` rows agree with the compiled examples")
    committed = open(args.out, encoding="utf-8").read() if os.path.exists(args.out) else None
    if args.check:
        if committed != text:
            lines = describe_difference("error_inventory", committed, text)
            print("\n".join(["error_inventory.py differs from the source mirror:"] + lines[1:]))
            print(f"\nThe inventory does not match the source mirror: rerun {SCRIPT}, review and commit the diff.")
            return 1
        print("error_inventory.py matches the source mirror")
        return 0
    if committed != text:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text)
        print(f"wrote {os.path.relpath(args.out, ROOT)}")
    else:
        print(f"unchanged {os.path.relpath(args.out, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
