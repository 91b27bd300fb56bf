import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def pytest_collection_modifyitems(config, items):
    # Compile checks are the slow part: spread them first so workers finish together.
    items.sort(key=lambda item: 0 if item.get_closest_marker("compile") else 1)


def pytest_configure(config):
    config.addinivalue_line("markers", "compile: compiles code with real MindSpore in a child process")
