"""The function serves as a non-root user on a read-only root filesystem, as in its image.

The image runs as distroless's `nonroot` (65532); a Pod may add
`readOnlyRootFilesystem: true`. Here the same conditions are made with a private
mount namespace in which every filesystem but /proc, /sys and /dev is read-only.
"""

from __future__ import annotations

import shutil
import stat
import subprocess
from pathlib import Path

import grpc
import pytest
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1

from function.validate import kube_schemas
from tests import schemas, support

pytestmark = pytest.mark.slow

NONROOT = 65532
READ_ONLY_AS_NONROOT = f"""
set -e
for target in $(findmnt -rn -o TARGET); do
  case "$target" in /proc*|/sys*|/dev*) ;; *) mount -o remount,bind,ro "$target" ;; esac
done
for probe in /tmp/.probe {support.ROOT}/.probe; do
  if touch "$probe" 2>/dev/null; then echo "$probe is writable" >&2; exit 97; fi
done
exec setpriv --reuid {NONROOT} --regid {NONROOT} --clear-groups "$@"
"""


def isolation_available() -> bool:
    if not (shutil.which("unshare") and shutil.which("setpriv") and shutil.which("findmnt")):
        return False
    probe = subprocess.run(["unshare", "--mount", "true"], capture_output=True, check=False)
    return probe.returncode == 0


def nonroot_can_enter_the_project() -> bool:
    """Whether a user other than the owner may pass through every folder above the project."""
    return all(
        folder.stat().st_mode & stat.S_IXOTH for folder in (support.ROOT, *support.ROOT.parents)
    )


@pytest.mark.skipif(
    not isolation_available(),
    reason="needs unshare --mount and setpriv (root in a Linux sandbox) to make a read-only root",
)
@pytest.mark.skipif(
    not nonroot_can_enter_the_project(),
    reason=f"the project lies in a folder only its owner may enter: user {NONROOT} cannot run it",
)
def test_serves_as_nonroot_on_a_read_only_root_filesystem() -> None:
    prefix = (
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        READ_ONLY_AS_NONROOT,
        "sh",
    )
    env = {"HOME": "/nonexistent", "TMPDIR": "/nonexistent"}
    with support.serving("--insecure", prefix=prefix, env=env) as served:
        status = Path(f"/proc/{served.process.pid}/status").read_text()
        [uid_line] = [line for line in status.splitlines() if line.startswith("Uid:")]
        assert uid_line.split()[1:] == [str(NONROOT)] * 4
        with grpc.insecure_channel(served.address) as channel:
            stub = grpcv1.FunctionRunnerServiceStub(channel)
            for _ in range(3):
                rsp = stub.RunFunction(support.request(support.MINIMAL_XR), timeout=10)
                assert support.fatal_messages(rsp) == []
                assert "deployment" in rsp.desired.resources
        assert served.stop() == 0
        _, err = served.process.communicate()
    assert "Read-only file system" not in err
    assert "Permission denied" not in err


INSTALL = support.ROOT / "examples" / "install" / "function.yaml"


def test_the_install_example_validates_against_crossplanes_crds() -> None:
    schemas.require_crds()
    runtime, function = schemas.load_all(INSTALL)
    assert schemas.errors(runtime) == []
    assert schemas.errors(function) == []


def test_the_install_example_asks_for_a_hardened_runtime() -> None:
    runtime, function = schemas.load_all(INSTALL)
    pod = runtime["spec"]["deploymentTemplate"]["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsUser"] == NONROOT
    [container] = pod["containers"]
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert function["spec"]["runtimeConfigRef"]["name"] == runtime["metadata"]["name"]
    # The image's user is the one the runtime config expects.
    dockerfile = (support.ROOT / "Dockerfile").read_text()
    assert "USER nonroot:nonroot" in dockerfile  # distroless's nonroot is 65532


def test_the_rbac_example_lets_crossplane_read_configmaps_and_compose_the_v2_objects() -> None:
    [role] = schemas.load_all(support.ROOT / "examples" / "install" / "crossplane-rbac.yaml")
    assert schemas.errors(role) == []
    assert role["metadata"]["labels"]["rbac.crossplane.io/aggregate-to-crossplane"] == "true"
    granted = {
        (group, resource): set(rule["verbs"])
        for rule in role["rules"]
        for group in rule["apiGroups"]
        for resource in rule["resources"]
    }
    assert granted[("", "configmaps")] == {"get", "list", "watch"}  # read only
    for kind in (("apps", "deployments"), ("keda.sh", "scaledobjects"), ("", "serviceaccounts")):
        assert granted[kind] == {"*"}


def test_the_image_keeps_the_one_schema_file_the_function_reads() -> None:
    # The Dockerfile names the file kube_schemas reads to keep it alone: the two must agree.
    folder, file = kube_schemas.SCHEMAS[1].split("/")[1:]
    dockerfile = (support.ROOT / "Dockerfile").read_text()
    assert f"! -name {folder} -exec rm -rf" in dockerfile
    assert f'{folder}" -mindepth 1 ! -name {file} -delete' in dockerfile
    assert "kube_schemas.validator()" in dockerfile  # the build fails if it removed too much
