"""21: W5206 as in mindone transformers/utils/import_utils.py:61.

A helper called from construct (mindspore_int -> is_mindspore_available -> _is_package_available)
looks the package up with importlib and calls `logger.debug(f"Detected ... version ...")`.
A handler counts the records over 2 calls.
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


from _support import run  # noqa: E402 - PYNATIVE, GRAPH_MODE and STRICT, fresh each


import importlib.metadata
import importlib.util
import logging


class Count(logging.Handler):
    n = 0

    def emit(self, record):
        Count.n += 1


logger = logging.getLogger("repro_import_utils")
logger.setLevel(logging.DEBUG)
logger.addHandler(Count())


def _is_package_available(pkg_name, return_version=False):
    package_exists = importlib.util.find_spec(pkg_name) is not None
    package_version = "N/A"
    if package_exists:
        try:
            package_version = importlib.metadata.version(pkg_name)
        except importlib.metadata.PackageNotFoundError:
            package_exists = False
        logger.debug(f"Detected {pkg_name} version: {package_version}")
    if return_version:
        return package_exists, package_version
    return package_exists


def is_mindspore_available():
    available, _ = _is_package_available("mindspore", return_version=True)
    return available


def mindspore_int(x):
    if not is_mindspore_available():
        return int(x)
    return x.to(ms.int64) if isinstance(x, ms.Tensor) else int(x)


class Net(nn.Cell):
    def construct(self, x):
        stride = mindspore_int(x.shape[1] * (1 - 0.5))
        return x[:, ::stride]


def drive(call):
    Count.n = 0
    x = Tensor(np.ones((2, 4), np.float32))
    call(x)
    call(x)
    return f"log records for 2 calls: {Count.n}"


run(Net, drive)
