"""`python -m interpreter` is the `tabula` command."""

import sys

from .cli import main

sys.exit(main())
