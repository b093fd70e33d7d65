"""function-asya against the alternative a platform team would write: go-templating + auto-ready.

The alternative is bench/go-templating/composition.yaml: function-go-templating renders
the five resources function-asya renders for an actor without flavors, then
function-auto-ready marks them ready (`make bench-tools` builds both from their Go
modules). Each reconcile runs a Composition's whole pipeline as Crossplane runs it
(`function.cli.render.pipeline.run`, the engine `function-asya render` checks against
the real reconciler): every step's request is tagged as core tags it, carries the XR,
the observed resources and what the steps before it returned, and function-asya's
requirements are answered from what the cluster holds for the actor, so its response
cache hits and misses as in a cluster. Measured per reconcile: each side's server CPU
(from /proc: go-templating's and auto-ready's added together), in three mixes:

- unchanged: one actor reconciled again and again (function-asya answers from its cache);
- changed: distinct actors, each reconciled once (every call a miss);
- fleet: `actors` actors reconciled in rounds, 2 % of them changing each round from the
  second on (a new observed status), CPU over the rounds after the first.

A third side, the floor, runs the SDK's own no-op as a one-step pipeline on the same
actors: each side's CPU per call is also read as a multiple of the no-op's.

The sides take turns of BLOCK reconciles, which goes first turning from turn to turn, as
in the other phases. go-templating v0.4.1 serves v1beta1 only: Crossplane would try v1 first
on every call; it is called on v1beta1 directly, so that refusal is not charged to it.
"""

from __future__ import annotations

import asyncio
import functools
import random
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import grpc
import yaml
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1beta1 import run_function_pb2 as fnv1beta1
from google.protobuf import json_format, struct_pb2

from bench import request as bench_request
from bench.servers import (
    BETA_ONLY,
    BLOCK,
    GO_BIN,
    GO_FUNCTIONS,
    SDK_NOOP,
    cpu_seconds,
    server_pid,
    start,
    stop,
)
from function.cli.render import files, pipeline

OURS = "function-asya"
ALTERNATIVE = "go-templating + auto-ready"
FLOOR = "the SDK's no-op"
COMPOSITIONS = {
    OURS: bench_request.EXAMPLES / "composition.yaml",
    ALTERNATIVE: bench_request.ROOT / "bench" / "go-templating" / "composition.yaml",
    FLOOR: bench_request.ROOT / "bench" / "noop-composition.yaml",
}
# The servers behind each side: function-asya's step, the alternative's two, the no-op.
SERVERS = {OURS: (OURS,), ALTERNATIVE: GO_FUNCTIONS, FLOOR: (SDK_NOOP,)}
MIXES = ("unchanged", "changed", "fleet")
WARM = 20  # reconciles before a mix is measured
CHANGING = 0.02  # the fleet's share of actors changing each round


def missing() -> str | None:
    """Why the alternative cannot run here, or None."""
    absent = [name for name in GO_FUNCTIONS if not (GO_BIN / name).exists()]
    if not absent:
        return None
    return (
        f"{', '.join(absent)} not built (missing from .e2e/bin): "
        "`make bench-tools` builds them, and needs Go"
    )


class BetaCaller(pipeline.Caller):
    """Calls RunFunction on v1beta1 directly, for a function whose SDK predates v1."""

    async def __call__(self, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        """Send the request as v1beta1 (the same wire format) and read the answer as v1."""
        beta = fnv1beta1.RunFunctionRequest.FromString(req.SerializeToString())
        rsp = await self.v1beta1.RunFunction(beta, timeout=self.timeout, wait_for_ready=True)
        answer: fnv1.RunFunctionResponse = fnv1.RunFunctionResponse.FromString(
            rsp.SerializeToString()
        )
        return answer


@dataclass
class Actor:
    """One actor's reconcile: what Crossplane observes, and what the cluster holds for it."""

    observed: fnv1.State
    cluster: list[files.Document]


def actor(index: int, variant: int = 0) -> Actor:
    """The example actor without flavors (`index` makes a distinct one); `variant` changes it."""
    req = bench_request.request(index, resolved=False, flavored=False, variant=variant)
    xr = bench_request.composite(index, flavored=False)
    held = [bench_request.own_deployment(xr), bench_request.keda_hpa(xr)]
    held += _dead_letter_queues()
    # The actor's own Deployment Object, with the labels function-asya looks it up by.
    labelled = json_format.MessageToDict(req.observed.resources["deployment"].resource)
    labelled["metadata"] |= {
        "labels": {
            "app.kubernetes.io/component": "actor",
            "asya.sh/actor": xr["spec"]["actor"],
            "crossplane.io/composite": xr["metadata"]["name"],
        }
    }
    held.append(labelled)
    return Actor(req.observed, [files.Document("cluster", body) for body in held])


@functools.cache
def _dead_letter_queues() -> list[dict[str, Any]]:
    """The platform's dead-letter queues, as the cluster holds them (read once, never changed)."""
    return bench_request._load(bench_request.EXAMPLES / "platform" / "dead-letter-queues.yaml")


class Side:
    """One side's Composition, its servers and the callers its pipeline dials."""

    def __init__(self, name: str, addresses: dict[str, str]) -> None:
        """Open a channel to each of the side's servers."""
        self.name = name
        [self.composition] = [
            files.Document(str(COMPOSITIONS[name]), body)
            for body in yaml.safe_load_all(COMPOSITIONS[name].read_text())
            if body
        ]
        self.channels = [grpc.aio.insecure_channel(address) for address in addresses.values()]
        self.callers: dict[str, pipeline.Caller] = {
            server: (BetaCaller if server in BETA_ONLY else pipeline.Caller)(channel, 10)
            for server, channel in zip(addresses, self.channels, strict=True)
        }
        self.calls = 0

    async def reconcile(self, one: Actor) -> None:
        """Run the side's pipeline once for an actor, as Crossplane would."""
        outcome = await pipeline.run(
            self.composition, one.observed, struct_pb2.Struct(), self.callers, one.cluster
        )
        self.calls += sum(outcome.calls.values())

    async def close(self) -> None:
        """Close the side's channels."""
        for channel in self.channels:
            await channel.close()


@contextmanager
def serving(names: Sequence[str]) -> Iterator[dict[str, tuple[int, str]]]:
    """Start each server; yield its pid and address by name; stop them all afterwards."""
    started = {name: start(name) for name in names}
    try:
        yield {
            name: (server_pid(process), address) for name, (process, address, _) in started.items()
        }
    finally:
        for process, _, _ in started.values():
            stop(process)


async def _turn(sides: list[Side], actors: list[Actor], turn: int) -> None:
    """Each side reconciles the actors (BLOCK of them at most), the order turning by turn."""
    shift = turn % len(sides)
    for side in sides[shift:] + sides[:shift]:
        for one in actors:
            await side.reconcile(one)


def _counting(sides: list[Side], running: dict[str, tuple[int, str]]) -> dict[str, float]:
    """Start counting: each side's calls from zero; each server's CPU so far."""
    for side in sides:
        side.calls = 0
    return {server: cpu_seconds(pid) for server, (pid, _) in running.items()}


def measure(mix: str, actors: int, reconciles: int, rounds: int) -> dict[str, dict[str, float]]:
    """Server CPU per reconcile of each side in one mix: unchanged, changed or fleet.

    `reconciles` for the unchanged and changed mixes; `actors` and `rounds` for the fleet.
    """
    with serving([server for names in SERVERS.values() for server in names]) as running:
        return asyncio.run(_measure(mix, running, actors, reconciles, rounds))


async def _measure(
    mix: str, running: dict[str, tuple[int, str]], actors: int, reconciles: int, rounds: int
) -> dict[str, dict[str, float]]:
    sides = [
        Side(name, {server: running[server][1] for server in SERVERS[name]}) for name in SERVERS
    ]
    try:
        # Warm each server with actors the mix does not reconcile.
        await _turn(sides, [actor(1_000_000 + i) for i in range(WARM)], 0)
        if mix == "unchanged":
            one = actor(0)
            before = _counting(sides, running)
            for block in range(0, reconciles, BLOCK):
                await _turn(sides, [one] * min(BLOCK, reconciles - block), block // BLOCK)
            counted = reconciles
        elif mix == "changed":
            before = _counting(sides, running)
            for block in range(0, reconciles, BLOCK):
                batch = [actor(i) for i in range(block, min(reconciles, block + BLOCK))]
                await _turn(sides, batch, block // BLOCK)
            counted = reconciles
        else:
            before, counted = await _fleet(sides, running, actors, rounds)
        cpu = {server: cpu_seconds(pid) - before[server] for server, (pid, _) in running.items()}
        out: dict[str, dict[str, float]] = {}
        for side in sides:
            numbers = {
                f"{server}_cpu_ms": cpu[server] / counted * 1000 for server in SERVERS[side.name]
            }
            numbers["cpu_per_reconcile_ms"] = sum(numbers.values())
            numbers["calls_per_reconcile"] = side.calls / counted
            numbers["cpu_per_call_ms"] = numbers["cpu_per_reconcile_ms"] / max(
                numbers["calls_per_reconcile"], 1
            )
            out[side.name] = numbers
        return out
    finally:
        for side in sides:
            await side.close()


async def _fleet(
    sides: list[Side], running: dict[str, tuple[int, str]], actors: int, rounds: int
) -> tuple[dict[str, float], int]:
    """Rounds over the fleet; CPU counted from the second round on."""
    chooser = random.Random(7)  # noqa: S311  # which actors change, not a secret
    variants = [0] * actors
    before = _counting(sides, running)
    for round_ in range(rounds):
        if round_ == 1:
            before = _counting(sides, running)
        if round_:
            for i in chooser.sample(range(actors), int(actors * CHANGING)):
                variants[i] += 1
        for block in range(0, actors, BLOCK):
            batch = [actor(i, variants[i]) for i in range(block, min(actors, block + BLOCK))]
            await _turn(sides, batch, round_ + block // BLOCK)
    return before, actors * max(1, rounds - 1)
