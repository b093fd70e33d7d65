"""The servers a benchmark runs, and the clients that call them."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import grpc

from bench import request as bench_request

BIN = Path(sys.executable).parent
MEMORY_CACHE_MIB = 16
PIN = shutil.which("taskset") is not None and (os.cpu_count() or 1) >= 2
METHOD = "/apiextensions.fn.proto.v1.FunctionRunnerService/RunFunction"
BETA_METHOD = "/apiextensions.fn.proto.v1beta1.FunctionRunnerService/RunFunction"
# The Go functions of the alternative pipeline, built by `make bench-tools` (e2e/build-tools bench).
GO_BIN = bench_request.ROOT / ".e2e" / "bin"
GO_FUNCTIONS = ("function-go-templating", "function-auto-ready")
# Served on the v1beta1 service only (its Go SDK predates v1): Crossplane would try v1
# first on every call and fall back; the bench calls v1beta1 directly, so the refusal is
# not charged to it.
BETA_ONLY = {"function-go-templating"}
# Calls each server takes in its turn when two are measured side by side.
BLOCK = 50
# The floor every ratio is judged against: a no-op on the SDK's own runtime.
SDK_NOOP = "no-op (SDK)"
# A no-op served by function-asya's own server code: the SDK's runtime against ours.
OUR_NOOP = "no-op (our server)"
NOOPS = (SDK_NOOP, OUR_NOOP)


def command(name: str, address: str) -> list[str]:
    serve = [str(BIN / "function-asya"), "serve", "--insecure", "--address", address]
    commands = {
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
        SDK_NOOP: [sys.executable, "-m", "bench.sdk_noop", "--address", address],
        OUR_NOOP: [sys.executable, "-m", "bench.noop", "--address", address],
    } | {go: [str(GO_BIN / go), "--insecure", "--address", address] for go in GO_FUNCTIONS}
    base = commands[name]
    return (["taskset", "-c", "0"] if PIN else []) + base


def method(name: str) -> str:
    """The RunFunction method a server is called on."""
    return BETA_METHOD if name in BETA_ONLY else METHOD


def free_port() -> int:
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
                call = channel.unary_unary(method(name))
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
        call = channel.unary_unary(METHOD)
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
        call = channel.unary_unary(METHOD)
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
