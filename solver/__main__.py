"""`python -m solver` is the `t42` command."""

import sys

from .cli import main

sys.exit(main())
