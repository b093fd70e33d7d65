"""Crossplane core with function-asya, in one XR form, on a rig's control plane.

Core finds a function through its active FunctionRevision's `status.endpoint`. Without a
registry or Docker there is no package to install, so the rig writes that revision itself
(paused, so the package manager leaves it alone) with the endpoint of a locally served
function-asya and the `composition` capability, and runs core with the External package
runtime. Everything past that is Crossplane's own code path: the XRD's CRDs, the
Composition's pipeline, the gRPC call, composed objects, the XR's status.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests import support
from tests.cluster import providers, rig

EXAMPLES = support.ROOT / "examples"
FORMS = {
    # form: XRD, Composition, the XR's kind, what the actor's author applies
    "v1": ("xrd/xasyncactors.asya.sh.yaml", "examples/composition.yaml", "XAsyncActor"),
    "v2": ("xrd/asyncactors.asya.sh.v2.yaml", "examples/v2/composition.yaml", "AsyncActor"),
}
API = "asya.sh/v1alpha1"
NAMESPACE = "production"
ACTOR = {
    "apiVersion": API,
    "kind": "AsyncActor",
    "metadata": {"name": "enhancer", "namespace": NAMESPACE},
    "spec": {
        "actor": "enhancer",
        "image": "ghcr.io/myorg/enhancer:v1",
        "handler": "enhancer.process",
        "flavors": ["gpu-a100"],
    },
}
# The five composed objects of an SQS actor, by composition resource name.
RESOURCES = {"deployment", "scaledobject", "serviceaccount", "sqs-queue", "triggerauthentication"}


@dataclass
class Cluster:
    """A control plane with Crossplane core and function-asya, in one XR form."""

    plane: rig.ControlPlane
    kube: rig.Kube
    form: str

    @property
    def xr_kind(self) -> str:
        return FORMS[self.form][2]

    def composed(self, xr: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """The XR's composed objects that exist now, by composition resource name."""
        found = {}
        for ref in xr.get("spec", {}).get("crossplane", xr.get("spec", {})).get("resourceRefs", []):
            namespace = ref.get("namespace") or (NAMESPACE if self.form == "v2" else None)
            try:
                body = self.kube.get(ref["apiVersion"], ref["kind"], ref["name"], namespace)
            except rig.KubeError as missing:
                if missing.code == 404:
                    continue
                raise
            found[body["metadata"]["annotations"]["crossplane.io/composition-resource-name"]] = body
        return found

    def xr(self, name: str) -> dict[str, Any]:
        """The composite resource of an actor (v1: the claim's XR)."""
        if self.form == "v2":
            return self.kube.get(API, "AsyncActor", name, NAMESPACE)  # type: ignore[no-any-return]
        claim = self.kube.get(API, "AsyncActor", name, NAMESPACE)
        ref = claim["spec"].get("resourceRef")
        if ref is None:
            raise rig.KubeError(404, f"claim {name} has no XR yet")
        return self.kube.get(API, "XAsyncActor", ref["name"])  # type: ignore[no-any-return]

    def deployment(self, xr: dict[str, Any]) -> dict[str, Any]:
        """The actor's Deployment as composed (v1: the manifest inside its Object)."""
        body = self.composed(xr)["deployment"]
        return body["spec"]["forProvider"]["manifest"] if self.form == "v1" else body  # type: ignore[no-any-return]


def provide_queue(kube: rig.Kube, queue: dict[str, Any]) -> None:
    """Play provider-aws's part, which the rig does not run: the queue exists, with its URL."""
    name = queue["spec"]["forProvider"]["name"]
    region = queue["spec"]["forProvider"]["region"]
    url = f"https://sqs.{region}.amazonaws.com/123456789012/{name}"
    kube.apply(
        {
            "apiVersion": queue["apiVersion"],
            "kind": queue["kind"],
            "metadata": {k: v for k, v in queue["metadata"].items() if k in ("name", "namespace")},
            "status": {
                "atProvider": {"arn": f"arn:aws:sqs:{region}:123456789012:{name}", "url": url},
                "conditions": providers.conditions(ready=True),
            },
        },
        status=True,
    )


def function_revision(endpoint: str, package: str = "function-asya") -> dict[str, Any]:
    """The active revision of a function, as the package manager would have written it.

    A Composition's step names the function `package`; core dials `endpoint`.
    """
    return {
        "apiVersion": "pkg.crossplane.io/v1",
        "kind": "FunctionRevision",
        "metadata": {
            "name": f"{package}-rig",
            "labels": {"pkg.crossplane.io/package": package},
            "annotations": {"crossplane.io/paused": "true"},
        },
        "spec": {
            "desiredState": "Active",
            "image": "xpkg.crossplane.io/asya/function-asya:v0.1.0",
            "revision": 1,
            "ignoreCrossplaneConstraints": True,
        },
    }


def client_pair(certs: support.Certificates, directory: Path) -> Path:
    """Core's side of mutual TLS (ca.crt, tls.crt, tls.key) in a folder of its own."""
    directory.mkdir()
    (directory / "ca.crt").write_bytes(certs.ca)
    (directory / "tls.crt").write_bytes(certs.client_cert)
    (directory / "tls.key").write_bytes(certs.client_key)
    return directory


@contextlib.contextmanager
def crossplane(
    plane: rig.ControlPlane,
    form: str,
    edit: Callable[[dict[str, Any]], dict[str, Any]] = lambda document: document,
    more: tuple[Path, ...] = (),
) -> Iterator[Cluster]:
    """Crossplane core calling function-asya over mutual TLS on a control plane.

    The form's XRD is offered; its example Composition, the example flavors, the
    platform's dead-letter queues and any `more` documents are applied, each through
    `edit` (the rig points the Composition's Input at its queue API).
    """
    xrd, composition, _ = FORMS[form]
    kube = plane.kube
    assert kube is not None
    with tempfile.TemporaryDirectory() as scratch:
        certs = support.make_certificates(Path(scratch) / "server")
        with support.serving("--tls-certs-dir", str(certs.directory)) as served:
            revision = kube.apply(function_revision(served.address))
            status = {"endpoint": served.address, "capabilities": ["composition"]}
            kube.apply({**function_revision(served.address), "status": status}, status=True)
            assert revision["metadata"]["name"]
            plane.start_crossplane(client_pair(certs, Path(scratch) / "client"))
            for document in rig.read_documents(support.ROOT / xrd):
                kube.apply(document)
            rig.eventually(lambda: offered(kube, xrd), 120, f"the {form} XRD offered")
            kube.forget_kinds()
            documents = rig.read_documents(
                support.ROOT / composition, EXAMPLES / "flavors", EXAMPLES / "platform", *more
            )
            namespaces = {d["metadata"].get("namespace") for d in documents} | {NAMESPACE}
            for namespace in sorted(n for n in namespaces if n):
                kube.apply(
                    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
                )
            for document in documents:
                kube.apply(edit(document))
            try:
                yield Cluster(plane, kube, form)
            except BaseException:
                print(plane.log("crossplane-core"))
                raise


def offered(kube: rig.Kube, xrd_file: str) -> bool:
    """Whether core has established an XRD (and offered its claim, for a v1 XRD)."""
    [xrd] = rig.read_documents(support.ROOT / xrd_file)
    body = kube.get(xrd["apiVersion"], "CompositeResourceDefinition", xrd["metadata"]["name"])
    conditions = {c["type"]: c["status"] for c in body.get("status", {}).get("conditions", [])}
    wanted = ("Established", "Offered") if "claimNames" in xrd["spec"] else ("Established",)
    return all(conditions.get(name) == "True" for name in wanted)
