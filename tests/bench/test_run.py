"""`make bench` cannot rot: a tiny run of every phase reports every row and raw number.

Never a timed assertion: these settings are far too small to judge anything.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench import alternative, run
from bench.servers import OUR_NOOP, SDK_NOOP
from tests.support import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

TINY = [
    "--calls", "50",
    "--seconds", "0.5",
    "--window", "50",
    "--cold-runs", "1",
    "--distinct", "10",
    "--fleet", "10",
    "--rounds", "2",
    "--memory-distinct", "10",
    "--size-calls", "50",
    "--size-distinct", "5",
    "--sizes", "5,10",
    "--reconciles", "5",
]  # fmt: skip


def bench_run(phases: tuple[str, ...], raw: Path) -> str:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.run",
            *TINY,
            "--phases",
            ",".join(phases),
            "--json",
            str(raw),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_every_phase_but_the_alternative_reports_its_rows(tmp_path: Path) -> None:
    # The alternative and the fleet in Crossplane core have tests of their own
    # (test_the_alternative_reports_each_mix, test_fleet_rig.py).
    phases = tuple(p for p in run.PHASES if p not in ("alternative", "fleet-rig"))
    report = bench_run(phases, tmp_path / "raw.json")
    raw: dict[str, Any] = json.loads((tmp_path / "raw.json").read_text())
    servers = {"function-asya", SDK_NOOP, OUR_NOOP}
    assert {"function", SDK_NOOP, OUR_NOOP, "calls_per_reconcile"} <= set(raw)
    assert {"p50_ms", "rps_8", "rps_32", "cpu_per_call_ms", "cold_start_s"} <= set(raw[SDK_NOOP])
    assert set(raw["sizes"]) == {"10 KB", *run.SIZES}
    assert all(servers <= set(measured) for measured in raw["sizes"].values())
    assert set(raw["cold"]) == set(raw["cold_heavy"]) == servers
    assert set(raw["fleet"]) == servers
    assert "rss_growth_mib" in raw["memory"]
    assert set(raw["per_actor_ms"]) == {"5", "10"}
    for row in (
        "| steady state p50 (one request repeated) |",
        "| steady throughput, 8 in flight |",
        "| cold path p50 (10 distinct) |",
        "| fleet (10 actors): server CPU per reconcile |",
        "| RSS growth, cache full",
        "Request of 200 KB",
        "| Distinct actors | time per actor |",
    ):
        assert row in report
    assert "| Measure | function-asya | SDK no-op | ratio | target | | no-op on our server |" in (
        report
    )
    assert "Targets: " in report


@pytest.mark.usefixtures("go_functions")
def test_the_alternative_reports_each_mix(tmp_path: Path) -> None:
    report = bench_run(("alternative",), tmp_path / "raw.json")
    raw: dict[str, Any] = json.loads((tmp_path / "raw.json").read_text())
    assert set(raw["alternative"]) == set(alternative.MIXES)
    for mix in raw["alternative"].values():
        assert set(mix) == {alternative.OURS, alternative.ALTERNATIVE, alternative.FLOOR}
        for name, side in mix.items():
            # How the numbers of a side hang together, whatever they measured: each of its
            # servers' CPU per reconcile, their sum, and that sum per call.
            servers = [f"{server}_cpu_ms" for server in alternative.SERVERS[name]]
            totals = {"cpu_per_reconcile_ms", "calls_per_reconcile", "cpu_per_call_ms"}
            assert set(side) == {*servers, *totals}
            assert all(isinstance(v, float) and math.isfinite(v) for v in side.values())
            assert side["calls_per_reconcile"] >= 1
            assert side["cpu_per_reconcile_ms"] == pytest.approx(sum(side[s] for s in servers))
            assert side["cpu_per_call_ms"] == pytest.approx(
                side["cpu_per_reconcile_ms"] / side["calls_per_reconcile"]
            )
        assert "function-go-templating_cpu_ms" in mix[alternative.ALTERNATIVE]
        # The report divides by the no-op's own figure, which it shows.
        floor = mix[alternative.FLOOR]["cpu_per_call_ms"]
        assert f"server CPU per call, to the SDK no-op's ({floor:.3f} ms)" in report
    assert "| Measure | function-asya | go-templating + auto-ready | ratio | target | |" in report
    for row in ("| unchanged actor", "| changed actors", "| fleet mix (10 actors"):
        assert row in report
    assert report.count("server CPU per call, to the SDK no-op's") == len(alternative.MIXES)
