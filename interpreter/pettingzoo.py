"""`from tabula_rules.pettingzoo import env, parallel_env`: the public names of
interpreter/adapters/pettingzoo.py (docs/ecosystem.md)."""

from .adapters.pettingzoo import *  # noqa: F403
from .adapters.pettingzoo import __all__  # noqa: F401
