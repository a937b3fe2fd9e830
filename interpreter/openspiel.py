"""`import tabula_rules.openspiel` registers the OpenSpiel game "tabula": the public
name of interpreter/adapters/openspiel.py (docs/ecosystem.md)."""

from .adapters.openspiel import *  # noqa: F403
from .adapters.openspiel import __all__  # noqa: F401
