"""The phases that fill the response cache: a fleet reconciled in rounds, and the cache at its budget."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc

from bench import request as bench_request
from bench.servers import BLOCK, METHOD, cpu_seconds, rss_mib, server_pid, start, stop
from tests import support


def fleet(names: tuple[str, ...], actors: int, rounds: int, changed: float) -> dict[str, Any]:
    """Actors reconciled in rounds, a fraction of them changed each round.

    Each round sends every actor once, tagged as Crossplane tags it (by content);
    from round 2 on, `changed` of them carry new content (a new observed status). The
    servers (the no-ops, then function-asya with its debug log, last) take the calls
    in turns, as in `cold`. Reports each server's CPU per reconcile over rounds 2..,
    and the function's cache hit rate and memory.
    """
    import random
    import tempfile

    chooser = random.Random(7)  # noqa: S311  # which actors change, not a secret
    variants = [0] * actors
    with tempfile.NamedTemporaryFile(suffix=".log", delete=False) as handle:
        log_path = Path(handle.name)
    with log_path.open("wb") as log:
        started = {name: start(name, log if name == names[-1] else None) for name in names}
        try:
            channels = {n: grpc.insecure_channel(a) for n, (_, a, _) in started.items()}
            calls = {n: c.unary_unary(METHOD) for n, c in channels.items()}
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
                    payloads = [
                        base[i].SerializeToString()
                        for i in range(block, min(actors, block + BLOCK))
                    ]
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
    out[names[-1]] |= cache_counts(log_path)
    log_path.unlink(missing_ok=True)
    return out


def cache_counts(log_path: Path) -> dict[str, float]:
    """The response cache's last hits, misses and bytes from a debug log."""
    line = support.last_line(log_path, "Response cache")
    fields = support.log_fields(line) if line is not None else {}
    return {k: float(fields[k]) for k in ("hits", "misses", "bytes") if k in fields}


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
                call = channel.unary_unary(METHOD)
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
