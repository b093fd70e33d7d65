"""`function-asya serve` as Crossplane runs it: a subprocess on a real socket."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1
from crossplane.function.proto.v1beta1 import run_function_pb2 as fnv1beta1
from crossplane.function.proto.v1beta1 import run_function_pb2_grpc as grpcv1beta1

from tests import support

pytestmark = pytest.mark.slow


def _v1_request(tag: str) -> fnv1.RunFunctionRequest:
    return support.request(support.MINIMAL_XR, meta=fnv1.RequestMeta(tag=tag))


def test_v1_call_over_a_real_socket_echoes_the_tag() -> None:
    with support.serving("--insecure") as served, grpc.insecure_channel(served.address) as channel:
        rsp = grpcv1.FunctionRunnerServiceStub(channel).RunFunction(
            _v1_request("tag-v1"), timeout=10
        )
    assert rsp.meta.tag == "tag-v1"
    assert not support.fatal_messages(rsp)


def test_v1beta1_call_is_served_for_older_crossplane() -> None:
    req = fnv1beta1.RunFunctionRequest.FromString(_v1_request("tag-beta").SerializeToString())
    with support.serving("--insecure") as served, grpc.insecure_channel(served.address) as channel:
        rsp = grpcv1beta1.FunctionRunnerServiceStub(channel).RunFunction(req, timeout=10)
    assert rsp.meta.tag == "tag-beta"
    assert rsp.meta.ttl.seconds == 60


def test_sigterm_stops_the_server_with_status_zero() -> None:
    with support.serving("--insecure") as served:
        status = served.stop()
    assert status == 0


def test_sigusr1_logs_the_response_cache_counts_and_serving_goes_on(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    with log.open("w") as output, support.serving("--insecure", output=output) as served:
        with grpc.insecure_channel(served.address) as channel:
            stub = grpcv1.FunctionRunnerServiceStub(channel)
            for _ in range(3):  # one content, tagged alike: a miss, then two answers kept
                stub.RunFunction(_v1_request("same"), timeout=10)
            served.process.send_signal(signal.SIGUSR1)
            line = support.eventually_line(log, "Response cache")
            rsp = stub.RunFunction(_v1_request("after"), timeout=10)
        assert served.stop() == 0
    fields = support.log_fields(line)
    assert (fields["hits"], fields["misses"], fields["answers"]) == ("2", "1", "1")
    assert int(fields["bytes"]) > 0
    assert rsp.meta.tag == "after"


def _mtls_call(
    address: str,
    certs: support.Certificates,
    cert: bytes | None,
    key: bytes | None,
    ca: bytes | None = None,
) -> fnv1.RunFunctionResponse:
    with support.secure_channel(address, ca or certs.ca, cert, key) as channel:
        return grpcv1.FunctionRunnerServiceStub(channel).RunFunction(_v1_request("tls"), timeout=10)


def _failure(refused: grpc.RpcError) -> tuple[grpc.StatusCode, str]:
    """A failed call's status code and the client's last error, after the address.

    A server that hangs up in the TLS handshake reads "Socket closed"; a port that
    nothing listens on would read "Connection refused", with the same code.
    """
    return refused.code(), refused.details().rsplit(": ", 1)[-1]


HUNG_UP = (grpc.StatusCode.UNAVAILABLE, "Socket closed")


def test_mutual_tls_accepts_a_client_with_a_certificate_from_the_ca(tmp_path: Path) -> None:
    certs = support.make_certificates(tmp_path / "certs")
    with support.serving("--tls-certs-dir", str(certs.directory)) as served:
        rsp = _mtls_call(served.address, certs, certs.client_cert, certs.client_key)
    assert rsp.meta.tag == "tls"


def test_mutual_tls_reads_the_certificates_directory_from_the_environment(tmp_path: Path) -> None:
    certs = support.make_certificates(tmp_path / "certs")
    with support.serving(env={"TLS_SERVER_CERTS_DIR": str(certs.directory)}) as served:
        rsp = _mtls_call(served.address, certs, certs.client_cert, certs.client_key)
    assert rsp.meta.tag == "tls"


def test_mutual_tls_refuses_a_client_without_a_certificate(tmp_path: Path) -> None:
    certs = support.make_certificates(tmp_path / "certs")
    with support.serving("--tls-certs-dir", str(certs.directory)) as served:
        with pytest.raises(grpc.RpcError) as refused:
            _mtls_call(served.address, certs, None, None)
    assert _failure(refused.value) == HUNG_UP


def test_mutual_tls_refuses_a_client_signed_by_another_ca(tmp_path: Path) -> None:
    certs = support.make_certificates(tmp_path / "certs")
    stranger = support.make_certificates(tmp_path / "other", ca_name="other-ca")
    with support.serving("--tls-certs-dir", str(certs.directory)) as served:
        with pytest.raises(grpc.RpcError) as refused:
            _mtls_call(served.address, certs, stranger.client_cert, stranger.client_key)
    assert _failure(refused.value) == HUNG_UP


def test_plaintext_is_refused_when_serving_mutual_tls(tmp_path: Path) -> None:
    certs = support.make_certificates(tmp_path / "certs")
    with support.serving("--tls-certs-dir", str(certs.directory)) as served:
        with (
            grpc.insecure_channel(served.address) as channel,
            pytest.raises(grpc.RpcError) as refused,
        ):
            grpcv1.FunctionRunnerServiceStub(channel).RunFunction(_v1_request("x"), timeout=5)
    assert _failure(refused.value) == HUNG_UP


def test_insecure_wins_over_a_certificates_directory_for_every_call(tmp_path: Path) -> None:
    # The SDK's runner binds a TLS and a plaintext listener on one address here,
    # and a share of plaintext connections then fail. Every call must succeed.
    certs = support.make_certificates(tmp_path / "certs")
    with support.serving(
        "--insecure", env={"TLS_SERVER_CERTS_DIR": str(certs.directory)}
    ) as served:
        tags = []
        for attempt in range(20):
            with grpc.insecure_channel(served.address) as channel:
                rsp = grpcv1.FunctionRunnerServiceStub(channel).RunFunction(
                    _v1_request(f"call-{attempt}"), timeout=10
                )
            tags.append(rsp.meta.tag)
    assert tags == [f"call-{n}" for n in range(20)]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            ["--insecure", "--address", "256.1.1.1:9443"], "cannot listen on", id="bad-address"
        ),
        pytest.param(
            ["--insecure", "--address", "not-an-address"], "cannot listen on", id="no-port"
        ),
        pytest.param(
            ["--tls-certs-dir", "/nonexistent/certs"], "does not exist", id="missing-certs"
        ),
        pytest.param([], "no credentials", id="neither-tls-nor-insecure"),
    ],
)
def test_serve_exits_non_zero_with_the_reason_when_it_cannot_start(
    args: list[str], message: str
) -> None:
    result = subprocess.run(
        [support.FUNCTION_ASYA, "serve", *args],
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert result.returncode != 0
    assert message in result.stderr


def test_serve_reports_an_unreadable_certificate_file(tmp_path: Path) -> None:
    certs = support.make_certificates(tmp_path / "certs")
    (certs.directory / "ca.crt").unlink()
    result = subprocess.run(
        [support.FUNCTION_ASYA, "serve", "--tls-certs-dir", str(certs.directory)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode != 0
    assert "ca.crt" in result.stderr


def test_address_already_in_use_is_a_startup_failure() -> None:
    with support.serving("--insecure") as served:
        result = subprocess.run(
            [support.FUNCTION_ASYA, "serve", "--insecure", "--address", served.address],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    assert result.returncode != 0
    assert "cannot listen on" in result.stderr


def _printing(script: str) -> subprocess.Popen[str]:
    """A stand-in server: a Python process that runs `script`, its output piped."""
    return subprocess.Popen(
        [sys.executable, "-c", f"import sys, time\n{script}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.parametrize(
    "script",
    [
        # Nothing follows the line that says where: it must not wait in a buffer.
        'sys.stdout.write(\'starting\\n{"address": "127.0.0.1:44159", "msg": "Serving"}\\n\')',
        # A line cut inside the port number is read once it is whole.
        'sys.stdout.write(\'{"address": "127.0.0.1:4\'); sys.stdout.flush(); time.sleep(0.3)\n'
        'sys.stdout.write(\'4159", "msg": "Serving"}\\n\')',
    ],
    ids=["after another line", "in two parts"],
)
def test_the_port_is_read_from_the_serving_line(script: str) -> None:
    process = _printing(f"{script}\nsys.stdout.flush(); time.sleep(30)")
    try:
        assert support.bound_port(process, timeout=5) == 44159
    finally:
        process.kill()
        process.wait()


@pytest.mark.parametrize(
    ("script", "how"),
    [
        ("sys.exit(3)", "exited with 3"),
        ("sys.stdout.flush(); sys.stderr.flush(); time.sleep(30)", "did not say where it listens"),
    ],
    ids=["exits", "never says"],
)
def test_a_server_that_never_says_its_port_fails_with_what_it_printed(
    script: str, how: str
) -> None:
    process = _printing(f"print('warming up'); print('a warning', file=sys.stderr)\n{script}")
    with pytest.raises(AssertionError, match=how) as failure:
        support.bound_port(process, timeout=1)
    assert "stdout: 'warming up\\n'" in str(failure.value)
    assert "stderr: 'a warning\\n'" in str(failure.value)
    assert process.poll() is not None  # never left running
