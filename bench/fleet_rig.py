"""`--phases fleet-rig`: a fleet of actors composed by Crossplane core itself.

Each side runs on a fresh control plane of the rig (tests/cluster/rig.py): etcd,
kube-apiserver, kube-controller-manager (its garbage collector) and Crossplane core,
v2.4 unless told (`make bench-tools` builds it), its functions served over mutual TLS
as tests/cluster serves function-asya. No provider and no pods: an actor is composed
once its Deployment exists (the floor's, once its XR is Synced); its queue never gets
a URL, so its ScaledObject is not composed, alike on every side.

- function-asya: N v2 AsyncActors, each with two or three of the example flavors;
- go-templating + auto-ready: the same N without flavors (composition-v2.yaml);
- the SDK's no-op as a one-step pipeline: Crossplane's own cost per XR;
- function-asya again, on the alternative's actors (no flavors): the same work as the
  alternative, resource for resource, so what the flavors add is told from what the
  function costs.

Measured per side (bench/fleet_measure.py): wall time from the first create until
every actor is composed; CPU per actor of the function servers, Crossplane core and
kube-apiserver from /proc, until Crossplane has called no function for QUIET seconds;
calls per actor (core's own `function_run_function_request_total`); function-asya's
response cache (it logs its counts on SIGUSR1) and RSS. Then the flavor edit on
function-asya's fleet, on v2.4 (which watches the resources a function required) and
on v2.3.4 (which finds the edit when it reconciles an XR again).
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from bench import alternative, fleet_dns
from bench.servers import GO_BIN, free_port, stop
from tests import support
from tests.cluster import crossplane as xp
from tests.cluster import rig

ROOT = support.ROOT
OURS, ALTERNATIVE, FLOOR = alternative.OURS, alternative.ALTERNATIVE, alternative.FLOOR
UNFLAVORED = f"{OURS}, no flavors"
SIDES = (OURS, UNFLAVORED, ALTERNATIVE, FLOOR)
NAMESPACE = xp.NAMESPACE
XRD = "xrd/asyncactors.asya.sh.v2.yaml"
# Crossplane core builds: the one the phase runs, and the rig's own (no watch on flavors).
CORES = {
    "v2.4": ("crossplane-core-v2.4", ".e2e/crossplane-v2.4-crds"),
    "v2.3": ("crossplane-core", ".e2e/crossplane-crds"),
}
# Half the fleet lists the first set, half the second; the edit changes EDITED.
FLAVOR_SETS = (("cpu-standard", "redis-cache"), ("cpu-small", "s3-checkpoints", "openai-secrets"))
EDITED = FLAVOR_SETS[0][0]
EDIT_ENV = {"name": "FLEET_EDIT", "value": "1"}
FLOOR_FUNCTION = "function-noop"
AWS_CRDS = support.SHARED / "schemas" / "provider-upjet-aws"
# The addresses of function-asya's replicas: the port is shared, the address is not.
REPLICA_HOSTS = ("127.0.0.1", "127.0.0.2")


@dataclass(frozen=True)
class Side:
    """What one side composes with: its Composition and the functions it calls."""

    name: str
    composition: dict[str, Any]
    functions: tuple[str, ...]
    flavored: bool


def sides() -> dict[str, Side]:
    """The four sides, each with a Composition for the v2 AsyncActor."""
    ours = _document(ROOT / "examples" / "v2" / "composition.yaml")
    theirs = _document(ROOT / "bench" / "go-templating" / "composition-v2.yaml")
    floor = _document(ROOT / "bench" / "noop-composition.yaml")
    floor["metadata"]["name"] = "asyncactor-noop-namespaced"
    floor["spec"]["compositeTypeRef"]["kind"] = "AsyncActor"
    floor["spec"]["pipeline"][0]["functionRef"]["name"] = FLOOR_FUNCTION
    return {
        OURS: Side(OURS, ours, ("function-asya",), flavored=True),
        UNFLAVORED: Side(UNFLAVORED, ours, ("function-asya",), flavored=False),
        ALTERNATIVE: Side(ALTERNATIVE, theirs, alternative.GO_FUNCTIONS, flavored=False),
        FLOOR: Side(FLOOR, floor, (FLOOR_FUNCTION,), flavored=False),
    }


def missing(cores: tuple[str, ...] = tuple(CORES)) -> str | None:
    """Why the phase cannot run here, or None."""
    tools = [*rig.missing_tools(), *(CORES[core][0] for core in cores)]
    absent = [name for name in dict.fromkeys(tools) if not (rig.BIN / name).exists()]
    absent += [name for name in alternative.GO_FUNCTIONS if not (GO_BIN / name).exists()]
    if absent:
        return (
            f"{', '.join(absent)} not built (missing from .e2e/bin): "
            "`make e2e-tools bench-tools` builds them, and needs Go"
        )
    if not AWS_CRDS.is_dir():
        return f"the AWS provider's CRDs are read from {AWS_CRDS}, which is not beside the project"
    return None


def actor(index: int, side: Side) -> dict[str, Any]:
    """The index-th actor of a fleet: v2, on this side's Composition."""
    spec: dict[str, Any] = {
        "actor": f"fleet-{index:04d}",
        "image": "ghcr.io/myorg/fleet:v1",
        "handler": "fleet.process",
        "crossplane": {"compositionRef": {"name": side.composition["metadata"]["name"]}},
    }
    if side.flavored:
        spec["flavors"] = list(FLAVOR_SETS[index % 2])
    return {
        "apiVersion": xp.API,
        "kind": "AsyncActor",
        "metadata": {"name": spec["actor"], "namespace": NAMESPACE},
        "spec": spec,
    }


def edited_flavor() -> dict[str, Any]:
    """EDITED with one env var more: what the flavor edit applies."""
    flavor = _document(ROOT / "examples" / "flavors" / f"{EDITED}.yaml")
    flavor["data"]["env"] = [*flavor["data"].get("env", []), EDIT_ENV]
    return flavor


@dataclass
class Fleet:
    """A control plane with Crossplane core and one side's functions, ready for actors."""

    plane: rig.ControlPlane
    kube: rig.Kube
    side: Side
    servers: dict[str, subprocess.Popen[bytes]]
    core: subprocess.Popen[bytes]
    metrics_port: int
    logs: Path
    pids: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Find the processes whose CPU the phase reads."""
        apiserver = next(p for p in self.plane.processes if "kube-apiserver" in str(p.args))
        self.pids = {"apiserver": apiserver.pid, "core": self.core.pid} | {
            name: process.pid for name, process in self.servers.items()
        }

    def log(self, function: str) -> Path:
        """Where a function server writes its log."""
        return self.logs / f"{function}.log"


@contextlib.contextmanager
def fleet(
    side: Side, core: str = "v2.4", poll: str = "1m", replicas: int = 1, more: tuple[str, ...] = ()
) -> Iterator[Fleet]:
    """One side's functions and Crossplane core on a fresh control plane.

    With `replicas`, function-asya is served that many times behind one DNS name.
    """
    program, crds = CORES[core]
    with (
        rig.control_plane() as plane,
        tempfile.TemporaryDirectory() as scratch,
        contextlib.ExitStack() as stack,
    ):
        kube = plane.kube
        if kube is None:
            raise RuntimeError("the control plane did not start")
        plane.start_controller_manager()
        _install(kube, ROOT / crds)
        certs = support.make_certificates(Path(scratch) / "server", names=(fleet_dns.NAME,))
        servers: dict[str, subprocess.Popen[bytes]] = {}
        stack.callback(lambda: [stop(server) for server in servers.values()])
        try:
            for name in side.functions:
                count = replicas if name == "function-asya" else 1
                servers |= _serve(name, count, Served(certs.directory, Path(scratch), kube, stack))
            metrics = free_port()
            process = plane.start_crossplane(
                xp.client_pair(certs, Path(scratch) / "client"), poll, program, metrics, more
            )
            _offer(kube, side)
            yield Fleet(plane, kube, side, servers, process, metrics, Path(scratch))
        except BaseException:
            print(plane.log(program)[-3000:], file=sys.stderr)
            raise


def _install(kube: rig.Kube, crossplane_crds: Path) -> None:
    crds = rig.read_documents(crossplane_crds, ROOT / ".e2e" / "keda-crds", AWS_CRDS)
    kube.install([crd for crd in crds if crd.get("kind") == "CustomResourceDefinition"])


@dataclass(frozen=True)
class Served:
    """Where a fleet's functions are served from: certificates, logs, cluster, cleanup."""

    certs: Path
    scratch: Path
    kube: rig.Kube
    stack: contextlib.ExitStack


def replica(name: str, index: int) -> str:
    """The name of a function's index-th server (0: the function's own name)."""
    return name if index == 0 else f"{name}-{index + 1}"


def _serve(name: str, replicas: int, served: Served) -> dict[str, subprocess.Popen[bytes]]:
    """Serve one function over mutual TLS and register it as core finds functions.

    Its replicas share a port on addresses of their own, behind one DNS name.
    """
    port = free_port()
    hosts = REPLICA_HOSTS[:replicas]
    processes = {}
    for index, host in enumerate(hosts):
        tls = ["--tls-certs-dir", str(served.certs), "--address", f"{host}:{port}"]
        commands = {
            # --debug: it logs each answer it computes, by actor (bench/fleet_measure.py).
            "function-asya": [support.FUNCTION_ASYA, "serve", "--debug", *tls],
            FLOOR_FUNCTION: [sys.executable, "-m", "bench.sdk_noop", *tls],
        } | {go: [str(GO_BIN / go), *tls] for go in alternative.GO_FUNCTIONS}
        server = replica(name, index)
        with (served.scratch / f"{server}.log").open("wb") as log:
            processes[server] = subprocess.Popen(commands[name], stdout=log, stderr=log, cwd=ROOT)
        support.wait_until_listening(port, processes[server], host=host)
    endpoint = f"127.0.0.1:{port}"
    if replicas > 1:
        dns = served.stack.enter_context(fleet_dns.serving(hosts))
        endpoint = f"dns://{dns}/{fleet_dns.NAME}:{port}"
    revision = xp.function_revision(endpoint, name)
    served.kube.apply(revision)
    status = {"endpoint": endpoint, "capabilities": ["composition"]}
    served.kube.apply({**revision, "status": status}, status=True)
    return processes


def _offer(kube: rig.Kube, side: Side) -> None:
    """The v2 XRD established; the side's Composition, flavors and platform applied."""
    for document in rig.read_documents(ROOT / XRD):
        kube.apply(document)
    rig.eventually(lambda: xp.offered(kube, XRD), 120, "the v2 XRD established")
    kube.forget_kinds()
    documents = rig.read_documents(ROOT / "examples" / "flavors", ROOT / "examples" / "platform")
    namespaces = {d["metadata"].get("namespace") for d in documents} | {NAMESPACE}
    for namespace in sorted(n for n in namespaces if n):
        kube.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    for document in [side.composition, *documents]:
        kube.apply(document)


def _document(path: Path) -> dict[str, Any]:
    [document] = [d for d in yaml.safe_load_all(path.read_text()) if d]
    return document  # type: ignore[no-any-return]
