"""Compare encoded outputs (see :func:`graphlint.validate.child.encode`)."""

from __future__ import annotations

import math

RTOL = 1e-4
ATOL = 1e-5


def difference(expected, actual, path: str = "output") -> str | None:
    """Return why two encoded values differ, or None when they match within tolerance."""
    if expected["t"] != actual["t"]:
        # A 0-d tensor and a Python scalar are the same value seen by two modes.
        exp_value, act_value = _scalar(expected), _scalar(actual)
        if exp_value is not None and act_value is not None:
            return None if _close(exp_value, act_value) else f"{path}: {exp_value} != {act_value}"
        return f"{path}: {expected['t']} != {actual['t']}"
    kind = expected["t"]
    if kind == "tensor":
        if expected["shape"] != actual["shape"]:
            return f"{path}: shape {tuple(expected['shape'])} != {tuple(actual['shape'])}"
        if expected["dtype"] != actual["dtype"]:
            return f"{path}: dtype {expected['dtype']} != {actual['dtype']}"
        for index, (a, b) in enumerate(zip(expected["data"], actual["data"])):
            if not _close(a, b):
                return f"{path}: element {index} is {b}, expected {a}"
        return None
    if kind in ("tuple", "list"):
        if len(expected["items"]) != len(actual["items"]):
            return f"{path}: {len(actual['items'])} items, expected {len(expected['items'])}"
        for index, (a, b) in enumerate(zip(expected["items"], actual["items"])):
            found = difference(a, b, f"{path}[{index}]")
            if found:
                return found
        return None
    if kind == "dict":
        if sorted(expected["items"]) != sorted(actual["items"]):
            return f"{path}: keys {sorted(actual['items'])} != {sorted(expected['items'])}"
        for key in expected["items"]:
            found = difference(expected["items"][key], actual["items"][key], f"{path}[{key!r}]")
            if found:
                return found
        return None
    if kind == "object":
        return None if expected.get("type") == actual.get("type") else f"{path}: object types differ"
    if kind == "float":
        return None if _close(expected["v"], actual["v"]) else f"{path}: {actual['v']} != {expected['v']}"
    return None if expected.get("v") == actual.get("v") else f"{path}: {actual.get('v')!r} != {expected.get('v')!r}"


def outputs_difference(expected: list, actual: list) -> str | None:
    """Compare the outputs of successive calls."""
    if len(expected) != len(actual):
        return f"{len(actual)} calls returned, expected {len(expected)}"
    for call, (a, b) in enumerate(zip(expected, actual)):
        found = difference(a, b, f"call {call + 1}")
        if found:
            return found
    return None


def _scalar(encoded):
    if encoded["t"] in ("int", "float", "bool"):
        return encoded["v"]
    if encoded["t"] == "tensor" and encoded["shape"] == [] and encoded["data"]:
        return encoded["data"][0]
    return None


def _close(a, b) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if isinstance(a, bool) or isinstance(b, bool):
        return bool(a) == bool(b)
    return math.isclose(float(a), float(b), rel_tol=RTOL, abs_tol=ATOL)


def leaf_differences(expected, actual, path: str = "output") -> list[str]:
    """Every part of two encoded values that differs, each with by how much: ``"output[1]: 12 of 16 elements
    differ, by up to 0.69"`` (where :func:`difference` stops at the first element)."""
    if expected["t"] != actual["t"] or expected["t"] not in ("tensor", "tuple", "list", "dict"):
        found = difference(expected, actual, path)
        return [found] if found else []
    if expected["t"] == "tensor":
        if expected["shape"] != actual["shape"] or expected["dtype"] != actual["dtype"]:
            return [difference(expected, actual, path)]
        pairs = list(zip(expected["data"], actual["data"]))
        wrong = [(a, b) for a, b in pairs if not _close(a, b)]
        if not wrong:
            return []
        numeric = [abs(float(a) - float(b)) for a, b in wrong if not isinstance(a, str) and not isinstance(b, str)]
        by = f", by up to {max(numeric):.3g}" if numeric else " (not finite)"
        return [f"{path}: {len(wrong)} of {len(pairs)} elements differ{by}"]
    if expected["t"] == "dict":
        if sorted(expected["items"]) != sorted(actual["items"]):
            return [difference(expected, actual, path)]
        keys = list(expected["items"])
        return [found for key in keys
                for found in leaf_differences(expected["items"][key], actual["items"][key], f"{path}[{key!r}]")]
    if len(expected["items"]) != len(actual["items"]):
        return [difference(expected, actual, path)]
    return [found for index, (a, b) in enumerate(zip(expected["items"], actual["items"]))
            for found in leaf_differences(a, b, f"{path}[{index}]")]
