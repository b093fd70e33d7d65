"""The fleet-rig phase's tables: the three sides composing a fleet, and the flavor edit."""

from __future__ import annotations

from typing import Any

from bench.fleet_rig import ALTERNATIVE, FLOOR, OURS
from bench.report import Row, judged, ratio_row

SIDES_HEADER = (
    f"| Measure | {OURS} | {ALTERNATIVE} | ratio | target | | {FLOOR} |",
    "|---|---|---|---|---|---|---|",
)
EDIT_HEADER = (
    "| Crossplane core | every affected Deployment carries the edit | they composed afresh in "
    "| ratio | target | | calls per affected actor; answers computed: affected / others |",
    "|---|---|---|---|---|---|---|",
)


def _calls(numbers: dict[str, Any]) -> str:
    """Calls per actor, by function when there are several."""
    each = {k.removeprefix("calls "): v for k, v in numbers.items() if k.startswith("calls ")}
    if len(each) == 1:
        return f"{next(iter(each.values())):.1f}"
    named = ", ".join(f"{name.removeprefix('function-')} {v:.1f}" for name, v in each.items())
    return f"{sum(each.values()):.1f} ({named})"


def side_rows(raw: dict[str, Any], actors: int) -> list[Row]:
    """Composing the fleet: each side's wall time, CPU per actor, calls and memory."""
    f, a, n = raw[OURS], raw[ALTERNATIVE], raw[FLOOR]
    return [
        (
            *ratio_row(
                f"{actors:,} actors composed: wall time",
                f["wall_s"],
                a["wall_s"],
                "s",
                "fleet-rig wall",
            )[:6],
            f"{n['wall_s']:.1f} s",
        ),
        (
            *ratio_row(
                "function servers' CPU per actor",
                f["function_cpu_ms"],
                a["function_cpu_ms"],
                "ms",
                "fleet-rig function CPU",
            )[:6],
            f"{n['function_cpu_ms']:.2f} ms",
        ),
        (
            *ratio_row(
                "Crossplane core's CPU per actor",
                f["core_cpu_ms"],
                a["core_cpu_ms"],
                "ms",
                "fleet-rig core CPU",
            )[:6],
            f"{n['core_cpu_ms']:.2f} ms",
        ),
        (
            *ratio_row(
                "kube-apiserver's CPU per actor",
                f["apiserver_cpu_ms"],
                a["apiserver_cpu_ms"],
                "ms",
                None,
            )[:6],
            f"{n['apiserver_cpu_ms']:.2f} ms",
        ),
        (*judged("calls per actor", _calls(f), _calls(a), "-", None, 0)[:6], _calls(n)),
        (
            *judged(
                "function-asya's response cache while composing: hits / misses",
                f"{f['hits']:,.0f} / {f['misses']:,.0f}",
                "-",
                "-",
                None,
                0,
            )[:6],
            "-",
        ),
        (
            *judged(
                f"function-asya's RSS, {actors:,} actors composed",
                f"{f['rss_mib']:.1f} MiB",
                "-",
                "-",
                "fleet-rig RSS",
                f["rss_mib"],
            )[:6],
            "-",
        ),
    ]


def edit_rows(raw: dict[str, Any]) -> list[Row]:
    """The flavor edit on v2.4 (judged) and on v2.3.4 (what the watch changes)."""
    rows = []
    for core, key, target in (
        ("v2.4.0 (watches)", "edit", "fleet-rig edit"),
        ("v2.3.4 (poll, TTL)", "edit v2.3", None),
        ("v2.4.0, two function-asya replicas", "edit replicas", None),
    ):
        if key not in raw:
            continue
        e = raw[key]
        row = ratio_row(core, e["edit_s"], e["compose_s"], "s", target)[:6]
        detail = (
            f"{e['calls function-asya']:.1f}; {e['computed_affected']:,} / {e['computed_others']:,} "
            f"({e['affected']:,} affected); highest generation {e['generation_affected']} / "
            f"{e['generation_others']}"
        )
        rows.append((*row, detail))
    return rows


def tables(raw: dict[str, Any], actors: int) -> tuple[list[Row], list[str]]:
    """The phase's judged rows and its report lines."""
    sides, edits = side_rows(raw, actors), edit_rows(raw)
    lines = [
        "",
        f"A fleet in Crossplane core v2.4.0 (bench/fleet_rig.py), {actors:,} v2 actors at once, "
        "each side on a fresh control plane:",
        "",
        *SIDES_HEADER,
        *(f"| {' | '.join(row)} |" for row in sides),
        "",
        f"The flavor edit ({actors // 2:,} of the actors list it):",
        "",
        *EDIT_HEADER,
        *(f"| {' | '.join(row)} |" for row in edits),
    ]
    if "replicas" in raw:
        lines += ["", replicas_line(raw)]
    return [row[:6] for row in sides + edits], lines


def replicas_line(raw: dict[str, Any]) -> str:
    """Two replicas against one: CPU per actor by replica, calls and answers computed."""
    two, one = raw["replicas"], raw[OURS]
    each = [v for k, v in sorted(two.items()) if k.startswith("cpu_ms ")]
    return (
        f"Two replicas behind one name, Crossplane balancing them (round robin): composing, "
        f"function CPU per actor {two['function_cpu_ms']:.2f} ms "
        f"({' + '.join(f'{v:.2f}' for v in each)}) against {one['function_cpu_ms']:.2f} ms "
        f"with one; calls per actor {two['calls function-asya']:.1f} against "
        f"{one['calls function-asya']:.1f}; cache misses {two['misses']:,.0f} against "
        f"{one['misses']:,.0f}; largest RSS {two['rss_mib']:.1f} MiB."
    )
