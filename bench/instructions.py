"""Instructions per distinct call, counted by callgrind: repeatable where times are not.

Runs the serving path (receive, then `answers.Answers.answer` with the cache on) for 20
and for 120 distinct benchmark requests after 20 warm-up ones, each run under
`valgrind --tool=callgrind`, and prints the difference of the two totals divided by
100. `--root` measures another checkout of the project (its `function` package is
put first on the path) with this checkout's requests.

    python -m bench.instructions [--heavy] [--root DIR]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

WARM = 20
RUNS = (20, 120)


def serve_calls(calls: int, *, heavy: bool, root: str | None) -> None:
    """The measured program: build every request first (the same in both runs), then answer."""
    if root:
        sys.path.insert(0, root)
    from crossplane.function import logging

    from bench import request as bench_request
    from function import pipeline as fn
    from function.serving import answers as serving
    from function.serving import request

    logging.configure(level=logging.Level.INFO)
    payloads = [
        bench_request.request(i, heavy=heavy).SerializeToString() for i in range(WARM + max(RUNS))
    ]
    answers = serving.Answers(fn.FunctionRunner(), 4 * 1024 * 1024, 64 << 20)
    for payload in payloads[: WARM + calls]:
        answers.answer(request.receive(payload))


def instructions(calls: int, *, heavy: bool, root: str | None) -> int:
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
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"callgrind printed no total:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--heavy", action="store_true", help="the heavy request")
    parser.add_argument("--root", help="a checkout of the project to measure instead")
    parser.add_argument("--run", type=int, help=argparse.SUPPRESS)  # the measured program
    args = parser.parse_args()
    if args.run is not None:
        with open(os.devnull, "w") as sink:  # the "Flavors applied" lines
            sys.stdout = sink
            serve_calls(args.run, heavy=args.heavy, root=args.root)
        return
    low, high = (instructions(n, heavy=args.heavy, root=args.root) for n in RUNS)
    print(f"{(high - low) / (RUNS[1] - RUNS[0]) / 1e6:.2f} M instructions per distinct call")


if __name__ == "__main__":
    main()
