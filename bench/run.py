"""`make bench`: function-asya against the SDK's own no-op function, in one run.

Every ratio is to a no-op on the SDK's runtime (`bench.sdk_noop`); the no-op served by
function-asya's own server code (`bench.noop`) runs beside it, so the report also shows
what our server costs against the SDK's. The `alternative` phase sets function-asya
against go-templating + auto-ready (`bench.alternative`). Each server runs as its own
process pinned to CPU 0 (when the machine has two or more), the client on CPU 1. Prints
a Markdown report; `--json` also writes raw numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import grpc
from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from bench import alternative, fleet_measure, fleet_report, fleet_rig
from bench import request as bench_request
from bench.fleet import fleet, memory_at_budget
from bench.report import (
    Result,
    Row,
    alternative_rows,
    cold_rows,
    fleet_rows,
    memory_rows,
    report,
    size_rows,
    steady_rows,
)
from bench.servers import (
    BLOCK,
    MEMORY_CACHE_MIB,
    METHOD,
    NOOPS,
    OUR_NOOP,
    PIN,
    SDK_NOOP,
    concurrent,
    cpu_seconds,
    percentile,
    rss_mib,
    sequential,
    server_pid,
    start,
    stop,
)
from function.cli.render import files, pipeline

PHASES = ("steady", "sizes", "scale", "cold", "fleet", "memory", "alternative", "fleet-rig")
# The request sizes of the `sizes` phase: the heavy actor with this many of its Pods
# fetched alongside its flavors (as an unhealthy actor's request carries them).
# The unhealthy actor of Actor health: 30 of its Pods fetched, as its Deployment is short.
SIZES = {"130 KB": 30, "200 KB": 45}
Started = tuple[subprocess.Popen[bytes], str, float]


def steady(names: tuple[str, ...], payload: bytes, args: argparse.Namespace) -> list[Result]:
    """One request repeated: latency, throughput, CPU and memory of each server.

    The servers run side by side and take the timed phases in turns (BLOCK calls
    each, or a slice of the throughput phase), as in `cold`, so the machine's drift
    lands on both alike; the memory windows run one server at a time.
    """
    results = [Result(name) for name in names]
    for result in results:
        colds = []
        for _ in range(args.cold_runs):
            process, _, began = start(result.name)
            colds.append(began)
            stop(process)
        result.numbers["cold_start_s"] = statistics.median(colds)
    started = [start(name) for name in names]
    try:
        _latency_in_turns(started, results, payload, args.calls)
        for in_flight in (8, 32):
            _throughput_in_turns(started, results, payload, in_flight, args.seconds)
        for (process, address, _), result in zip(started, results, strict=True):
            pid = server_pid(process)
            result.numbers["rss_after_load_mib"] = rss_mib(pid)
            windows = []
            for _ in range(2):
                concurrent(address, payload, 8, total=args.window)
                windows.append(rss_mib(pid))
            result.numbers["rss_growth_mib"] = windows[1] - windows[0]
            result.numbers["rss_after_windows_mib"] = windows[1]
    finally:
        for process, _, _ in started:
            stop(process)
    return results


def _turns(count: int, turn: int) -> Iterable[int]:
    """The order the servers take a turn in: alternating, so neither always goes first."""
    return range(count) if turn % 2 else reversed(range(count))


def _latency_in_turns(
    started: list[Started], results: list[Result], payload: bytes, calls: int
) -> None:
    times: list[list[float]] = [[] for _ in started]
    cpu_before = [cpu_seconds(server_pid(process)) for process, _, _ in started]
    for turn in range(max(1, calls // BLOCK)):
        for index in _turns(len(started), turn):
            warm = 200 if turn == 0 else 0
            times[index] += sequential(started[index][1], payload, BLOCK, warm)
    for index, result in enumerate(results):
        cpu = cpu_seconds(server_pid(started[index][0])) - cpu_before[index]
        result.numbers["cpu_per_call_ms"] = cpu / (len(times[index]) + 200) * 1000
        result.numbers["p50_ms"] = statistics.median(times[index]) * 1000
        result.numbers["p99_ms"] = percentile(times[index], 0.99) * 1000


def _throughput_in_turns(
    started: list[Started], results: list[Result], payload: bytes, in_flight: int, seconds: float
) -> None:
    slices = 5
    done = [0] * len(started)
    elapsed = [0.0] * len(started)
    for turn in range(slices):
        for index in _turns(len(started), turn):
            calls, spent = concurrent(
                started[index][1], payload, in_flight, seconds=seconds / slices
            )
            done[index] += calls
            elapsed[index] += spent
    for index, result in enumerate(results):
        result.numbers[f"rps_{in_flight}"] = done[index] / elapsed[index]


def cold(names: tuple[str, ...], payloads: list[bytes]) -> dict[str, dict[str, float]]:
    """Each of many distinct requests sent once to each server: the path a changed actor takes.

    The servers run side by side and take the requests in turns of BLOCK calls, so
    that both see the same machine: timings here drift by tens of percent over a
    minute, and measuring one server after the other would put the drift in the
    ratio. Turns of one call each would put something else in it: each server would
    find the CPU caches filled by the other's last call.
    """
    started = {name: start(name) for name in names}
    try:
        channels = {
            name: grpc.insecure_channel(address) for name, (_, address, _) in started.items()
        }
        calls = {name: channel.unary_unary(METHOD) for name, channel in channels.items()}
        pids = {name: server_pid(process) for name, (process, _, _) in started.items()}
        times: dict[str, list[float]] = {name: [] for name in names}
        cpu_before = {name: cpu_seconds(pid) for name, pid in pids.items()}
        for block in range(0, len(payloads), BLOCK):
            for name in names if block // BLOCK % 2 else names[::-1]:
                for payload in payloads[block : block + BLOCK]:
                    began = time.perf_counter()
                    calls[name](payload, timeout=10)
                    times[name].append(time.perf_counter() - began)
        cpu = {name: cpu_seconds(pid) - cpu_before[name] for name, pid in pids.items()}
        for channel in channels.values():
            channel.close()
    finally:
        for process, _, _ in started.values():
            stop(process)
    return {
        name: {
            "p50_ms": statistics.median(times[name]) * 1000,
            "p99_ms": percentile(times[name], 0.99) * 1000,
            "cpu_per_call_ms": cpu[name] / len(payloads) * 1000,
        }
        for name in names
    }


def calls_per_reconcile() -> int:
    """Run Crossplane's requirements loop for a 3-flavor actor against a served function-asya."""
    process, address, _ = start("function-asya")
    supplied = [
        files.Document("bench", bench_request.environment_config(n)) for n in bench_request.FLAVORS
    ]

    async def reconcile() -> int:
        async with grpc.aio.insecure_channel(address) as channel:
            req = bench_request.request(resolved=False)
            _, calls = await pipeline.run_step(pipeline.Caller(channel, 10), req, supplied)
            return calls

    try:
        return asyncio.run(reconcile())
    finally:
        stop(process)


def scale(sizes: list[int]) -> dict[int, float]:
    """Time per actor when rendering N distinct actors (sequentially) through function-asya.

    Each size gets a fresh server, warmed with 50 other actors first: a new process's
    first calls (lazy imports, the flavors' first conversion) are not what N costs.
    """
    warm = 50
    payloads = [
        bench_request.request(index).SerializeToString() for index in range(max(sizes) + warm)
    ]
    out = {}
    for size in sizes:
        process, address, _ = start("function-asya")
        try:
            with grpc.insecure_channel(address) as channel:
                call = channel.unary_unary(
                    METHOD,
                    response_deserializer=fnv1.RunFunctionResponse.FromString,
                )
                for payload in payloads[-warm:]:
                    call(payload, timeout=10)
                began = time.perf_counter()
                for payload in payloads[:size]:
                    rsp = call(payload, timeout=10)
                    if any(r.severity == fnv1.SEVERITY_FATAL for r in rsp.results):
                        raise SystemExit(f"fatal result while rendering: {rsp.results}")
                out[size] = (time.perf_counter() - began) / size * 1000
        finally:
            stop(process)
    return out


def sizes(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """Steady state and cold path on requests of about 10, 120 and 200 KB, side by side."""
    names = (*NOOPS, "function-asya")
    shapes = {"10 KB": {"heavy": False, "pods": 0}} | {
        label: {"heavy": True, "pods": pods} for label, pods in SIZES.items()
    }
    out: dict[str, dict[str, Any]] = {}
    for label, shape in shapes.items():
        payload = bench_request.request(**shape).SerializeToString()
        results = [Result(name) for name in names]
        started = [start(name) for name in names]
        try:
            _latency_in_turns(started, results, payload, args.size_calls)
            _throughput_in_turns(started, results, payload, 8, args.seconds / 2)
        finally:
            for process, _, _ in started:
                stop(process)
        out[label] = {"bytes": len(payload)} | {r.name: r.numbers for r in results}
        if shape["pods"] == SIZES["130 KB"] or label == "10 KB":
            distinct = [
                bench_request.request(i, **shape).SerializeToString()
                for i in range(args.size_distinct)
            ]
            for name, numbers in cold(names, distinct).items():
                out[label][name]["cold_p50_ms"] = numbers["p50_ms"]
    return out


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=2000, help="sequential calls")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per throughput phase")
    parser.add_argument("--window", type=int, default=50_000, help="calls per memory window")
    parser.add_argument("--cold-runs", type=int, default=5)
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--json", help="also write the raw numbers here")
    parser.add_argument("--distinct", type=int, default=1000, help="requests of the cold path")
    parser.add_argument("--fleet", type=int, default=10_000, help="actors of the fleet")
    parser.add_argument("--rounds", type=int, default=3, help="fleet rounds (the first fills)")
    parser.add_argument(
        "--memory-distinct",
        type=int,
        default=4000,
        help=f"distinct answers cycled through the {MEMORY_CACHE_MIB} MiB cache",
    )
    parser.add_argument("--size-calls", type=int, default=1000, help="calls per request size")
    parser.add_argument(
        "--size-distinct", type=int, default=300, help="distinct requests per size's cold path"
    )
    parser.add_argument(
        "--reconciles",
        type=int,
        default=1000,
        help="reconciles of the alternative's unchanged and changed mixes (its fleet: --fleet)",
    )
    parser.add_argument(
        "--actors", type=int, default=1000, help="actors of each fleet-rig side (Crossplane core)"
    )
    parser.add_argument(
        "--poll", default="1m", help="Crossplane core's --poll-interval in the fleet-rig phase"
    )
    parser.add_argument(
        "--replicas", type=int, default=2, help="function-asya's servers in fleet-rig's last run"
    )
    parser.add_argument(
        "--phases", default=",".join(PHASES), help=f"which to run, of {','.join(PHASES)}"
    )
    args = parser.parse_args()
    if unknown := set(args.phases.split(",")) - set(PHASES):
        parser.error(f"unknown phases: {', '.join(sorted(unknown))}")
    return args


def _against_others(
    args: argparse.Namespace, phases: set[str], raw: dict[str, Any], notes: list[str]
) -> tuple[list[Row], tuple[list[Row], list[str]]]:
    """The phases against the alternative: its rows, and fleet-rig's rows and tables."""
    against: list[Row] = []
    more: tuple[list[Row], list[str]] = ([], [])
    if "alternative" in phases:
        if reason := alternative.missing():
            notes.append(f"The alternative (go-templating + auto-ready) was skipped: {reason}.")
        else:
            raw["alternative"] = {
                mix: alternative.measure(mix, args.fleet, args.reconciles, args.rounds)
                for mix in alternative.MIXES
            }
            against = alternative_rows(raw["alternative"], args.reconciles, args.fleet)
    if "fleet-rig" in phases:
        if reason := fleet_rig.missing():
            notes.append(f"The fleet-rig phase was skipped: {reason}.")
        else:
            raw["fleet-rig"] = fleet_measure.run(args.actors, args.poll, args.replicas)
            more = fleet_report.tables(raw["fleet-rig"], args.actors)
    return against, more


def main() -> None:
    args = _arguments()
    phases = set(args.phases.split(","))
    if PIN:
        os.sched_setaffinity(0, {1})
    payload = bench_request.request(resolved=True).SerializeToString()
    began = time.perf_counter()
    rows: list[Row] = []
    tables: dict[str, list[Row]] = {}
    raw: dict[str, Any] = {}
    per_actor: dict[int, float] = {}
    notes: list[str] = []
    if "steady" in phases:
        sdk, ours, function = steady((*NOOPS, "function-asya"), payload, args)
        calls = calls_per_reconcile()
        rows += steady_rows(function, sdk, ours, calls, args.window)
        raw |= {
            "function": function.numbers,
            SDK_NOOP: sdk.numbers,
            OUR_NOOP: ours.numbers,
            "calls_per_reconcile": calls,
        }
    if "sizes" in phases:
        raw["sizes"] = sizes(args)
        tables = size_rows(raw["sizes"])
    if "cold" in phases:
        for kind, heavy in (("cold", False), ("cold_heavy", True)):
            payloads = [
                bench_request.request(i, heavy=heavy).SerializeToString()
                for i in range(args.distinct)
            ]
            raw[kind] = cold((*NOOPS, "function-asya"), payloads)
        rows += cold_rows(raw, args.distinct)
    if "fleet" in phases:
        fleets = fleet((*NOOPS, "function-asya (debug)"), args.fleet, args.rounds, 0.02)
        fleets["function-asya"] = fleets.pop("function-asya (debug)")
        raw["fleet"] = fleets
        rows += fleet_rows(raw, args.fleet)
    if "memory" in phases:
        raw["memory"] = memory_at_budget(MEMORY_CACHE_MIB, args.memory_distinct)
        rows += memory_rows(raw["memory"], args.memory_distinct)
    against, more = _against_others(args, phases, raw, notes)
    if "scale" in phases:
        per_actor = scale([int(s) for s in args.sizes.split(",")])
        raw["per_actor_ms"] = per_actor
    print(report(rows, tables, per_actor, payload, against, notes, more))
    print(f"\n(bench took {time.perf_counter() - began:.0f} s)")
    if args.json:
        Path(args.json).write_text(json.dumps(raw, indent=2))


if __name__ == "__main__":
    main()
