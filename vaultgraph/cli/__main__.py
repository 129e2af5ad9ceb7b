"""`python -m vaultgraph.cli`: the same as the `vaultgraph` script."""

import sys

from vaultgraph.cli import main

sys.exit(main())
