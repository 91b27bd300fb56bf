"""``python -m graphlint.server``: the same as ``graphlint server``."""

import sys

from graphlint.server import main

sys.exit(main())
