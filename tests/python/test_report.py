"""drsim.report: one self-contained HTML file, checked as text (no external
reference, images embedded, scenario text escaped) and opened in headless
Chromium (Debian's ``chromium``, from scripts/debian-packages.txt) with no
console message from the page and every image decoded."""

from __future__ import annotations

import base64
import os
import pathlib
import re
import subprocess
import sys

import pytest

import drsim
from drsim.report import main, render

ROOT = pathlib.Path(__file__).resolve().parents[2]
TWO_CELL = ROOT / "scenarios" / "two_cell_region_failover.yaml"
PILEUP = ROOT / "scenarios" / "three_region_pool_pileup.yaml"
CHROMIUM = pathlib.Path("/usr/bin/chromium")

# A description with markup: it must come out as text, not as HTML.
HOSTILE = "<script>alert(1)</script> & <b>bold</b>"


@pytest.fixture(scope="module")
def result() -> drsim.Result:
    scenario = drsim.load(TWO_CELL).with_overrides({"metadata.description": HOSTILE})
    return scenario.run()


@pytest.fixture(scope="module")
def comparison() -> drsim.Comparison:
    return drsim.compare(TWO_CELL, {"base": {}, "slow": {"spec.load[spain].routing.healthCheck.requestInterval": "30s"}},
                         seeds=range(3), keep_results=True)


@pytest.fixture(scope="module")
def report_path(result: drsim.Result, tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return drsim.report(result, tmp_path_factory.mktemp("report") / "run.html")


@pytest.fixture(scope="module")
def capacity() -> drsim.CapacityReport:
    # docs/sources.md section 1 at a 70% target: either big zone down overloads the other.
    scenario = drsim.load(ROOT / "scenarios" / "appfabric_az_failure.yaml").with_overrides(
        {"metadata.description": HOSTILE})
    return drsim.check(scenario, utilization_target="70%")


def _self_contained(text: str) -> None:
    assert not re.search(r"https?://", text), re.search(r".{40}https?://.{40}", text)
    assert "<script" not in text
    assert not re.search(r"""(src|href)=["'](?!data:|#)""", text)
    assert "<link" not in text


def test_run_report_is_self_contained(report_path: pathlib.Path) -> None:
    text = report_path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    _self_contained(text)
    images = re.findall(r'src="data:image/png;base64,([^"]+)"', text)
    assert len(images) == 1
    assert base64.b64decode(images[0])[:8] == b"\x89PNG\r\n\x1a\n"
    for section in ("timeline", "objectives", "fault-figures", "faults", "kpis", "summary", "scenario"):
        assert f'<section id="{section}">' in text
    assert "ireland-cell-deleted" in text and "health-check/spain: gslb.region_unhealthy" in text


def test_scenario_text_is_escaped(report_path: pathlib.Path, result: drsim.Result) -> None:
    text = report_path.read_text(encoding="utf-8")
    assert "alert(1)" in text and "<script>alert" not in text and "<b>bold" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in text
    # The resolved YAML is there, escaped as a whole.
    yaml = result.scenario.to_yaml()
    assert "region:fail" in yaml
    assert yaml.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;").replace(
        "'", "&#x27;") in text


def test_objectives_verdicts_are_coloured(tmp_path: pathlib.Path) -> None:
    result = drsim.load(PILEUP).run(until="7m")
    text = render(result, title="pile-up")
    assert "<title>pile-up</title>" in text
    assert text.count('<tr class="fail">') >= 2 and '<tr class="pass">' in text
    assert "Some objectives missed." in text


def test_comparison_report(comparison: drsim.Comparison, tmp_path: pathlib.Path) -> None:
    path = drsim.report(comparison, tmp_path / "cmp.html", title="health check interval")
    text = path.read_text(encoding="utf-8")
    _self_contained(text)
    # The figures by variant, and the first seed's runs side by side (keep_results=True).
    assert len(re.findall(r'src="data:image/png;base64,', text)) == 2
    assert '<section id="timelines">' in text and "Timelines, seed 0" in text
    assert "spec.load[spain].routing.healthCheck.requestInterval=30s" in text
    assert "(baseline: no override)" in text
    assert 'class="comparison"' in text and "ci_low" in text and "ireland-cell-deleted.rto_s" in text


def test_bad_input(result: drsim.Result, tmp_path: pathlib.Path) -> None:
    with pytest.raises(TypeError, match="a drsim.Result, a drsim.Comparison, a drsim.CapacityReport or a drsim.Uncertainty, not str"):
        drsim.report("results/x", tmp_path / "x.html")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="is a directory"):
        drsim.report(result, tmp_path)


def test_command_line(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli.html"
    assert main([str(TWO_CELL), str(out), "--until", "2m", "--title", "cli"]) == 0
    assert "<title>cli</title>" in out.read_text(encoding="utf-8")
    # A results folder: its scenario.yaml is run again up to its end time.
    folder = drsim.load(TWO_CELL).run(until="100s").to_dir(tmp_path / "results")
    assert main([str(folder), str(tmp_path / "dir.html")]) == 0
    assert "100 s simulated" in (tmp_path / "dir.html").read_text(encoding="utf-8")
    assert main([str(tmp_path / "missing.yaml"), str(tmp_path / "m.html")]) == 2
    assert "no such scenario file or results folder" in capsys.readouterr().err
    assert main([str(tmp_path), str(tmp_path / "m.html")]) == 2
    assert "not a drsim results folder" in capsys.readouterr().err
    # python3 -m drsim report: the same, as a process.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.run([sys.executable, "-m", "drsim", "report", str(TWO_CELL), str(tmp_path / "m.html"),
                           "--until", "30s"], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "" and (tmp_path / "m.html").is_file()


def test_capacity_check_report(capacity: drsim.CapacityReport, tmp_path: pathlib.Path) -> None:
    text = drsim.report(capacity, tmp_path / "check.html").read_text(encoding="utf-8")
    _self_contained(text)
    assert "<title>drsim check: appfabric-az-failure</title>" in text
    assert "Overloaded in 2 of 4 cases: zone zone-a down, zone zone-b down." in text
    # The utilisation table marks exactly the two cells over 70% (87.5%).
    assert text.count('class="num over">87.5%') == 2 and text.count('class="num over"') == 2
    for section in ("utilization", "worst", "cases", "stations", "populations", "text", "scenario"):
        assert f'<section id="{section}">' in text
    # The worst case per service: api's busiest station, with a zone down.
    worst = text[text.index('<section id="worst">'):text.index('<section id="cases">')]
    assert '<tr class="fail"><td class="text">api</td><td class="text">zone zone-a down</td>' in worst
    assert '<section id="pools">' not in text  # no database calls here
    assert HOSTILE not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    # Pools appear with database calls.
    pools = render(drsim.check(PILEUP))
    assert '<section id="pools">' in pools and "north-shard" in pools


def test_capacity_check_from_the_command_line(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = ROOT / "scenarios" / "appfabric_az_failure.yaml"
    out = tmp_path / "check.html"
    assert main([str(source), str(out), "--check", "--target", "70%"]) == 0
    assert "Overloaded in 2 of 4 cases" in out.read_text(encoding="utf-8")
    assert main([str(source), str(out), "--check"]) == 0  # 80%: still 87.5% over
    assert "Overloaded in 2 of 4 cases" in out.read_text(encoding="utf-8")
    assert main([str(source), str(out), "--check", "--target", "90%"]) == 0
    assert "Every case holds" in out.read_text(encoding="utf-8")
    # A results folder: its scenario.yaml.
    folder = drsim.load(source).run(until="10s").to_dir(tmp_path / "results")
    assert main([str(folder), str(tmp_path / "dir.html"), "--check"]) == 0
    capsys.readouterr()
    assert main([str(source), str(out), "--check", "--until", "1m"]) == 2
    assert "--seed and --until do not apply" in capsys.readouterr().err
    assert main([str(source), str(out), "--target", "70%"]) == 2
    assert "--target goes with --check" in capsys.readouterr().err
    assert main([str(source), str(out), "--check", "--target", "lots"]) == 2
    assert "utilization_target" in capsys.readouterr().err


def test_the_drsim_command_hands_over_to_python(tmp_path: pathlib.Path) -> None:
    """`drsim report` (the C++ command line) runs `python3 -m drsim report`
    with the build tree's package: the same report, the same exit codes."""
    cli = pathlib.Path(os.environ.get("DRSIM_CLI", "build/cli/drsim"))
    if not cli.is_file():
        pytest.skip(f"no drsim binary at {cli} (set DRSIM_CLI)")
    out = tmp_path / "from-cli.html"
    proc = subprocess.run([str(cli), "report", str(TWO_CELL), str(out), "--until", "30s", "--title", "via drsim"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "<title>via drsim</title>" in out.read_text(encoding="utf-8")
    missing = subprocess.run([str(cli), "report", str(tmp_path / "nope.yaml"), str(out)], capture_output=True,
                             text=True, timeout=120)
    assert missing.returncode == 2
    assert "no such scenario file or results folder" in missing.stderr


def _chromium(url: str, profile: pathlib.Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """Headless Chromium's DOM of ``url`` (stdout) and its log (stderr), with
    a profile of its own so that no other Chromium session is involved."""
    return subprocess.run(
        [str(CHROMIUM), "--headless=new", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
         f"--user-data-dir={profile}", "--no-first-run", *extra, "--dump-dom", url],
        capture_output=True, text=True, timeout=90,
    )


def _uncertainty_study() -> drsim.Uncertainty:
    """A small study of tests/data/uncertainty's known-answer case: 24 runs of milliseconds."""
    data = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "uncertainty"
    return drsim.uncertainty(data / "known_answer.yaml", {"spec.timeline[outage].duration": ("10s", "30s")},
                             samples=8, seeds=[1], progress=False, workers=1)


@pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is missing: run scripts/install-deps.sh")
def test_opens_in_headless_chromium(report_path: pathlib.Path, comparison: drsim.Comparison,
                                    capacity: drsim.CapacityReport, tmp_path: pathlib.Path) -> None:
    pages = [  # (file, its heading's end, whether it has figures)
        (report_path, "two-cell-region-failover</h1>", True),
        (drsim.report(comparison, tmp_path / "cmp.html"), "two-cell-region-failover</h1>", True),
        (drsim.report(capacity, tmp_path / "check.html"), "drsim check: appfabric-az-failure</h1>", False),
        (drsim.report(_uncertainty_study(), tmp_path / "uncertainty.html"), "drsim uncertainty: known-answer</h1>",
         True),
    ]
    for path, heading, has_images in pages:
        # A copy with a probe that records, in the DOM, whether each image decoded.
        probe = tmp_path / f"probe-{path.name}"
        probe.write_text(path.read_text(encoding="utf-8").replace(
            "</body>",
            '<script>document.body.setAttribute("data-images", Array.from(document.images)'
            '.map(i => i.complete && i.naturalWidth > 0 ? "ok" : "broken").join(","));</script></body>'),
            encoding="utf-8")
        proc = _chromium(probe.as_uri(), tmp_path / "profile", "--virtual-time-budget=5000")
        assert proc.returncode == 0, proc.stderr[-2000:]
        images = r'data-images="ok(,ok)*"' if has_images else r'data-images=""'
        assert re.search(images, proc.stdout), re.findall(r'data-images="[^"]*"', proc.stdout)
        # The report itself: the page logs nothing to the console (no error, no
        # blocked resource); Chromium's own dbus/GPU noise is not the page's.
        proc = _chromium(path.as_uri(), tmp_path / "profile")
        assert proc.returncode == 0, proc.stderr[-2000:]
        page_messages = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]
        assert page_messages == []
        dom = proc.stdout
        assert "<h1>drsim " in dom and heading in dom
        assert "<table" in dom and "</table>" in dom
        assert ("<img" in dom) == has_images


def test_the_console_check_catches_errors(tmp_path: pathlib.Path) -> None:
    """The filter of the test above does see a page's errors."""
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is missing: run scripts/install-deps.sh")
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><title>x</title><script>missingFunction();</script>", encoding="utf-8")
    proc = _chromium(bad.as_uri(), tmp_path / "profile")
    assert any("Uncaught ReferenceError" in line for line in proc.stderr.splitlines())
