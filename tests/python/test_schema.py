"""docs/scenario.schema.json validates every good and shipped scenario, and
matches what the C++ field lists generate."""

from __future__ import annotations

import json
import pathlib

import pytest

import drsim
from conftest import REPO_ROOT, good_scenarios, shipped_scenarios

SCHEMA_FILE = REPO_ROOT / "docs" / "scenario.schema.json"

jsonschema = pytest.importorskip("jsonschema")
yaml = pytest.importorskip("yaml")  # PyYAML, only to turn test files into instances


@pytest.fixture(scope="module")
def schema() -> dict:
    if not SCHEMA_FILE.is_file():
        pytest.skip("docs/scenario.schema.json does not exist yet")
    return json.loads(SCHEMA_FILE.read_text())


def test_schema_is_a_valid_schema(schema: dict) -> None:
    jsonschema.validators.validator_for(schema).check_schema(schema)


def test_schema_file_is_up_to_date(schema: dict) -> None:
    assert schema == drsim.scenario_json_schema(), "regenerate docs/scenario.schema.json"


@pytest.mark.parametrize("path", good_scenarios() + shipped_scenarios(), ids=lambda p: p.name)
def test_scenario_validates(schema: dict, path: pathlib.Path) -> None:
    instance = yaml.safe_load(path.read_text())
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in errors)
