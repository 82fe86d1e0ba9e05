"""`python -m dqkit.cli` runs the `dqkit` command."""

import sys

from dqkit.cli import main

sys.exit(main())
