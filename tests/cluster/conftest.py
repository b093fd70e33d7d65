"""One control plane for the whole session, with the CRDs the renders need installed."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cluster import rig
from tests.cluster.dry_run import DryRun
from tests.support import ROOT, SHARED

SCHEMAS = SHARED / "schemas"
# The composed kinds' CRDs: the providers' from ../shared/schemas (the module proxy serves
# neither provider's module); KEDA's (the six its operator watches), provider-kubernetes'
# Object and the Prometheus Operator's PodMonitor from their Go modules (linked by make
# e2e-tools).
PROVIDER_CRDS = (SCHEMAS / "provider-upjet-aws", SCHEMAS / "provider-upjet-gcp")
COMPOSED_CRDS = (
    ROOT / ".e2e" / "keda-crds",
    *PROVIDER_CRDS,
    ROOT / ".e2e" / "provider-kubernetes-crds",
    ROOT / ".e2e" / "prometheus-operator-crds",
)
CROSSPLANE_CRDS = ROOT / ".e2e" / "crossplane-crds"


def _skip_reason(needs_schemas: bool) -> str | None:
    missing = rig.missing_tools()
    if missing:
        return (
            f"the real-cluster tools are not built ({', '.join(missing)} missing from .e2e/bin): "
            "`make e2e-tools` builds them, and needs Go"
        )
    if needs_schemas and not SCHEMAS.is_dir():
        return (
            "../shared/schemas is not beside the project: the AWS and GCP providers' CRDs are "
            "read there"
        )
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test here needs the tools; without them each skips with the reason.

    All but the modules saying NEEDS_SCHEMAS = False (they compose no queue) also need
    the providers' CRDs.
    """
    for item in items:
        if Path(str(item.fspath)).parent == Path(__file__).parent:
            item.add_marker(pytest.mark.slow)
            # Starting a control plane and Crossplane takes longer than one unit test may.
            item.add_marker(pytest.mark.timeout(600))
            needs_schemas = getattr(getattr(item, "module", None), "NEEDS_SCHEMAS", True)
            if reason := _skip_reason(needs_schemas):
                item.add_marker(pytest.mark.skip(reason=reason))


def served_crd(crd: dict[str, Any]) -> dict[str, Any]:
    """A CRD as its provider's package manager would install it.

    provider-kubernetes' cluster-scoped Object CRD converts through a webhook whose
    service the package manager fills in; with one version served per test, no
    conversion is needed.
    """
    crd = copy.deepcopy(crd)
    if crd["spec"].get("conversion", {}).get("strategy") == "Webhook":
        crd["spec"]["conversion"] = {"strategy": "None"}
    return crd


@pytest.fixture(scope="session")
def plane() -> Iterator[rig.ControlPlane]:
    """etcd and kube-apiserver on loopback, with every CRD the renders and Crossplane need."""
    with rig.control_plane() as plane:
        assert plane.kube is not None
        crds = rig.read_documents(*(p for p in COMPOSED_CRDS if p.is_dir()), CROSSPLANE_CRDS)
        plane.kube.install(
            [served_crd(crd) for crd in crds if crd.get("kind") == "CustomResourceDefinition"]
        )
        yield plane


@pytest.fixture(scope="session")
def kube(plane: rig.ControlPlane) -> rig.Kube:
    """The client of the session's API server."""
    assert plane.kube is not None
    return plane.kube


@pytest.fixture(scope="session")
def dry_run(kube: rig.Kube) -> DryRun:
    """One dry-run applier for the session (it creates each namespace once)."""
    return DryRun(kube)
