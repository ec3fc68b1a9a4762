"""``python -m vizcoll``: the command line (see :mod:`vizcoll.cli`)."""

import sys

from vizcoll.cli import main

if __name__ == "__main__":
    sys.exit(main())
