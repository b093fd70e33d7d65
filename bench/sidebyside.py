"""What a change does to a miss, whatever the host does: two checkouts side by side in one cold run.

Runs the cold path (`run.cold`) with three servers taking turns: this checkout, another
one (its `function` package first on its server's path) and the SDK's no-op, and prints
each one's p50, its ratio to the no-op's and its server's CPU per call. The host's drift
lands on all three alike, so the two checkouts' difference is the change's. The other
checkout gets this one's built C encoder when their encoder sources are the same;
otherwise build it there first.

    python -m bench.sidebyside --root OTHER_CHECKOUT [--heavy] [--runs 3] [--distinct 1000]
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from bench import request as bench_request
from bench import run, servers

THIS, OTHER, NOOP = "function-asya", "other checkout", servers.SDK_NOOP


def _share_encoder(root: Path) -> None:
    """Give the other checkout this one's built C encoder, if it has none and the source is ours."""
    codec = Path(__file__).resolve().parent.parent / "function" / "codec"
    theirs = root / "function" / "codec"
    if list(theirs.glob("_structwire*.so")):
        return
    built = list(codec.glob("_structwire*.so"))
    source = "_structwire.c"
    if not built or (codec / source).read_bytes() != (theirs / source).read_bytes():
        raise SystemExit(f"build the C encoder in {root} first: it would answer without it")
    shutil.copy2(built[0], theirs / built[0].name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", required=True, help="the other checkout of the project")
    parser.add_argument("--heavy", action="store_true", help="the heavy request")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--distinct", type=int, default=1000)
    args = parser.parse_args()
    root = Path(args.root).resolve()
    if not (root / "function").is_dir():
        raise SystemExit(f"{root} is not a checkout of the project")
    _share_encoder(root)
    ours = servers.command

    def command(name: str, address: str) -> list[str]:
        if name != OTHER:
            return ours(name, address)
        serve = ["serve", "--insecure", "--address", address]
        code = "import sys; from function.cli.main import cli; sys.exit(cli())"
        pinned = ["taskset", "-c", "0"] if servers.PIN else []
        # -P: the working directory (this checkout) is not put before PYTHONPATH.
        return ["env", f"PYTHONPATH={root}", *pinned, sys.executable, "-P", "-c", code, *serve]

    servers.command = command
    payloads = [
        bench_request.request(i, heavy=args.heavy).SerializeToString() for i in range(args.distinct)
    ]
    for _ in range(args.runs):
        found = run.cold((THIS, OTHER, NOOP), payloads)
        noop = found[NOOP]["p50_ms"]
        print(
            "  ".join(
                f"{name}: {found[name]['p50_ms']:.3f} ms ({found[name]['p50_ms'] / noop:.2f}x,"
                f" CPU {found[name]['cpu_per_call_ms']:.2f} ms)"
                for name in (THIS, OTHER, NOOP)
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
