"""Where a distinct call's time goes, stage by stage, in process (BENCHMARKS.md's per-stage table).

Runs the serving path (receive, then `answers.Answers.answer` with the response cache on)
for distinct benchmark requests, each once, timing each stage's function with the
thread's CPU clock; prints the median per stage in microseconds. Stages nest: the
Struct writes happen inside `write`, which is shown without them.

    python -m bench.stages [--heavy] [--calls N]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from crossplane.function import logging

from bench import request as bench_request
from function import parse
from function import runner as fn
from function.codec import structs
from function.compose import renderers
from function.serving import answers as serving
from function.serving import question, request
from function.status import phase
from function.validate import gate

# (module, function, label), in the order a call runs them.
STAGES: tuple[tuple[Any, str, str], ...] = (
    (question, "of_tag", "the response cache's key"),
    (serving, "decode", "decode the request"),
    (parse, "composite", "observed XR -> dict"),
    (fn, "memo_key", "resolve memo's key"),
    (gate, "admit", "resolve: layer, validate"),
    (renderers, "render_all", "render 5 resources"),
    (phase, "derive", "status"),
    (fn, "write", "write, without the Struct writes"),
    (structs, "encode", "write Structs (desired XR + 5 resources)"),
    (serving, "untagged", "serialise the response"),
    (serving.Compressor, "compress", "compress the kept answer"),
)


def _timed(spent: dict[str, float], label: str, original: Callable[..., Any]) -> Any:
    running = False

    def timed(*args: Any, **kwargs: Any) -> Any:
        nonlocal running
        if running:  # a nested call is part of the outer one
            return original(*args, **kwargs)
        running = True
        began = time.thread_time()
        try:
            return original(*args, **kwargs)
        finally:
            spent[label] = spent.get(label, 0.0) + time.thread_time() - began
            running = False

    return timed


def measure(calls: int, *, heavy: bool) -> dict[str, float]:
    """Median microseconds per stage over `calls` distinct requests (after 50 warm-up ones)."""
    spent: dict[str, float] = {}
    originals = [(owner, name, getattr(owner, name)) for owner, name, _ in STAGES]
    for owner, name, label in STAGES:
        setattr(owner, name, _timed(spent, label, getattr(owner, name)))
    try:
        return _measure(spent, calls, heavy=heavy)
    finally:
        for owner, name, original in originals:
            setattr(owner, name, original)


def _measure(spent: dict[str, float], calls: int, *, heavy: bool) -> dict[str, float]:
    payloads = [
        bench_request.request(i, heavy=heavy).SerializeToString() for i in range(calls + 50)
    ]
    answers = serving.Answers(fn.FunctionRunner(), 4 * serving.MIB, 64 * serving.MIB)
    samples: dict[str, list[float]] = {}
    for index, payload in enumerate(payloads):
        spent.clear()
        began = time.thread_time()
        received = request.receive(payload)
        spent["receive the request"] = time.thread_time() - began
        if received.meta is None:
            raise SystemExit(f"benchmark request {index} cannot be read")
        answers.answer(received)
        spent["total"] = time.thread_time() - began
        if index >= 50:
            for label, seconds in spent.items():
                samples.setdefault(label, []).append(seconds)
    medians = {label: statistics.median(values) * 1e6 for label, values in samples.items()}
    medians["write, without the Struct writes"] -= medians[
        "write Structs (desired XR + 5 resources)"
    ]
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--heavy", action="store_true", help="the heavy request")
    parser.add_argument("--calls", type=int, default=500)
    args = parser.parse_args()
    # As served: JSON log lines ("Flavors applied" for each new actor).
    logging.configure(level=logging.Level.INFO)
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        medians = measure(args.calls, heavy=args.heavy)
    order = ["receive the request", *(label for _, _, label in STAGES), "total"]
    print("| Stage | median |\n|---|---|")
    for label in order:
        print(f"| {label} | {medians.get(label, 0.0):.0f} us |")


if __name__ == "__main__":
    main()
