"""Instructions per distinct call, counted by callgrind: repeatable where times are not.

Runs the serving path (receive, then `answers.Answers.answer` with the cache on) for 20
and for 120 distinct benchmark requests after 20 warm-up ones, each run under
`valgrind --tool=callgrind`, and prints the difference of the two totals divided by
100. `--root` measures another checkout of the project (its `function` package is
put first on the path) with this checkout's requests.

`--served` counts instead what each server process executes per distinct call, gRPC
included, for function-asya and for both no-ops (the SDK's, and ours on function-asya's
server code), and prints function-asya's ratio to each: the cold path's ratio as the
host does not move it (the client's and the kernel's share, alike for all, left out).

`--without STAGE` replaces one stage with its first call's result (`compress`: with
nothing; `after`: all that runs once the answer is sent, compressing and keeping it and
the log line), so the difference to a plain run is what that stage costs.

    python -m bench.instructions [--heavy] [--root DIR | --served | --without STAGE]
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc

from bench import request as bench_request
from bench import servers

WARM = 20
RUNS = (20, 120)


# What `--without` can leave out: a module of the function and the name it calls.
STAGES = {
    "resolve": ("function.validate.gate", "admit"),
    "layers": ("function.resolve.layers", "resolve_with"),
    "validate": ("function.validate.pod_spec", "check"),
    "render": ("function.compose.renderers", "render_all"),
    "status": ("function.status.phase", "derive"),
}
# What `--without` replaces with nothing.
DROPPED = ("compress", "after")


def _first_result(module: Any, name: str) -> None:
    """Make `module.name` compute once and return that result ever after."""
    real, kept = getattr(module, name), []

    def again(*args: Any, **kwargs: Any) -> Any:
        if not kept:
            kept.append(real(*args, **kwargs))
        return kept[0]

    setattr(module, name, again)


def serve_calls(calls: int, *, heavy: bool, root: str | None, without: str | None = None) -> None:
    """The measured program: build every request first (the same in both runs), then answer."""
    if root:
        sys.path.insert(0, root)
    from crossplane.function import logging

    from bench import request as bench_request
    from function import runner as fn
    from function.serving import answers as serving
    from function.serving import request

    logging.configure(level=logging.Level.INFO)
    payloads = [
        bench_request.request(i, heavy=heavy).SerializeToString() for i in range(WARM + max(RUNS))
    ]
    answers = serving.Answers(fn.FunctionRunner(), 4 * 1024 * 1024, 64 << 20)
    if without in STAGES:
        module, name = STAGES[without]
        _first_result(importlib.import_module(module), name)
    elif without == "compress":
        answers.compressor.compress = lambda body: body  # type: ignore[method-assign]
    elif without == "after":
        answers.after = lambda job: None
    for payload in payloads[: WARM + calls]:
        answers.answer(request.receive(payload))


def instructions(calls: int, *, heavy: bool, root: str | None, without: str | None) -> int:
    """Instructions callgrind counts for a whole run of `calls` distinct calls."""
    with tempfile.TemporaryDirectory() as scratch:
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={Path(scratch) / 'out'}",
            sys.executable,
            "-m",
            "bench.instructions",
            "--run",
            str(calls),
            *(["--heavy"] if heavy else []),
            *(["--root", root] if root else []),
            *(["--without", without] if without else []),
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
    return _collected(done.stderr)


def _collected(stderr: str) -> int:
    found = re.search(r"Collected : (\d+)", stderr)
    if found is None:
        raise SystemExit(f"callgrind printed no total:\n{stderr[-2000:]}")
    return int(found.group(1))


def served(name: str, calls: int, *, heavy: bool) -> int:
    """Instructions a server process executes, from its start, for `calls` distinct calls."""
    address = f"127.0.0.1:{servers.free_port()}"
    payloads = [
        bench_request.request(i, heavy=heavy).SerializeToString() for i in range(WARM + calls)
    ]
    command = servers.command(name, address)
    if command[0] == "taskset":  # valgrind would follow taskset, not the server it runs
        command = command[3:]
    with tempfile.TemporaryDirectory() as scratch:
        process = subprocess.Popen(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={Path(scratch) / 'out'}",
                *command,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            cwd=bench_request.ROOT,
        )
        with grpc.insecure_channel(address) as channel:
            call = channel.unary_unary(servers.METHOD)
            began = time.monotonic()
            while True:  # the first call waits for the server under valgrind (tens of seconds)
                try:
                    call(payloads[0], timeout=10)
                    break
                except grpc.RpcError:
                    if time.monotonic() - began > 300 or process.poll() is not None:
                        process.kill()
                        raise SystemExit(f"{name} did not answer under valgrind") from None
                    time.sleep(0.5)
            for payload in payloads[1:]:
                call(payload, timeout=60)
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=300)
    return _collected(stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--heavy", action="store_true", help="the heavy request")
    parser.add_argument("--root", help="a checkout of the project to measure instead")
    parser.add_argument(
        "--served", action="store_true", help="each server process, function-asya and the no-ops"
    )
    parser.add_argument(
        "--without", choices=[*STAGES, *DROPPED], help="a stage replaced by its first result"
    )
    parser.add_argument("--run", type=int, help=argparse.SUPPRESS)  # the measured program
    args = parser.parse_args()
    if args.served:
        per_call = {}
        for name in ("function-asya", *servers.NOOPS):
            low, high = (served(name, n, heavy=args.heavy) for n in RUNS)
            per_call[name] = (high - low) / (RUNS[1] - RUNS[0])
            print(f"{name}: {per_call[name] / 1e6:.2f} M instructions per distinct served call")
        for noop in servers.NOOPS:
            print(f"ratio to the {noop}: {per_call['function-asya'] / per_call[noop]:.2f}x")
        return
    if args.run is not None:
        with open(os.devnull, "w") as sink:  # the "Flavors applied" lines
            sys.stdout = sink
            serve_calls(args.run, heavy=args.heavy, root=args.root, without=args.without)
        return
    low, high = (
        instructions(n, heavy=args.heavy, root=args.root, without=args.without) for n in RUNS
    )
    print(f"{(high - low) / (RUNS[1] - RUNS[0]) / 1e6:.2f} M instructions per distinct call")


if __name__ == "__main__":
    main()
