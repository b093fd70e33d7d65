"""Load and faults on loopback: `make soak` (about two and a half minutes).

Every test serves `function-asya` as a subprocess and drives it with many
concurrent gRPC clients (separate channels, as separate Crossplane replicas
would be). SOAK_SECONDS sets the length of the long run (default 60).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import statistics
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1

from bench import request as bench_request
from tests import support

SOAK_SECONDS = float(os.environ.get("SOAK_SECONDS", "60"))
CLIENTS = 32
MIB = 1024 * 1024


def rss_bytes(pid: int) -> int:
    """Resident memory of a process, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for {pid}")


def heavy_request() -> fnv1.RunFunctionRequest:
    """The benchmark's realistic request with a long env, so calls overlap for longer."""
    req = bench_request.request()
    env = req.observed.composite.resource["spec"]["env"]
    for i in range(400):
        env.append({"name": f"EXTRA_{i}", "value": str(i)})
    return req


@dataclass
class Tally:
    """What the clients saw: outcomes by status code, latencies, and when calls ended."""

    codes: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    ok_in_flight_at: list[tuple[float, float]] = field(default_factory=list)  # (sent, done)
    failures: list[str] = field(default_factory=list)
    failed_at: list[tuple[str, float, float]] = field(default_factory=list)  # (code, sent, done)

    def record(self, sent: float, error: grpc.aio.AioRpcError | None) -> None:
        done = time.monotonic()
        if error is None:
            self.codes["OK"] += 1
            self.latencies.append(done - sent)
            self.ok_in_flight_at.append((sent, done))
        else:
            self.codes[error.code().name] += 1
            self.failures.append(f"{error.code().name}: {error.details()}")
            self.failed_at.append((error.code().name, sent, done))


async def client(
    address: str, req: fnv1.RunFunctionRequest, tally: Tally, until: asyncio.Event
) -> None:
    """Call RunFunction back to back until told to stop; every answer must be whole."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = grpcv1.FunctionRunnerServiceStub(channel)
        while not until.is_set():
            sent = time.monotonic()
            try:
                rsp = await stub.RunFunction(req, timeout=30)
            except grpc.aio.AioRpcError as error:
                tally.record(sent, error)
                if error.code() == grpc.StatusCode.UNAVAILABLE:
                    await asyncio.sleep(0.05)
                continue
            assert support.fatal_messages(rsp) == []
            assert len(rsp.desired.resources) == 5
            tally.record(sent, None)


@pytest.fixture
def log_file(tmp_path: Path) -> Iterator[object]:
    with (tmp_path / "serve.log").open("w") as out:
        yield out


@pytest.mark.timeout(SOAK_SECONDS + 120)
def test_32_clients_hold_for_the_whole_run_with_stable_memory(log_file: object) -> None:
    req = heavy_request()

    async def run(address: str, pid: int) -> tuple[Tally, list[tuple[float, int]]]:
        tally, stop = Tally(), asyncio.Event()
        tasks = [asyncio.create_task(client(address, req, tally, stop)) for _ in range(CLIENTS)]
        samples: list[tuple[float, int]] = []
        start = time.monotonic()
        while (elapsed := time.monotonic() - start) < SOAK_SECONDS:
            await asyncio.sleep(1)
            samples.append((elapsed, rss_bytes(pid)))
        stop.set()
        await asyncio.gather(*tasks)
        return tally, samples

    with support.serving("--insecure", output=log_file) as served:
        tally, samples = asyncio.run(run(served.address, served.process.pid))
        assert served.stop() == 0

    assert tally.failures == []
    # Memory: the last quarter of the run against the second quarter (after warm-up).
    quarter = len(samples) // 4
    warm = statistics.median(rss for _, rss in samples[quarter : 2 * quarter])
    late = statistics.median(rss for _, rss in samples[-quarter:])
    latencies = sorted(tally.latencies)
    print(
        f"\nsoak: {CLIENTS} clients x {SOAK_SECONDS:.0f} s: {tally.codes['OK']} calls "
        f"({tally.codes['OK'] / SOAK_SECONDS:.0f}/s), 0 errors; latency p50 "
        f"{latencies[len(latencies) // 2] * 1000:.1f} ms, p99 "
        f"{latencies[int(len(latencies) * 0.99)] * 1000:.1f} ms; RSS warm {warm / MIB:.1f} MiB, "
        f"late {late / MIB:.1f} MiB, peak {max(r for _, r in samples) / MIB:.1f} MiB"
    )
    assert late - warm < 8 * MIB


@pytest.mark.timeout(120)
def test_sigterm_under_load_lets_in_flight_calls_finish(log_file: object) -> None:
    req = heavy_request()

    async def run(served: support.Served) -> tuple[Tally, float, int]:
        tally, stop = Tally(), asyncio.Event()
        tasks = [
            asyncio.create_task(client(served.address, req, tally, stop)) for _ in range(CLIENTS)
        ]
        await asyncio.sleep(3)
        signalled = time.monotonic()
        served.process.send_signal(signal.SIGTERM)
        status = await asyncio.to_thread(served.process.wait, 30)
        stop.set()
        await asyncio.gather(*tasks)
        return tally, signalled, status

    with support.serving("--insecure", "--grace-period", "10", output=log_file) as served:
        tally, signalled, status = asyncio.run(run(served))

    assert status == 0
    finished_after_signal = [1 for sent, done in tally.ok_in_flight_at if sent < signalled < done]
    print(
        f"\nsigterm: {len(finished_after_signal)} calls in flight at SIGTERM finished OK; "
        f"all outcomes {dict(tally.codes)}"
    )
    assert finished_after_signal  # calls in flight at SIGTERM were answered, not dropped
    dropped = [code for code, sent, _ in tally.failed_at if sent < signalled]
    assert dropped == [], "calls sent before SIGTERM must be answered"
    # Calls sent after it are refused before they start, never answered in part.
    assert {code for code, _, _ in tally.failed_at} <= {"UNAVAILABLE", "CANCELLED"}


@pytest.mark.timeout(120)
def test_a_client_that_cancels_mid_call_does_not_disturb_the_others(log_file: object) -> None:
    req = heavy_request()
    cancels = 500

    async def canceller(address: str) -> tuple[int, int]:
        cancelled = completed = 0
        async with grpc.aio.insecure_channel(address) as channel:
            stub = grpcv1.FunctionRunnerServiceStub(channel)
            for _ in range(cancels):
                call = stub.RunFunction(req, timeout=30)
                await asyncio.sleep(random.uniform(0, 0.004))
                if call.cancel():
                    cancelled += 1
                else:
                    completed += 1
            # The same channel still serves after all of that.
            rsp = await stub.RunFunction(req, timeout=30)
            assert len(rsp.desired.resources) == 5
        return cancelled, completed

    async def run(address: str) -> tuple[Tally, tuple[int, int]]:
        tally, stop = Tally(), asyncio.Event()
        tasks = [asyncio.create_task(client(address, req, tally, stop)) for _ in range(CLIENTS - 1)]
        outcome = await canceller(address)
        stop.set()
        await asyncio.gather(*tasks)
        return tally, outcome

    with support.serving("--insecure", output=log_file) as served:
        tally, (cancelled, completed) = asyncio.run(run(served.address))
        assert served.stop() == 0

    print(
        f"\ncancel: {cancelled} calls cancelled mid-call, {completed} finished first; "
        f"the other {CLIENTS - 1} clients: {tally.codes['OK']} calls, {len(tally.failures)} errors"
    )
    # Enough of them cancelled while the server held them, however fast it answers.
    assert cancelled >= cancels // 5
    assert tally.failures == []
    assert tally.codes["OK"] > 0


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
@pytest.mark.timeout(120)
def test_a_restarted_server_serves_the_next_call_on_the_same_channel(
    log_file: object, how: signal.Signals
) -> None:
    req = heavy_request()
    with contextlib.ExitStack() as stack:
        with support.serving("--insecure", output=log_file) as served:
            # The restarted server binds the port the first one chose.
            port = int(served.address.rsplit(":", 1)[1])
            channel = stack.enter_context(grpc.insecure_channel(served.address))
            stub = grpcv1.FunctionRunnerServiceStub(channel)
            assert len(stub.RunFunction(req, timeout=30).desired.resources) == 5
            served.process.send_signal(how)
            served.process.wait(timeout=30)
        with pytest.raises(grpc.RpcError) as down:
            stub.RunFunction(req, timeout=5)
        assert down.value.code() == grpc.StatusCode.UNAVAILABLE
        with support.serving("--insecure", port=port, output=log_file):
            # Crossplane's client keeps its channel; the next call finds the new server.
            rsp = stub.RunFunction(req, timeout=30, wait_for_ready=True)
            assert len(rsp.desired.resources) == 5
            assert support.fatal_messages(rsp) == []
