"""The README's example is real: its YAML is scenarios/readme_example.yaml and
its printed output is what drsim prints for it today."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess

import pytest

import drsim


def _blocks(readme: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", readme, flags=re.S)


@pytest.fixture(scope="module")
def readme(repo_root: pathlib.Path) -> str:
    return (repo_root / "README.md").read_text()


def test_readme_yaml_is_the_example_file(readme: str, repo_root: pathlib.Path) -> None:
    assert _blocks(readme, "yaml")[0] == (repo_root / "scenarios" / "readme_example.yaml").read_text()


def test_readme_output_is_what_drsim_prints(readme: str, repo_root: pathlib.Path, tmp_path: pathlib.Path) -> None:
    cli = os.environ.get("DRSIM_CLI", str(repo_root / "build" / "cli" / "drsim"))
    if not pathlib.Path(cli).is_file():
        pytest.skip(f"no drsim binary at {cli} (set DRSIM_CLI)")
    printed = subprocess.run(
        [cli, "run", "scenarios/readme_example.yaml", "--out", str(tmp_path)],
        cwd=repo_root, capture_output=True, text=True, check=True,
    ).stdout
    expected = _blocks(readme, "text")[0]
    # The results folder differs; everything else must match to the byte.
    assert printed.replace(str(tmp_path), "results/readme-example") == expected


def test_readme_python_snippet_holds(repo_root: pathlib.Path) -> None:
    result = drsim.load(str(repo_root / "scenarios" / "readme_example.yaml")).run(seed=1)
    assert set(result.timeseries(metric="zone.up").columns) >= {"t_s", "metric", "region", "zone", "value"}
    assert result.kpi("zone.availability", zone="eu-west-a") == 0.75


def test_readme_python_blocks_run(readme: str, repo_root: pathlib.Path, tmp_path: pathlib.Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # The README's Python, in order, in one namespace, from a scratch folder
    # that sees the repository's scenarios. Only the sweep's size shrinks
    # (500 seeds take a minute; the call is the same).
    blocks = _blocks(readme, "python")
    assert len(blocks) == 2 and "range(500)" in blocks[1]
    for name in ("scenarios", "topologies"):
        (tmp_path / name).symlink_to(repo_root / name)
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    for i, block in enumerate(blocks):
        code = block.replace("range(500)", "range(2)").replace("range(5)", "range(2)")
        exec(compile(code, f"README.md[python block {i}]", "exec"), namespace)  # noqa: S102
    assert namespace["variant"].seed == 7  # type: ignore[attr-defined]
    assert len(namespace["sw"].runs) == 4  # type: ignore[attr-defined]
    assert (tmp_path / "review.html").is_file() and (tmp_path / "sweep" / "manifest.json").is_file()
    assert len(namespace["u"].runs) == 16 * 4 * 2  # type: ignore[attr-defined]
    assert (tmp_path / "base.json").is_file()
