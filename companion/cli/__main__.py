"""``python -m companion.cli``: the ``netzwerk`` command."""

import sys

from . import main

sys.exit(main())
