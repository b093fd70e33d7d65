"""What the fleet-rig phase reads off a running fleet: composing it, and a flavor edit.

Readings come from the real components: CPU seconds from /proc, function calls from
Crossplane core's own metrics, the response cache's counts from function-asya's log
(SIGUSR1), which actors it computed an answer for from its debug log, and what is
composed from the API server.
"""

from __future__ import annotations

import signal
import time
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from bench.fleet_rig import EDIT_ENV, FLOOR, OURS, SIDES, Fleet, actor, edited_flavor, fleet, sides
from bench.servers import cpu_seconds, rss_mib
from tests import support
from tests.cluster.crossplane import API, NAMESPACE

# A window ends once Crossplane has called no function for this long after its goal.
QUIET = 5.0
# The longest a window waits for quiet after its goal: a fleet never goes quiet once
# the first actors' responses expire (their TTL, 60 s) while others still compose.
SETTLE = 30.0
POLL = 1.0
# Steady: no answer computed for one TTL (60 s) and its jitter (Crossplane adds up to 10 %).
STEADY = 70.0
STEADY_AT_MOST = 600.0
METADATA = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
MARK = "asya.sh/rendered"


@dataclass(frozen=True)
class Reading:
    """CPU seconds by component, function calls by function, at one moment."""

    at: float
    cpu: dict[str, float]
    calls: dict[str, float]


def read(fleet: Fleet) -> Reading:
    """What the components have used and Crossplane has called so far."""
    cpu = {name: cpu_seconds(pid) for name, pid in fleet.pids.items()}
    return Reading(time.monotonic(), cpu, calls(fleet.metrics_port))


def calls(metrics_port: int) -> dict[str, float]:
    """RunFunction requests core has sent, by function (its `function_run_function_request_total`)."""
    url = f"http://127.0.0.1:{metrics_port}/metrics"
    with urllib.request.urlopen(url, timeout=10) as answer:
        text = answer.read().decode()
    counted: Counter[str] = Counter()
    for line in text.splitlines():
        if line.startswith("function_run_function_request_total{"):
            labels, value = line.rsplit(" ", 1)
            name = labels.split('function_name="', 1)[1].split('"', 1)[0]
            counted[name] += float(value)
    return dict(counted)


def used(before: Reading, after: Reading, fleet: Fleet, actors: int) -> dict[str, float]:
    """CPU milliseconds per actor of each component, and calls per actor, between two readings."""
    functions = sum(after.cpu[n] - before.cpu[n] for n in fleet.servers)
    out: dict[str, float] = {
        "window_s": after.at - before.at,
        "function_cpu_ms": functions / actors * 1000,
        "core_cpu_ms": (after.cpu["core"] - before.cpu["core"]) / actors * 1000,
        "apiserver_cpu_ms": (after.cpu["apiserver"] - before.cpu["apiserver"]) / actors * 1000,
    }
    for name in fleet.side.functions:
        out[f"calls {name}"] = (after.calls.get(name, 0) - before.calls.get(name, 0)) / actors
    if len(replicas := _replicas(fleet)) > 1:
        for name in replicas:
            out[f"cpu_ms {name}"] = (after.cpu[name] - before.cpu[name]) / actors * 1000
    return out


def _replicas(fleet: Fleet) -> list[str]:
    """The servers of function-asya (one unless the fleet runs replicas)."""
    return [name for name in fleet.servers if name.startswith(OURS)]


def settle(fleet: Fleet) -> Reading:
    """The reading once no function has been called for QUIET seconds (at most SETTLE)."""
    deadline = time.monotonic() + SETTLE
    last = read(fleet)
    quiet_since = last.at
    while time.monotonic() < deadline and time.monotonic() - quiet_since < QUIET:
        time.sleep(POLL / 2)
        now = read(fleet)
        if now.calls != last.calls:
            quiet_since = now.at
        last = now
    return last


def compose(fleet: Fleet, actors: int, timeout: float) -> dict[str, Any]:
    """Create `actors` actors at once; measure until every one is composed and core is quiet."""
    before = read(fleet)
    ours = OURS in fleet.side.functions
    cache_before = cache(fleet) if ours else {}
    began = time.monotonic()
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: fleet.kube.apply(actor(i, fleet.side)), range(actors)))
    composed_at: dict[str, float] = {}
    while len(composed_at) < actors:
        if time.monotonic() - began > timeout:
            raise AssertionError(
                f"{fleet.side.name}: {len(composed_at)} of {actors} actors composed after "
                f"{timeout:.0f}s; core said: {fleet.plane.log(fleet.core.args[0].rsplit('/', 1)[-1])}"
            )
        for name in composed(fleet):
            composed_at.setdefault(name, time.monotonic() - began)
        time.sleep(POLL)
    after = settle(fleet)
    out: dict[str, Any] = {"wall_s": max(composed_at.values())} | used(before, after, fleet, actors)
    out["composed_at"] = composed_at
    if ours:
        counts = cache(fleet)
        out |= {k: counts[k] - cache_before[k] for k in ("hits", "misses")}
        out |= {"cache_mib": counts["bytes"] / 2**20, "answers": counts["answers"]}
        out["rss_mib"] = max(rss_mib(fleet.pids[name]) for name in _replicas(fleet))
    return out


def composed(fleet: Fleet) -> list[str]:
    """The actors composed now: their Deployment exists (the floor's XR is Synced)."""
    kube = fleet.kube
    if fleet.side.name == FLOOR:
        xrs = kube.request("GET", kube.path(API, "AsyncActor", NAMESPACE))["items"]
        return [xr["metadata"]["name"] for xr in xrs or [] if _synced(xr)]
    listed = kube.request("GET", kube.path("apps/v1", "Deployment", NAMESPACE), accept=METADATA)
    return [item["metadata"]["name"] for item in listed.get("items") or []]


def _synced(xr: dict[str, Any]) -> bool:
    conditions = xr.get("status", {}).get("conditions", [])
    return any(c["type"] == "Synced" and c["status"] == "True" for c in conditions)


def cache(fleet: Fleet) -> dict[str, float]:
    """function-asya's response cache counts now, its replicas' added (logged on SIGUSR1)."""
    counts: Counter[str] = Counter()
    for name in _replicas(fleet):
        log = fleet.log(name)
        previous = support.last_line(log, "Response cache")
        fleet.servers[name].send_signal(signal.SIGUSR1)
        fields = support.log_fields(support.eventually_line(log, "Response cache", after=previous))
        counts.update({key: int(fields[key]) for key in ("hits", "misses", "bytes", "answers")})
    return {key: float(value) for key, value in counts.items()}


def marks(fleet: Fleet) -> dict[str, str]:
    """Each Deployment's mark of what it was rendered from."""
    kube = fleet.kube
    listed = kube.request("GET", kube.path("apps/v1", "Deployment", NAMESPACE), accept=METADATA)
    return {
        item["metadata"]["name"]: item["metadata"].get("annotations", {}).get(MARK, "")
        for item in listed.get("items") or []
    }


def edit(fleet: Fleet, composed_at: dict[str, float], timeout: float) -> dict[str, Any]:
    """Edit the flavor half the fleet lists; measure until each of its actors carries it."""
    affected = {name for index, name in enumerate(sorted(composed_at)) if index % 2 == 0}
    steady_s = steady(fleet)
    was = marks(fleet)
    before, cache_before = read(fleet), cache(fleet)
    computed_before = _computed(fleet)
    began = time.monotonic()
    fleet.kube.apply(edited_flavor())
    carried: dict[str, float] = {}
    while len(carried) < len(affected):
        if time.monotonic() - began > timeout:
            raise AssertionError(
                f"{len(carried)} of {len(affected)} carry the edit after {timeout:.0f}s"
            )
        for name, mark in marks(fleet).items():
            if name in affected and mark != was[name]:
                carried.setdefault(name, time.monotonic() - began)
        time.sleep(POLL)
    after, cache_after = settle(fleet), cache(fleet)
    generations = _check_carried(fleet, affected, was)
    computed = _computed(fleet) - computed_before
    actors = len(affected)
    return {
        "edit_s": max(carried.values()),
        "steady_s": steady_s,
        "compose_s": max(composed_at[name] for name in affected),
        "affected": actors,
        "misses": cache_after["misses"] - cache_before["misses"],
        "hits": cache_after["hits"] - cache_before["hits"],
        "computed_affected": sum(n for a, n in computed.items() if a in affected),
        "computed_others": sum(n for a, n in computed.items() if a not in affected),
        "generation_affected": max(g for a, g in generations.items() if a in affected),
        "generation_others": max(g for a, g in generations.items() if a not in affected),
    } | used(before, after, fleet, actors)


def steady(fleet: Fleet) -> float:
    """Wait until function-asya has computed no answer for STEADY seconds; return how long.

    An actor whose status was written in its last reconcile is read anew on its next
    (its resourceVersion changed): the fleet is steady once every actor has been
    reconciled again, from the cache, since its last write. Crossplane reconciles each
    actor again when its answer's TTL (60 s) runs out.
    """
    began = last_change = time.monotonic()
    last = sum(_computed(fleet).values())
    # Replicas each keep their own cache: an actor is steady once both hold its answer,
    # which round robin takes a few TTLs to bring about. The edit goes ahead after
    # STEADY_AT_MOST regardless, and the report says how long it waited.
    while time.monotonic() - last_change < STEADY and time.monotonic() - began < STEADY_AT_MOST:
        time.sleep(POLL * 2)
        if (now := sum(_computed(fleet).values())) != last:
            last, last_change = now, time.monotonic()
    return time.monotonic() - began


def _computed(fleet: Fleet) -> Counter[str]:
    """How many answers function-asya computed per actor so far (its debug log)."""
    counted: Counter[str] = Counter()
    for name in _replicas(fleet):
        for raw in fleet.log(name).read_text(errors="replace").splitlines():
            if "Answer computed" in raw:
                fields = support.log_fields(support.strip_colours(raw))
                counted[fields["actor"].split("/")[-1]] += 1
    return counted


def _check_carried(fleet: Fleet, affected: set[str], was: dict[str, str]) -> dict[str, int]:
    """Every affected Deployment carries the env var; no other was rendered again.

    Returns each Deployment's generation: how often its spec changed (1: never since
    created), which an answer differing from call to call would raise.
    """
    kube = fleet.kube
    generations = {}
    for item in kube.request("GET", kube.path("apps/v1", "Deployment", NAMESPACE))["items"]:
        name = item["metadata"]["name"]
        [runtime] = [
            c for c in item["spec"]["template"]["spec"]["containers"] if c["name"] == "asya-runtime"
        ]
        has = EDIT_ENV in runtime.get("env", [])
        unchanged = item["metadata"]["annotations"][MARK] == was[name]
        if has != (name in affected) or unchanged == (name in affected):
            raise AssertionError(f"{name}: carries the edit {has}, mark unchanged {unchanged}")
        generations[name] = item["metadata"]["generation"]
    return generations


def run(actors: int, poll: str = "1m", replicas: int = 2) -> dict[str, Any]:
    """The four sides in turn, each on a fresh control plane; the edit on v2.4 and v2.3.

    Then function-asya's side again with `replicas` servers behind one name (1: not).
    """
    every = sides()
    timeout = max(300.0, actors * 0.6)
    out: dict[str, Any] = {}
    for name in SIDES:
        with fleet(every[name], poll=poll) as running:
            out[name] = compose(running, actors, timeout)
            if name == OURS:
                out["edit"] = edit(running, out[name]["composed_at"], timeout)
    with fleet(every[OURS], core="v2.3", poll=poll) as running:
        out["v2.3"] = compose(running, actors, timeout)
        out["edit v2.3"] = edit(running, out["v2.3"]["composed_at"], timeout)
    if replicas > 1:
        with fleet(every[OURS], poll=poll, replicas=replicas) as running:
            out["replicas"] = compose(running, actors, timeout)
            out["edit replicas"] = edit(running, out["replicas"]["composed_at"], timeout)
    for numbers in out.values():
        numbers.pop("composed_at", None)
    return out
