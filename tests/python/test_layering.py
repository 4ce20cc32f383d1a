"""The build's layering holds: no include against cmake/layers.txt, no
include into another folder's internals, no cycle between folders, and one
library per models area, linked in the declared order.

Needs no build; scripts/layering.py does the reading.
"""

from __future__ import annotations

import re

from layering_script import ROOT, layering


def test_no_include_against_the_declared_layers():
    found = layering.violations(layering.read_layers())
    assert found == [], "\n".join(found)


def test_no_cycle_between_folders():
    assert layering.cycles(layering.graph(layering.read_layers())) == []


def test_every_source_folder_is_declared():
    layers = layering.read_layers()
    declared = {f for layer in layers for f in layer}
    for top in ["sim", "io", "analysis", "cli", "python/src"]:
        assert top in declared
    for area in sorted((ROOT / "models").iterdir()):
        if area.is_dir():
            assert f"models/{area.name}" in declared, f"models/{area.name} is not in cmake/layers.txt"


def test_the_checker_sees_a_violation(tmp_path):
    # The check itself is not vacuous: a made-up layering where sim sits
    # above models must flag the real includes of models into sim.
    layers_file = tmp_path / "layers.txt"
    layers_file.write_text("models/service\nsim\n")
    found = layering.violations(layering.read_layers(layers_file))
    assert any("models/service/" in v and "includes sim/" in v for v in found)


def test_internal_headers_are_recognised():
    assert layering.internal_owner("io/scenario_validation.h") == "io"
    assert layering.internal_owner("io/scenario.h") is None
    marked = [p.relative_to(ROOT).as_posix() for p in (ROOT / "io").glob("*.h")
              if layering.internal_owner(p.relative_to(ROOT).as_posix()) == "io"]
    assert marked, "no header of io/ is marked internal: the rule would check nothing"


def test_models_libraries_follow_the_declared_order():
    # models/CMakeLists.txt: one drsim_models_<area> library per area; each
    # links only areas declared below it.
    layers = layering.read_layers()
    areas = [f.split("/", 1)[1] for layer in layers for f in layer if f.startswith("models/")]
    text = (ROOT / "models" / "CMakeLists.txt").read_text(encoding="utf-8")
    for area in areas:
        assert re.search(rf"drsim_model_area\(\s*{area}\b", text), f"no library for models/{area}"
    for match in re.finditer(r"drsim_model_area\(\s*(\w+)\s+DEPENDS([^)]*)\)", text):
        area, depends = match.group(1), match.group(2).split()
        for dependency in depends:
            if dependency.startswith("drsim_models_"):
                below = dependency[len("drsim_models_"):]
                assert areas.index(below) < areas.index(area), f"{area} links {below}, declared above it"
