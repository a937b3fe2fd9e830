"""`python -m tabula_rules` is the `tabula` command."""

import sys

from .tools.cli import main

sys.exit(main())
