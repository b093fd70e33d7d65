"""The built wheel installs into a fresh venv and serves, as the Dockerfile does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1

from function.codec import structs
from tests import support

pytestmark = pytest.mark.slow


def test_the_wheel_installs_in_a_fresh_venv_and_answers_a_call(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--quiet",
            "-w",
            str(wheels),
            str(support.ROOT),
        ],
        check=True,
        timeout=300,
    )
    [wheel] = wheels.glob("function_asya-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)],
        check=True,
        timeout=600,
    )
    if structs.accelerated():
        # Built here with the C codec, the wheel carries it (the Dockerfile checks the same).
        subprocess.run(
            [
                str(venv / "bin" / "python"),
                "-c",
                "from function.codec import structs; assert structs.accelerated()",
            ],
            check=True,
            timeout=60,
            cwd=tmp_path,
        )
    installed = venv / "bin" / "function-asya"
    shown = subprocess.run(
        [str(installed), "serve", "--help"], capture_output=True, text=True, check=True, timeout=60
    )
    assert "--tls-certs-dir" in shown.stdout
    assert "--insecure" in shown.stdout

    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    process = subprocess.Popen(
        [str(installed), "serve", "--insecure", "--address", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    port = support.bound_port(process)
    served = support.Served(process, f"127.0.0.1:{port}")
    try:
        support.wait_until_listening(port, process)
        with grpc.insecure_channel(served.address) as channel:
            rsp = grpcv1.FunctionRunnerServiceStub(channel).RunFunction(
                support.request(support.MINIMAL_XR, meta=fnv1.RequestMeta(tag="wheel")),
                timeout=10,
            )
    finally:
        assert served.stop() == 0
    assert rsp.meta.tag == "wheel"
    assert not support.fatal_messages(rsp)
