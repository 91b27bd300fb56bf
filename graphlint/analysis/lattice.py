"""The abstract values of the analysis: a lattice at the bottom of ``graphlint.analysis``, in the compiler's terms.

A :class:`Value` says which kinds an expression may be (Tensor, None, int, tuple ...), whether it is a run-time
*variable* (MindSpore decides it only when the graph runs) or a constant of compilation (with the Python value,
where known), and what the kinds carry: the elements of a sequence of known length (or what each element of one of
unknown length is), the storage a Tensor may share, the ``name=`` of a Parameter, and how MindSpore made it
(interpreted by the JIT fallback, data-shaped). :func:`join` is the compiler's join of branches and loop
carries, :func:`widen` the same across rounds of a fixpoint. Everything above (the evaluator, joins, folding,
the rules) reads values; nothing here knows syntax.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from graphlint.analysis.kinds import BOOL, DICT, FLOAT, INT, LIST, NONE, OBJECT, STR, TENSOR, TUPLE, UNKNOWN


class _Nothing:
    """The type of :data:`NOTHING`: one object, also once pickled and loaded (values cross processes)."""

    def __reduce__(self):
        return "NOTHING"

    def __repr__(self):
        return "NOTHING"


NOTHING = _Nothing()


# Values are never changed once made (``replace`` makes another); not declared frozen, because a frozen dataclass's
# ``__init__`` sets each field through ``object.__setattr__``, five times slower, and the analysis makes millions.
@dataclass(unsafe_hash=True)
class Value:
    kinds: frozenset = frozenset()
    var: bool = False  # a runtime value: decided only when the graph runs
    origin: str = ""  # what makes it a runtime value, e.g. "the Tensor argument `x`"
    items: tuple | None = None  # element values of a tuple/list of known length
    const: object = NOTHING  # the Python value, where known at analysis time
    alias: str = ""  # for Tensors: the storage it may share ("the argument `x`", ...)
    parameter: str = ""  # for a Parameter: the `name=` it was created with, where known (MindSpore keys on it)
    # for a Tensor: the slice (`rows[:n]`) of a Tensor the graph computed, to a length known only at run time, that
    # it is (a loop over it is unrolled over the full static length: see LOOP_OVER_RUNTIME_SLICE)
    sliced_to: str = ""
    each: "Value | None" = None  # a sequence of unknown length: the value of every element (`x.split(n)`)
    # made by the JIT fallback in the interpreter (`t.tolist()`): a Python object, not a graph sequence
    interpreted: bool = False
    # for a Tensor: its shape is decided by the data (a boolean-mask read, `nonzero`, `unique`, ...), so its
    # `.shape`, `len()` and `numel()` are run-time values
    data_shaped: bool = False
    # the Python type PYNATIVE_MODE has where graph mode makes a list or tuple of it (a dict's view: "dict_items")
    host_type: str = ""
    # the kinds that, where the value is one of them, only the interpreter holds it: a join of a tuple and a
    # `dict(...)` the fallback built (`return tuple(...) if not return_dict else dict(...)`) is the interpreter's
    # when it is indexed by a key, which only the dict takes
    interpreted_kinds: frozenset = frozenset()
    # for a dict with constant keys (a display, `{"emissions": e, "mask": m}`): ((key, value), ...), as the compiler
    # types it (`Dictionary[[emissions, mask], [Tensor, Tensor]]`)
    entries: tuple | None = None

    def interpreted_as(self, kind: str) -> bool:
        """Where the value is a ``kind``, the interpreter holds it."""
        return kind in self.kinds and (self.interpreted or kind in self.interpreted_kinds)

    def is_(self, kind: str) -> bool:
        return self.kinds == frozenset({kind})

    def may_be(self, kind: str) -> bool:
        return kind in self.kinds

    @property
    def is_tensor(self) -> bool:
        return self.kinds == frozenset({TENSOR})

    @property
    def known(self) -> bool:
        return self.const is not NOTHING

    @property
    def bottom(self) -> bool:
        return not self.kinds


BOTTOM = Value()


def const(kind: str, value=NOTHING, items=None) -> Value:
    return Value(frozenset({kind}), False, "", items, value)


def of_python(value) -> Value:
    if value is None:
        return const(NONE, None)
    if isinstance(value, bool):
        return const(BOOL, value)
    if isinstance(value, int):
        return const(INT, value)
    if isinstance(value, float):
        return const(FLOAT, value)
    if isinstance(value, str):
        return const(STR, value)
    if isinstance(value, dict):
        return const(DICT)
    if isinstance(value, (list, tuple)):  # (a display passed to a constructor: its items, not the whole value)
        return Value(frozenset({LIST if isinstance(value, list) else TUPLE}), False, "",
                     tuple(of_python(item) for item in value))
    return const(OBJECT)


def variable(kind: str, origin: str, alias: str = "", items=None) -> Value:
    return Value(frozenset({kind}), True, origin, items, NOTHING, alias)


def unknown(var: bool = False, origin: str = "") -> Value:
    return Value(frozenset({UNKNOWN}), var, origin) if var else _UNKNOWN


_UNKNOWN = Value(frozenset({UNKNOWN}))  # (values are immutable: the common one is made once)


def join(*values: Value) -> Value:
    present = [v for v in values if not v.bottom]
    if not present:
        return BOTTOM
    if len(present) == 1:
        return present[0]
    first = present[0]
    kinds = frozenset().union(*(v.kinds for v in present))
    var = any(v.var for v in present)
    origin = next((v.origin for v in present if v.var and v.origin), "")
    items, each = _joined_elements(present)
    known = first.const if all(v.known and _same(v.const, first.const) for v in present) else NOTHING
    alias = next((v.alias for v in present if v.alias), "")
    parameter = first.parameter if all(v.parameter == first.parameter for v in present) else ""
    sliced_to = next((v.sliced_to for v in present if v.sliced_to), "")  # (in one call context or branch is enough)
    interpreted = all(v.interpreted for v in present)
    data_shaped = any(v.data_shaped for v in present)
    host_type = first.host_type if all(v.host_type == first.host_type for v in present) else ""
    partly, origin = _partly_interpreted(present, interpreted, origin)
    return Value(kinds, var, origin, items, known, alias, parameter, sliced_to, each, interpreted, data_shaped,
                 host_type, partly, _joined_entries(present))


def _joined_entries(present: list) -> tuple | None:
    """The entries of dicts joined: where every one has the same keys, each key's values joined."""
    if first := present[0].entries:
        keys = [key for key, _ in first]
        if all(v.entries is not None and [key for key, _ in v.entries] == keys for v in present[1:]):
            return tuple((key, join(*(dict(v.entries)[key] for v in present))) for key in keys)
    return None


def entry_of(value: Value, key) -> Value | None:
    """The value a dict with constant keys holds at ``key``; None where not known."""
    if value.entries is None or not value.is_(DICT):
        return None
    for known_key, entry in value.entries:
        if type(known_key) is type(key) and known_key == key:
            return entry
    return None


def _partly_interpreted(present: list, interpreted: bool, origin: str) -> tuple[frozenset, str]:
    """The kinds a join is the interpreter's for (those only its interpreted alternatives have), and its origin:
    where that object was made, when there are such kinds."""
    if interpreted or not any(v.interpreted or v.interpreted_kinds for v in present):
        return frozenset(), origin
    marked = [v.kinds if v.interpreted else v.interpreted_kinds for v in present]
    partly = frozenset().union(*marked) - frozenset().union(*(v.kinds - m for v, m in zip(present, marked)))
    if partly:
        origin = next((v.origin for v, m in zip(present, marked) if m & partly and v.origin), origin)
    return partly, origin


def _joined_elements(present: list) -> tuple:
    """(items, each) of sequences joined: their items where all have as many, else what any element may be."""
    if all(v.items is not None for v in present) and len({len(v.items) for v in present}) == 1:
        return tuple(join(*parts) for parts in zip(*(v.items for v in present))), None
    if all(v.items is not None or v.each is not None for v in present):
        return None, join(*(element for v in present for element in (v.items if v.items is not None else (v.each,))))
    return None, None


def element_value_of(value: Value) -> Value | None:
    """What indexing or iterating ``value`` gives, where the analysis knows it: one join of its items, or what
    each element of a sequence of unknown length is."""
    if value.items:
        return join(*value.items)
    return value.each


def _same(a, b) -> bool:
    try:
        return type(a) is type(b) and a == b
    except Exception:  # noqa: BLE001 - odd objects never compare equal here
        return False


def widen(old: Value, new: Value) -> Value:
    """Joined with the previous round; values that keep changing lose their constant."""
    merged = join(old, new)
    if old.known and merged.known and not _same(old.const, new.const):
        merged = replace(merged, const=NOTHING)
    return merged
