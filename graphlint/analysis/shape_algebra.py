"""Static shapes computed from the shape facts of :mod:`graphlint.analysis.rewrite_facts`.

A shape fact is relative: the shape of a root value (``("like", ("param", "x"))``), or an operation on other facts
(``("reshape", ("like", ("param", "x")), 2, -1)``). :func:`evaluate` computes the static shape of a fact once the
roots' shapes are given, as MindSpore's type inference does for each call (a function compiled for a
``(1, 3, 224, 224)`` input). Forms:

* ``("0d",)``, ``("like", root)``, ``("broadcast", a, b, ...)``, ``("keepdims", s)`` (axes unknown: no shape),
  ``("either", a, b, ...)`` (one of them: known where they agree);
* ``("dims", d, ...)``: each ``d`` an int, ``("dim", fact, axis)`` (``x.shape[0]``) or ``("arith", op, d, d)``
  (``c // 3``);
* ``("reshape", s, d, ...)`` (one ``d`` may be -1), ``("permute", s, perm)``, ``("swap", s, a, b)``,
  ``("squeeze", s, axis or None)``, ``("unsqueeze", s, axis)``, ``("flatten", s, start, end)``;
* ``("stack", axis, s, ...)``, ``("concat", axis, s, ...)``;
* ``("matmul", a, b)``; ``("reduce", s, axes, keep)`` (``axes`` a tuple);
* ``("window", s, spatial, channels, kernel, stride, pad_mode, padding, dilation, ceil_mode)``: a convolution or
  pooling layer; ``("dense", s, out)``: a Dense layer;
* ``("index", s, item, ...)``: each item an int, ``("slice", start, stop, step)`` (None for a bound not given),
  ``"new"`` (None in the index) or ``"..."``.
"""

from __future__ import annotations

import math

MAX_DEPTH = 40


def evaluate(fact, root, depth: int = 0) -> tuple | None:
    """The static shape of ``fact``, ``root(fact)`` giving that of a ``("like", root)`` fact; None where it is
    not known or the operation would not type-check."""
    if not isinstance(fact, tuple) or not fact or depth > MAX_DEPTH:
        return None
    tag = fact[0]
    operation = _OPERATIONS.get(tag)
    if tag == "0d":
        return ()
    if tag in ("like", "of"):
        return root(fact)
    if operation is None:
        return None
    try:
        return operation(fact, lambda f: evaluate(f, root, depth + 1))
    except (TypeError, ValueError, IndexError, ZeroDivisionError):
        return None


def _broadcast(fact, shape_of):
    shapes = [shape_of(f) for f in fact[1:]]
    if not shapes or any(s is None for s in shapes):
        return None
    result = shapes[0]
    for shape in shapes[1:]:
        result = _broadcast_shapes(result, shape)
        if result is None:
            return None
    return result


def _either(fact, shape_of):
    """One of several shapes (each instance or branch compiles its own): the shape where they all agree."""
    shapes = {shape_of(f) for f in fact[1:]}
    return shapes.pop() if len(shapes) == 1 else None


def dimension(dim) -> int | None:
    """An int, or arithmetic of ints (``("arith", "*", 4, 32)``), as a non-negative size; None otherwise."""
    found = _dim(dim, lambda fact: None)
    return found if found is not None and found >= 0 else None


def _dim(dim, shape_of):
    if isinstance(dim, bool):
        return None
    if isinstance(dim, int):
        return dim
    if isinstance(dim, tuple) and len(dim) == 4 and dim[0] == "arith":
        a, b = _dim(dim[2], shape_of), _dim(dim[3], shape_of)
        if a is None or b is None or dim[1] == "//" and b == 0:
            return None
        return {"+": a + b, "-": a - b, "*": a * b}[dim[1]] if dim[1] != "//" else a // b
    if isinstance(dim, tuple) and len(dim) == 3 and dim[0] == "dim":
        shape = shape_of(dim[1])
        return shape[dim[2]] if shape is not None and -len(shape) <= dim[2] < len(shape) else None
    return None


def _dims(fact, shape_of):
    dims = [_dim(d, shape_of) for d in fact[1:]]
    return None if any(d is None or d < 0 for d in dims) else tuple(dims)


def _reshape(fact, shape_of):
    shape = shape_of(fact[1])
    dims = [_dim(d, shape_of) for d in fact[2:]]
    if shape is None or any(d is None for d in dims) or dims.count(-1) > 1:
        return None
    size = math.prod(shape)
    if -1 in dims:
        known = math.prod(d for d in dims if d != -1)
        if known == 0 or size % known:
            return None
        dims[dims.index(-1)] = size // known
    return tuple(dims) if math.prod(dims) == size else None


def _axis(axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise IndexError(axis)
    return axis % rank


def _permute(fact, shape_of):
    shape, perm = shape_of(fact[1]), fact[2]
    if shape is None or len(perm) != len(shape):
        return None
    axes = [_axis(a, len(shape)) for a in perm]
    return tuple(shape[a] for a in axes) if sorted(axes) == list(range(len(shape))) else None


def _swap(fact, shape_of):
    shape = shape_of(fact[1])
    if shape is None:
        return None
    a, b = _axis(fact[2], len(shape)), _axis(fact[3], len(shape))
    result = list(shape)
    result[a], result[b] = result[b], result[a]
    return tuple(result)


def _squeeze(fact, shape_of):
    shape, axis = shape_of(fact[1]), fact[2]
    if shape is None:
        return None
    if axis is None:
        return tuple(d for d in shape if d != 1)
    axis = _axis(axis, len(shape))
    return shape[:axis] + shape[axis + 1:] if shape[axis] == 1 else shape


def _unsqueeze(fact, shape_of):
    shape = shape_of(fact[1])
    if shape is None:
        return None
    axis = _axis(fact[2], len(shape) + 1)
    return shape[:axis] + (1,) + shape[axis:]


def _flatten(fact, shape_of):
    shape = shape_of(fact[1])
    if shape is None:
        return None
    if not shape:
        return (1,)
    start, end = _axis(fact[2], len(shape)), _axis(fact[3], len(shape))
    return shape[:start] + (math.prod(shape[start:end + 1]),) + shape[end + 1:]


def _stack(fact, shape_of):
    shapes = [shape_of(f) for f in fact[2:]]
    if not shapes or any(s is None for s in shapes) or len(set(shapes)) != 1:
        return None
    axis = _axis(fact[1], len(shapes[0]) + 1)
    return shapes[0][:axis] + (len(shapes),) + shapes[0][axis:]


def _concat(fact, shape_of):
    shapes = [shape_of(f) for f in fact[2:]]
    if not shapes or any(s is None for s in shapes) or len({len(s) for s in shapes}) != 1 or not shapes[0]:
        return None
    axis = _axis(fact[1], len(shapes[0]))
    if len({s[:axis] + s[axis + 1:] for s in shapes}) != 1:
        return None
    return shapes[0][:axis] + (sum(s[axis] for s in shapes),) + shapes[0][axis + 1:]


def _matmul(fact, shape_of):
    a, b = shape_of(fact[1]), shape_of(fact[2])
    if a is None or b is None or not a or not b:
        return None
    if len(a) == 1 and len(b) == 1:
        return () if a == b else None
    if len(b) == 1:
        return a[:-1] if a[-1] == b[0] else None
    if len(a) == 1:
        return b[:-2] + b[-1:] if a[0] == b[-2] else None
    if a[-1] != b[-2]:
        return None
    batch = _broadcast_shapes(a[:-2], b[:-2])
    return None if batch is None else batch + (a[-2], b[-1])


def _broadcast_shapes(a: tuple, b: tuple):
    """NumPy's broadcast of two static shapes; None where they do not broadcast."""
    rank = max(len(a), len(b))
    result = []
    for axis in range(rank):
        dims = {s[axis - rank + len(s)] for s in (a, b) if axis - rank + len(s) >= 0} - {1}
        if len(dims) > 1:
            return None
        result.append(dims.pop() if dims else 1)
    return tuple(result)


def _reduce(fact, shape_of):
    shape, axes, keep = shape_of(fact[1]), fact[2], fact[3]
    if shape is None:
        return None
    chosen = {_axis(a, len(shape)) for a in axes} if axes is not None else set(range(len(shape)))
    if keep:
        return tuple(1 if i in chosen else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in chosen)


def _index(fact, shape_of):
    shape = shape_of(fact[1])
    if shape is None:
        return None
    items = list(fact[2:])
    if items.count("...") > 1:
        return None
    consumed = sum(1 for item in items if item not in ("new", "..."))
    if consumed > len(shape):
        return None
    if "..." in items:
        at = items.index("...")
        items[at:at + 1] = [("slice", None, None, None)] * (len(shape) - consumed)
    result, axis = [], 0
    for item in items:
        if item == "new":
            result.append(1)
            continue
        size = shape[axis]
        axis += 1
        if isinstance(item, int) and not isinstance(item, bool):
            _axis(item, size)
            continue
        if not (isinstance(item, tuple) and item[0] == "slice"):
            return None
        result.append(len(range(*slice(*item[1:]).indices(size))))
    return tuple(result) + tuple(shape[axis:])


def _window(fact, shape_of):
    """A convolution or pooling over the last ``spatial`` axes: ``("window", s, spatial, out_channels or None,
    kernel, stride, pad_mode, padding, dilation, ceil_mode)`` (MindSpore's formulas for its ``pad_mode``)."""
    _, base, spatial, channels, kernel, stride, pad_mode, padding, dilation, ceil_mode = fact
    shape = shape_of(base)
    if shape is None or len(shape) < spatial + 1:
        return None
    kernel, stride, dilation = (_per_axis(v, spatial, shape_of) for v in (kernel, stride, dilation))
    sides = _sides(padding, spatial)
    if None in (kernel, stride, dilation, sides):
        return None
    result = list(shape)
    for i in range(spatial):
        size, k, s, d = shape[len(shape) - spatial + i], kernel[i], stride[i], dilation[i]
        if pad_mode == "same":
            result[len(shape) - spatial + i] = -(-size // s)
            continue
        padded = size + (sum(sides[i]) if pad_mode == "pad" else 0) - d * (k - 1) - 1
        if padded < 0 or pad_mode not in ("pad", "valid"):
            return None
        result[len(shape) - spatial + i] = (-(-padded // s) if ceil_mode else padded // s) + 1
    if channels is not None:
        result[len(shape) - spatial - 1] = _dim(channels, shape_of)
    return None if None in result else tuple(result)


def _per_axis(value, spatial: int, shape_of):
    values = value if isinstance(value, tuple) and value[:1] not in (("dim",), ("arith",)) else (value,) * spatial
    found = tuple(_dim(v, shape_of) for v in values)
    return found if len(found) == spatial and None not in found else None


def _sides(padding, spatial: int):
    """``((before, after), ...)`` per axis: one int for all, one per axis, or two per axis."""
    if isinstance(padding, int):
        return ((padding, padding),) * spatial
    if isinstance(padding, tuple) and len(padding) == spatial:
        return tuple((p, p) for p in padding)
    if isinstance(padding, tuple) and len(padding) == 2 * spatial:
        return tuple((padding[2 * i], padding[2 * i + 1]) for i in range(spatial))
    return None


def _dense(fact, shape_of):
    shape, out = shape_of(fact[1]), _dim(fact[2], shape_of)
    return shape[:-1] + (out,) if shape and out is not None else None


_OPERATIONS = {
    "broadcast": _broadcast, "dims": _dims, "reshape": _reshape, "permute": _permute, "swap": _swap,
    "squeeze": _squeeze, "unsqueeze": _unsqueeze, "flatten": _flatten, "stack": _stack, "concat": _concat,
    "matmul": _matmul, "reduce": _reduce, "index": _index, "window": _window, "dense": _dense, "either": _either,
}
# the forms a shape fact computes from other facts (the rest are roots and choices)
OPERATION_NAMES = frozenset(_OPERATIONS) - {"broadcast", "either"}
