"""The real control plane on loopback: etcd and kube-apiserver, and a small client for it.

The binaries come from `make e2e-tools` (e2e/build-tools), linked into .e2e/bin/.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import secrets
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from function.models.observed import is_true
from tests.support import ROOT

BIN = ROOT / ".e2e" / "bin"
# prctl(2): the signal a process gets when its parent dies. Looked up here, once, so the
# forked child only calls it (it loads nothing, which a child of a threaded process may not).
PR_SET_PDEATHSIG = 1
try:
    _PRCTL: Any = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):  # not Linux: nothing to ask for
    _PRCTL = None
TOOLS = (
    "etcd",
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
    "crossplane-core",
    "crossplane",
    "keda-operator",
    "kwok",
)


def missing_tools() -> list[str]:
    """The rig's tools not yet built (make e2e-tools builds them; it needs Go)."""
    return [name for name in TOOLS if not (BIN / name).exists()]


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class KubeError(Exception):
    """The API server refused a request: its status code and Status message."""

    def __init__(self, code: int, body: dict[str, Any] | str) -> None:
        self.code = code
        self.body = body
        message = body.get("message", body) if isinstance(body, dict) else body
        super().__init__(f"{code}: {message}")


@dataclass
class Kube:
    """A client of one API server: discovery, server-side apply, get, list, delete."""

    server: str
    token: str
    _kinds: dict[tuple[str, str], tuple[str, bool]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Loopback to a server this test started, which signed its own certificate.
        self._tls = ssl.create_default_context()
        self._tls.check_hostname = False
        self._tls.verify_mode = ssl.CERT_NONE

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        content_type: str = "application/json",
        accept: str = "application/json",
        warnings: list[str] | None = None,
    ) -> Any:
        """One call; the decoded JSON answer, or KubeError with the server's Status.

        The server's Warning headers (Pod Security's among them) go into `warnings`.
        """
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.server + path, data=data, method=method)  # noqa: S310
        req.add_header("Authorization", f"Bearer {self.token}")
        req.add_header("Accept", accept)
        if data is not None:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, context=self._tls, timeout=60) as answer:  # noqa: S310
                text = answer.read()
                if warnings is not None:
                    warnings.extend(answer.headers.get_all("Warning") or [])
                if "json" not in answer.headers.get("Content-Type", ""):
                    return text.decode(errors="replace")  # /readyz says "ok"
                return json.loads(text or b"null")
        except urllib.error.HTTPError as refused:
            text = refused.read().decode(errors="replace")
            with contextlib.suppress(ValueError):
                raise KubeError(refused.code, json.loads(text)) from None
            raise KubeError(refused.code, text) from None

    def forget_kinds(self) -> None:
        """Read discovery again (after CRDs are installed)."""
        self._kinds.clear()

    def _resource(self, api_version: str, kind: str) -> tuple[str, bool]:
        if (api_version, kind) not in self._kinds:
            base = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
            for resource in self.request("GET", base)["resources"]:
                if "/" not in resource["name"]:
                    key = (api_version, resource["kind"])
                    self._kinds[key] = (resource["name"], resource["namespaced"])
        return self._kinds[(api_version, kind)]

    def namespaced(self, api_version: str, kind: str) -> bool:
        """Whether objects of a kind live in a namespace."""
        return self._resource(api_version, kind)[1]

    def path(self, api_version: str, kind: str, namespace: str | None, name: str = "") -> str:
        """The REST path of a kind's collection, or of one object in it."""
        plural, namespaced = self._resource(api_version, kind)
        base = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
        scope = f"/namespaces/{namespace}" if namespaced and namespace else ""
        return f"{base}{scope}/{plural}" + (f"/{name}" if name else "")

    def apply(
        self,
        body: dict[str, Any],
        *,
        dry_run: bool = False,
        status: bool = False,
        warnings: list[str] | None = None,
    ) -> Any:
        """Server-side apply, with unknown and duplicate fields refused (fieldValidation=Strict)."""
        meta = body.get("metadata", {})
        path = self.path(body["apiVersion"], body["kind"], meta.get("namespace"), meta["name"])
        query = {"fieldManager": "function-asya-tests", "force": "true"}
        query["fieldValidation"] = "Strict"
        if dry_run:
            query["dryRun"] = "All"
        suffix = "/status" if status else ""
        return self.request(
            "PATCH",
            f"{path}{suffix}?{urllib.parse.urlencode(query)}",
            body,
            "application/apply-patch+yaml",
            warnings=warnings,
        )

    def columns(self, api_version: str, kind: str, namespace: str | None) -> list[dict[str, Any]]:
        """What `kubectl get` prints of a kind: each row's cells by column name."""
        table = self.request(
            "GET",
            self.path(api_version, kind, namespace),
            accept="application/json;as=Table;v=v1;g=meta.k8s.io",
        )
        names = [column["name"] for column in table["columnDefinitions"]]
        return [dict(zip(names, row["cells"], strict=True)) for row in table["rows"]]

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> Any:
        """One object; KubeError 404 when it does not exist."""
        return self.request("GET", self.path(api_version, kind, namespace, name))

    def delete(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> Any:
        """Delete one object (in the background, as kubectl does)."""
        return self.request(
            "DELETE",
            self.path(api_version, kind, namespace, name),
            {"propagationPolicy": "Background"},
        )

    def install(self, crds: list[dict[str, Any]], timeout: float = 60) -> None:
        """Apply CRDs and wait until each is Established."""
        for crd in crds:
            self.apply(crd)
        for crd in crds:
            name = crd["metadata"]["name"]
            eventually(
                lambda name=name: is_true(
                    self.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", name).get(
                        "status", {}
                    ),
                    "Established",
                ),
                timeout,
                f"CRD {name} Established",
            )
        self.forget_kinds()

    def kubeconfig(self, path: Path) -> Path:
        """A kubeconfig for this server and token, for programs such as Crossplane core."""
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "rig",
                    "cluster": {"server": self.server, "insecure-skip-tls-verify": True},
                }
            ],
            "users": [{"name": "rig", "user": {"token": self.token}}],
            "contexts": [{"name": "rig", "context": {"cluster": "rig", "user": "rig"}}],
            "current-context": "rig",
        }
        path.write_text(yaml.safe_dump(config))
        return path


def eventually(check: Any, timeout: float, what: str, every: float = 0.2) -> Any:
    """Call `check` until it returns something truthy; fail naming `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = check()
        except KubeError as refused:
            last = refused
        else:
            if last:
                return last
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}; last: {last!r}")


def read_documents(*paths: Path) -> list[dict[str, Any]]:
    """Every YAML document in these files or folders (sorted), skipping empty ones."""
    documents: list[dict[str, Any]] = []
    for path in paths:
        files = sorted(path.glob("*.yaml")) if path.is_dir() else [path]
        for file in files:
            documents.extend(d for d in yaml.safe_load_all(file.read_text()) if d)
    return documents


@dataclass
class ControlPlane:
    """etcd and kube-apiserver (and, on demand, kube-controller-manager) in a temp folder."""

    directory: Path
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    kube: Kube | None = None

    def launch(
        self, name: str, *args: str, env: dict[str, str] | None = None, program: Path | None = None
    ) -> subprocess.Popen[bytes]:
        """Start one of the rig's programs (from .e2e/bin unless given), its output in NAME.log."""
        log = (self.directory / f"{name}.log").open("wb")
        process = subprocess.Popen(
            [str(program or BIN / name), *args],
            stdout=log,
            stderr=log,
            env=env,
            preexec_fn=_die_with_parent,  # noqa: PLW1509  # calls prctl only, looked up before
        )
        self.processes.append(process)
        return process

    def log(self, name: str) -> str:
        """What a component printed (for failure messages)."""
        return (self.directory / f"{name}.log").read_text(errors="replace")[-4000:]

    def start(self) -> Kube:
        """Start etcd and kube-apiserver; return a client once /readyz says ok."""
        etcd = self._start_etcd()
        token = secrets.token_hex(16)
        (self.directory / "tokens.csv").write_text(f'{token},rig,rig,"system:masters"\n')
        _service_account_keys(self.directory)
        port = free_port()
        d = self.directory
        apiserver = self.launch(
            "kube-apiserver",
            f"--etcd-servers={etcd}",
            "--bind-address=127.0.0.1",
            f"--secure-port={port}",
            f"--cert-dir={d / 'certs'}",
            "--service-account-issuer=https://kubernetes.default.svc",
            f"--service-account-key-file={d / 'sa.pub'}",
            f"--service-account-signing-key-file={d / 'sa.key'}",
            f"--token-auth-file={d / 'tokens.csv'}",
            "--authorization-mode=RBAC",
            "--service-cluster-ip-range=10.0.0.0/24",
            "--disable-admission-plugins=ServiceAccount",
            "--allow-privileged=true",
            "--enable-priority-and-fairness=false",
            "--max-requests-inflight=0",
            "--max-mutating-requests-inflight=0",
        )
        self.kube = Kube(f"https://127.0.0.1:{port}", token)
        eventually(lambda: self._ready(apiserver), 90, "kube-apiserver /readyz")
        return self.kube

    def _start_etcd(self) -> str:
        client, peer = free_port(), free_port()
        url = f"http://127.0.0.1:{client}"
        self.launch(
            "etcd",
            f"--data-dir={self.directory / 'etcd'}",
            f"--listen-client-urls={url}",
            f"--advertise-client-urls={url}",
            f"--listen-peer-urls=http://127.0.0.1:{peer}",
            f"--initial-advertise-peer-urls=http://127.0.0.1:{peer}",
            f"--initial-cluster=default=http://127.0.0.1:{peer}",
            "--unsafe-no-fsync",
        )
        return url

    def _ready(self, apiserver: subprocess.Popen[bytes]) -> bool:
        if apiserver.poll() is not None:
            raise AssertionError(f"kube-apiserver exited: {self.log('kube-apiserver')}")
        assert self.kube is not None
        with contextlib.suppress(OSError, KubeError):
            return bool(self.kube.request("GET", "/readyz") == "ok")
        return False

    def start_controller_manager(
        self, controllers: str = "garbage-collector-controller,namespace-controller"
    ) -> None:
        """The garbage collector and the namespace controller, which Crossplane's deletes need.

        An actor's life adds the Deployment and ReplicaSet controllers, which make its pods.
        """
        assert self.kube is not None
        config = self.kube.kubeconfig(self.directory / "kubeconfig")
        self.launch(
            "kube-controller-manager",
            f"--kubeconfig={config}",
            "--bind-address=127.0.0.1",
            f"--secure-port={free_port()}",
            "--leader-elect=false",
            f"--service-account-private-key-file={self.directory / 'sa.key'}",
            f"--controllers={controllers}",
            "--use-service-account-credentials=false",
        )

    def start_crossplane(
        self,
        client_certs: Path,
        poll: str = "5s",
        core: str = "crossplane-core",
        metrics_port: int | None = None,
        more: tuple[str, ...] = (),
    ) -> subprocess.Popen[bytes]:
        """Crossplane core out of cluster: no webhooks, no package runtime of its own.

        It reaches functions over mutual TLS with the client pair in `client_certs`
        (ca.crt, tls.crt, tls.key). `poll` is how often it reconciles an XR unasked,
        which is when a flavor's edit reaches the actors that use it before v2.4.
        `core` names the build in .e2e/bin (the bench's fleet-rig runs v2.4 too); its
        Prometheus metrics are served on `metrics_port` (a free port unless given);
        `more` are flags of its own (`--profile=ADDRESS`, say).
        """
        assert self.kube is not None
        config = self.kube.kubeconfig(self.directory / "kubeconfig")
        cache = self.directory / "xpkg"
        cache.mkdir(exist_ok=True)
        self.kube.apply(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "crossplane-system"}}
        )
        return self.launch(
            core,
            "core",
            "start",
            f"--poll-interval={poll}",
            f"--metrics-port={metrics_port or free_port()}",
            f"--health-probe-port={free_port()}",
            "--package-runtime=External",
            *more,
            env={
                **os.environ,
                "KUBECONFIG": str(config),
                "POD_NAMESPACE": "crossplane-system",
                "ENABLE_WEBHOOKS": "false",
                "XPKG_CACHE_DIR": str(cache),
                "TLS_CLIENT_CERTS_DIR": str(client_certs),
            },
        )

    def stop(self) -> None:
        """Stop every component (SIGTERM, then SIGKILL after five seconds)."""
        for process in reversed(self.processes):
            process.terminate()
        for process in reversed(self.processes):
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _die_with_parent() -> None:
    """Have Linux stop the component when the test process dies, however it dies.

    A run cut short (a CI timeout, ^C twice) would otherwise leave etcd and the API
    server running on the machine.
    """
    if _PRCTL is not None:
        _PRCTL(PR_SET_PDEATHSIG, signal.SIGKILL)


def _service_account_keys(directory: Path) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    (directory / "sa.key").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        )
    )
    (directory / "sa.pub").write_bytes(
        key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )


@contextlib.contextmanager
def control_plane() -> Iterator[ControlPlane]:
    """A control plane for the duration of a block, in a temp folder removed after."""
    with tempfile.TemporaryDirectory(prefix="function-asya-rig-") as directory:
        plane = ControlPlane(Path(directory))
        try:
            plane.start()
            yield plane
        finally:
            plane.stop()
