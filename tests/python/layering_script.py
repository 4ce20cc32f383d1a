"""scripts/layering.py as a module, for the tests that check the include
layering (test_layering.py) and the Python import graph (test_import_cycles.py,
which reuses its cycle finder). The script is not a package module: it is
loaded from its path."""

from __future__ import annotations

import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]

_spec = importlib.util.spec_from_file_location("layering", ROOT / "scripts" / "layering.py")
assert _spec is not None and _spec.loader is not None
layering = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(layering)
