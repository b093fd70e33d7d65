"""`make bench`: function-asya against a no-op function on the same SDK, in one run.

Each server runs as its own process pinned to CPU 0 (when the machine has two or
more), the client on CPU 1. Prints a Markdown report; `--json` also writes raw numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from bench import request as bench_request
from function.cli.render import files, pipeline

BIN = Path(sys.executable).parent
MEMORY_CACHE_MIB = 16
MIB = 1024 * 1024
# Calls each server takes in its turn when two are measured side by side.
BLOCK = 50
PHASES = ("steady", "scale", "cold", "fleet", "memory")
PIN = shutil.which("taskset") is not None and (os.cpu_count() or 1) >= 2


@dataclass
class Result:
    """What was measured for one server."""

    name: str
    numbers: dict[str, float] = field(default_factory=dict)


def command(name: str, address: str) -> list[str]:
    serve = [str(BIN / "function-asya"), "serve", "--insecure", "--address", address]
    base = {
        "function-asya": serve,
        # The full path on every call: the cold path, and the cache's floor.
        "function-asya (no cache)": [*serve, "--cache-size", "0"],
        # --debug: the response cache's counts in the log, for the fleet.
        "function-asya (debug)": [*serve, "--debug"],
        # A small budget, so that a few thousand distinct answers fill it.
        f"function-asya (cache {MEMORY_CACHE_MIB} MiB)": [
            *serve,
            "--debug",
            "--cache-size",
            str(MEMORY_CACHE_MIB),
        ],
        "no-op": [sys.executable, "-m", "bench.noop", "--address", address],
    }[name]
    return (["taskset", "-c", "0"] if PIN else []) + base


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(name: str, log: Any = None) -> tuple[subprocess.Popen[bytes], str, float]:
    """Start a server; return it, its address and the seconds to its first good response."""
    address = f"127.0.0.1:{free_port()}"
    probe = bench_request.request(resolved=True).SerializeToString()
    began = time.perf_counter()
    process = subprocess.Popen(
        command(name, address),
        stdout=log or subprocess.DEVNULL,
        stderr=log or subprocess.DEVNULL,
        cwd=bench_request.ROOT,
    )
    while True:
        if process.poll() is not None:
            raise SystemExit(f"{name} exited with {process.returncode} before answering")
        try:
            with grpc.insecure_channel(address) as channel:
                call = channel.unary_unary(
                    "/apiextensions.fn.proto.v1.FunctionRunnerService/RunFunction"
                )
                call(probe, timeout=0.5)
            return process, address, time.perf_counter() - began
        except grpc.RpcError:
            time.sleep(0.005)
        if time.perf_counter() - began > 30:
            process.kill()
            raise SystemExit(f"{name} did not answer within 30 s")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


def server_pid(process: subprocess.Popen[bytes]) -> int:
    return process.pid  # taskset execs the server in place


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def sequential(address: str, payload: bytes, calls: int, warm: int = 200) -> list[float]:
    with grpc.insecure_channel(address) as channel:
        call = channel.unary_unary("/apiextensions.fn.proto.v1.FunctionRunnerService/RunFunction")
        for _ in range(warm):
            call(payload, timeout=10)
        times = []
        for _ in range(calls):
            began = time.perf_counter()
            call(payload, timeout=10)
            times.append(time.perf_counter() - began)
    return times


async def _concurrent(
    address: str, payload: bytes, in_flight: int, seconds: float | None, total: int | None
) -> tuple[int, float]:
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.unary_unary("/apiextensions.fn.proto.v1.FunctionRunnerService/RunFunction")
        for _ in range(50):
            await call(payload, timeout=10)
        done = 0
        began = time.perf_counter()
        deadline = began + seconds if seconds else float("inf")

        async def worker() -> None:
            nonlocal done
            while time.perf_counter() < deadline and (total is None or done < total):
                await call(payload, timeout=10)
                done += 1

        await asyncio.gather(*(worker() for _ in range(in_flight)))
        return done, time.perf_counter() - began


def concurrent(
    address: str,
    payload: bytes,
    in_flight: int,
    *,
    seconds: float | None = None,
    total: int | None = None,
) -> tuple[int, float]:
    return asyncio.run(_concurrent(address, payload, in_flight, seconds, total))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


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
        calls = {
            name: channel.unary_unary(
                "/apiextensions.fn.proto.v1.FunctionRunnerService/RunFunction"
            )
            for name, channel in channels.items()
        }
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


def fleet(names: tuple[str, str], actors: int, rounds: int, changed: float) -> dict[str, Any]:
    """Actors reconciled in rounds, a fraction of them changed each round.

    Each round sends every actor once with a new tag (as Crossplane's calls carry);
    from round 2 on, `changed` of them carry new content (a spec change or a new
    observed status). The two servers (the no-op, then function-asya with its debug
    log) take the calls in turns, as in `cold`. Reports each server's CPU per
    reconcile over rounds 2.., and the function's cache hit rate and memory.
    """
    import random
    import tempfile

    chooser = random.Random(7)  # noqa: S311  # which actors change, not a secret
    variants = [0] * actors
    with tempfile.NamedTemporaryFile(suffix=".log", delete=False) as handle:
        log_path = Path(handle.name)
    with log_path.open("wb") as log:
        started = {names[0]: start(names[0]), names[1]: start(names[1], log)}
        try:
            channels = {n: grpc.insecure_channel(a) for n, (_, a, _) in started.items()}
            calls = {
                n: c.unary_unary("/apiextensions.fn.proto.v1.FunctionRunnerService/RunFunction")
                for n, c in channels.items()
            }
            pids = {n: server_pid(process) for n, (process, _, _) in started.items()}
            base = [bench_request.request(i) for i in range(actors)]
            cpu_from = dict.fromkeys(names, 0.0)
            for round_ in range(rounds):
                if round_ == 1:
                    cpu_from = {n: cpu_seconds(pid) for n, pid in pids.items()}
                if round_:
                    for i in chooser.sample(range(actors), int(actors * changed)):
                        variants[i] += 1
                        base[i] = bench_request.request(i, variant=variants[i])
                for block in range(0, actors, BLOCK):
                    payloads = []
                    for i in range(block, min(actors, block + BLOCK)):
                        base[i].meta.tag = f"{round_}-{i}"
                        payloads.append(base[i].SerializeToString())
                    for n in names if block // BLOCK % 2 else names[::-1]:
                        for payload in payloads:
                            calls[n](payload, timeout=10)
            reconciles = actors * (rounds - 1)
            out: dict[str, Any] = {
                n: {
                    "cpu_per_reconcile_ms": (cpu_seconds(pid) - cpu_from[n]) / reconciles * 1000,
                    "rss_mib": rss_mib(pid),
                }
                for n, pid in pids.items()
            }
            for channel in channels.values():
                channel.close()
        finally:
            for process, _, _ in started.values():
                stop(process)
    out[names[1]] |= cache_counts(log_path)
    log_path.unlink(missing_ok=True)
    return out


def cache_counts(log_path: Path) -> dict[str, float]:
    """The response cache's last hits, misses and bytes from a debug log."""
    counts: dict[str, float] = {}
    for raw in log_path.read_text(errors="replace").splitlines():
        line = re.sub(r"\x1b\[[0-9;]*m", "", raw)  # the console log's colours
        if "Response cache" in line:
            fields = dict(part.split("=", 1) for part in line.split() if "=" in part)
            counts |= {k: float(fields[k]) for k in ("hits", "misses", "bytes") if k in fields}
    return counts


def memory_at_budget(cache_mib: int, distinct: int) -> dict[str, float]:
    """RSS with the response cache held at its budget, in two windows of misses and evictions.

    `distinct` answers cycled through a cache that holds fewer of them: least
    recently used first out, so every call is a miss that evicts an older answer.
    """
    import tempfile

    payloads = [bench_request.request(i).SerializeToString() for i in range(distinct)]
    with tempfile.NamedTemporaryFile(suffix=".log", delete=False) as handle:
        log_path = Path(handle.name)
    with log_path.open("wb") as log:
        process, address, _ = start(f"function-asya (cache {cache_mib} MiB)", log)
        pid = server_pid(process)
        try:
            with grpc.insecure_channel(address) as channel:
                call = channel.unary_unary(
                    "/apiextensions.fn.proto.v1.FunctionRunnerService/RunFunction"
                )
                rss = []
                for _ in range(3):  # fill, then two windows
                    for payload in payloads:
                        call(payload, timeout=10)
                    rss.append(rss_mib(pid))
        finally:
            stop(process)
    counts = cache_counts(log_path)
    log_path.unlink(missing_ok=True)
    return {
        "rss_filled_mib": rss[0],
        "rss_window1_mib": rss[1],
        "rss_window2_mib": rss[2],
        "rss_growth_mib": rss[2] - rss[1],
        **counts,
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
                    "/apiextensions.fn.proto.v1.FunctionRunnerService/RunFunction",
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


def ratio_row(label: str, f: float, n: float, unit: str, target: str) -> tuple[str, ...]:
    return (label, f"{f:.3f} {unit}", f"{n:.3f} {unit}", f"{f / n:.2f}x", target)


def steady_rows(function: Result, noop: Result, calls: int, window: int) -> list[tuple[str, ...]]:
    """The steady-state rows: one request repeated (cache hits)."""
    f, n = function.numbers, noop.numbers
    return [
        ratio_row(
            "steady state p50 (one request repeated)", f["p50_ms"], n["p50_ms"], "ms", "<= 1.3x"
        ),
        ratio_row("steady state p99", f["p99_ms"], n["p99_ms"], "ms", "-"),
        (
            "steady throughput, 8 in flight",
            f"{f['rps_8']:.0f} rps",
            f"{n['rps_8']:.0f} rps",
            f"{f['rps_8'] / n['rps_8']:.0%}",
            ">= 70%",
        ),
        (
            "steady throughput, 32 in flight",
            f"{f['rps_32']:.0f} rps",
            f"{n['rps_32']:.0f} rps",
            f"{f['rps_32'] / n['rps_32']:.0%}",
            "-",
        ),
        ratio_row(
            "steady server CPU per call", f["cpu_per_call_ms"], n["cpu_per_call_ms"], "ms", "-"
        ),
        (
            "RSS after load",
            f"{f['rss_after_load_mib']:.1f} MiB",
            f"{n['rss_after_load_mib']:.1f} MiB",
            f"+{f['rss_after_load_mib'] - n['rss_after_load_mib']:.1f} MiB",
            "<= +15 MiB",
        ),
        (
            f"RSS growth, {window:,}-call windows (one request)",
            f"{f['rss_growth_mib']:+.2f} MiB",
            f"{n['rss_growth_mib']:+.2f} MiB",
            "-",
            "< 2 MiB",
        ),
        (
            "cold start to first response",
            f"{f['cold_start_s'] * 1000:.0f} ms",
            f"{n['cold_start_s'] * 1000:.0f} ms",
            f"{f['cold_start_s'] / n['cold_start_s']:.2f}x",
            "unchanged",
        ),
        ("calls per reconcile (3 flavors)", str(calls), "-", "-", "2"),
    ]


def cold_rows(extra: dict[str, Any], distinct: int) -> list[tuple[str, ...]]:
    """The cold path rows: distinct requests, each sent once."""
    rows: list[tuple[str, ...]] = []
    for kind, target in (("cold", "<= 2.5x"), ("cold_heavy", "<= 3.0x")):
        f, n = extra[kind]["function-asya"], extra[kind]["no-op"]
        label = f"cold path p50 ({distinct:,} distinct" + (
            ", heavy)" if kind == "cold_heavy" else ")"
        )
        rows.append(ratio_row(label, f["p50_ms"], n["p50_ms"], "ms", target))
        rows.append(
            ratio_row(
                label.replace("p50", "CPU/call"),
                f["cpu_per_call_ms"],
                n["cpu_per_call_ms"],
                "ms",
                "-",
            )
        )
    return rows


def fleet_rows(extra: dict[str, Any], actors: int) -> list[tuple[str, ...]]:
    """The fleet rows: CPU per reconcile, and the cache's hits and memory."""
    f, n = extra["fleet"]["function-asya"], extra["fleet"]["no-op"]
    # After the first round, which fills the cache with every actor's answer.
    later = f.get("hits", 0) + f.get("misses", 0) - actors
    return [
        ratio_row(
            f"fleet ({actors:,} actors): server CPU per reconcile",
            f["cpu_per_reconcile_ms"],
            n["cpu_per_reconcile_ms"],
            "ms",
            "<= 1.5x",
        ),
        (
            "fleet: cache hits / misses, cache memory",
            f"{f.get('hits', 0):,.0f} / {f.get('misses', 0):,.0f}, "
            f"{f.get('bytes', 0) / MIB:.1f} MiB",
            "-",
            f"{f.get('hits', 0) / later:.0%} hits after round 1" if later > 0 else "-",
            "stated",
        ),
        (
            "fleet: server RSS",
            f"{f['rss_mib']:.1f} MiB",
            f"{n['rss_mib']:.1f} MiB",
            f"+{f['rss_mib'] - n['rss_mib']:.1f} MiB",
            "-",
        ),
    ]


def memory_rows(memory: dict[str, float], distinct: int) -> list[tuple[str, ...]]:
    """The cache-at-budget rows: RSS across two windows of misses and evictions."""
    return [
        (
            f"RSS growth, cache full ({MEMORY_CACHE_MIB} MiB, {distinct:,} distinct answers cycled)",
            f"{memory['rss_growth_mib']:+.2f} MiB "
            f"({memory['rss_window1_mib']:.1f} -> {memory['rss_window2_mib']:.1f} MiB; "
            f"cache {memory.get('bytes', 0) / MIB:.1f} MiB)",
            "-",
            "-",
            "< 2 MiB",
        )
    ]


def report(rows: list[tuple[str, ...]], per_actor: dict[int, float], payload: bytes) -> str:
    lines = [
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"servers {'pinned to CPU 0, client on CPU 1' if PIN else 'unpinned'}; request {len(payload):,} bytes.",
        "",
        "| Measure | function-asya | no-op | ratio | target |",
        "|---|---|---|---|---|",
        *(f"| {' | '.join(row)} |" for row in rows),
    ]
    if per_actor:
        sizes = sorted(per_actor)
        spread = max(per_actor.values()) / min(per_actor.values()) - 1
        lines += [
            "",
            "| Distinct actors | time per actor |",
            "|---|---|",
            *(f"| {size:,} | {per_actor[size]:.3f} ms |" for size in sizes),
            "",
            f"Per-actor cost spread across sizes: {spread:.0%} (target: flat within 20%).",
        ]
    return "\n".join(lines)


def main() -> None:
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
    parser.add_argument(
        "--phases", default=",".join(PHASES), help=f"which to run, of {','.join(PHASES)}"
    )
    args = parser.parse_args()
    phases = set(args.phases.split(","))
    if unknown := phases - set(PHASES):
        parser.error(f"unknown phases: {', '.join(sorted(unknown))}")
    if PIN:
        os.sched_setaffinity(0, {1})
    payload = bench_request.request(resolved=True).SerializeToString()
    began = time.perf_counter()
    rows: list[tuple[str, ...]] = []
    raw: dict[str, Any] = {}
    per_actor: dict[int, float] = {}
    if "steady" in phases:
        noop, function = steady(("no-op", "function-asya"), payload, args)
        calls = calls_per_reconcile()
        rows += steady_rows(function, noop, calls, args.window)
        raw |= {"function": function.numbers, "noop": noop.numbers, "calls_per_reconcile": calls}
    if "cold" in phases:
        for kind, heavy in (("cold", False), ("cold_heavy", True)):
            payloads = [
                bench_request.request(i, heavy=heavy).SerializeToString()
                for i in range(args.distinct)
            ]
            raw[kind] = cold(("no-op", "function-asya"), payloads)
        rows += cold_rows(raw, args.distinct)
    if "fleet" in phases:
        fleets = fleet(("no-op", "function-asya (debug)"), args.fleet, args.rounds, 0.02)
        raw["fleet"] = {"no-op": fleets["no-op"], "function-asya": fleets["function-asya (debug)"]}
        rows += fleet_rows(raw, args.fleet)
    if "memory" in phases:
        raw["memory"] = memory_at_budget(MEMORY_CACHE_MIB, args.memory_distinct)
        rows += memory_rows(raw["memory"], args.memory_distinct)
    if "scale" in phases:
        per_actor = scale([int(s) for s in args.sizes.split(",")])
        raw["per_actor_ms"] = per_actor
    print(report(rows, per_actor, payload))
    print(f"\n(bench took {time.perf_counter() - began:.0f} s)")
    if args.json:
        Path(args.json).write_text(json.dumps(raw, indent=2))


if __name__ == "__main__":
    main()
