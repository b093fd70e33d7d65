"""Helpers the tests share: a served function subprocess, certificates, request builders."""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from click.testing import CliRunner
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from google.protobuf import struct_pb2

# How Crossplane tags a request, stated once for the bench and the tests: tests that
# serve several requests tag them this way (a client that sends one tag with other
# content lies to the response cache, which trusts the tag).
from bench.request import crossplane_tag  # noqa: F401  # re-exported for the tests
from function.cli.main import cli

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
BIN = Path(sys.executable).parent
FUNCTION_ASYA = str(BIN / "function-asya")


def render_cli(*args: str, cwd: Path | str | None = None) -> subprocess.CompletedProcess[str]:
    """Run `function-asya render` with these arguments in process; never raises on exit codes.

    What a process would print and exit with; an exception that escapes the command
    (a traceback a user would see) is raised here.
    """
    with contextlib.chdir(cwd) if cwd else contextlib.nullcontext():
        result = CliRunner().invoke(cli, ["render", *args], prog_name="function-asya")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(
        ["function-asya", "render", *args], result.exit_code, result.stdout, result.stderr
    )


def render_process(*args: str, cwd: Path | str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed `function-asya render` as a user would; never raises on exit codes."""
    return subprocess.run(
        [FUNCTION_ASYA, "render", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=cwd,
    )


def struct(body: dict[str, Any]) -> struct_pb2.Struct:
    """Build a protobuf Struct from a dict."""
    out = struct_pb2.Struct()
    out.update(body)
    return out


def request(xr: dict[str, Any], **kwargs: Any) -> fnv1.RunFunctionRequest:
    """Build a RunFunctionRequest observing the given XR."""
    req = fnv1.RunFunctionRequest(**kwargs)
    req.observed.composite.resource.CopyFrom(struct(xr))
    return req


def flavored_request(data: dict[str, Any], **kwargs: Any) -> fnv1.RunFunctionRequest:
    """A request for MINIMAL_XR listing the flavor `shape`, fetched, with this data."""
    xr = MINIMAL_XR | {"spec": MINIMAL_XR["spec"] | {"flavors": ["shape"]}}
    req = request(xr, **{"input": struct({})} | kwargs)
    req.required_resources["flavor-shape"].items.add().resource.update(
        {"metadata": {"name": "shape"}, "data": data}
    )
    return req


def fatal_messages(rsp: fnv1.RunFunctionResponse) -> list[str]:
    """The messages of a response's Fatal results (empty when it composed)."""
    return [r.message for r in rsp.results if r.severity == fnv1.SEVERITY_FATAL]


MINIMAL_XR = {
    "apiVersion": "asya.sh/v1alpha1",
    "kind": "XAsyncActor",
    "metadata": {
        "name": "echo-abcde",
        "labels": {"crossplane.io/claim-name": "echo", "crossplane.io/claim-namespace": "team"},
    },
    "spec": {"actor": "echo", "image": "echo:1", "handler": "echo.handle"},
}


@dataclass
class Served:
    """A `function-asya serve` subprocess and where it listens."""

    process: subprocess.Popen[str]
    address: str

    def stop(self) -> int:
        """Send SIGTERM and return the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


_SERVING_ADDRESS = re.compile(r'address"?[=:] ?"?[0-9.]+:(\d+)')
_CONSOLE_COLOURS = re.compile(r"\x1b\[[0-9;]*m")


def _serving_port(lines: list[str]) -> int | None:
    for line in lines:
        # JSON lines, or the console's coloured ones with --debug.
        plain = _CONSOLE_COLOURS.sub("", line)
        if "Serving" in plain and (found := _SERVING_ADDRESS.search(plain)):
            return int(found.group(1))
    return None


def bound_port(process: subprocess.Popen[str], log: Any = None, timeout: float = 30) -> int:
    """The port a server started on port 0 bound, read from its `Serving` log line.

    The line is read from the process's stdout, or from `log` (a file it writes to)
    past where the file ended when the server started. Fails with everything the
    server printed if it exits or never says.
    """
    deadline = time.monotonic() + timeout
    start = log.tell() if log is not None else 0
    received = b""
    while time.monotonic() < deadline:
        if log is not None:
            with open(log.name, "rb") as written:
                written.seek(start)
                received = written.read()
            time.sleep(0.02)
        elif process.stdout is not None:
            # Raw reads from the pipe: a buffered readline could keep the line
            # where select never sees it.
            pipe = process.stdout.fileno()
            if select.select([pipe], [], [], 0.05)[0]:
                received += os.read(pipe, 65536)
        # Complete lines only: a line cut short could hold part of the port.
        port = _serving_port(received.decode(errors="replace").split("\n")[:-1])
        if port is not None:
            return port
        if process.poll() is not None:
            break
    if log is not None:
        with open(log.name, "rb") as written:
            written.seek(start)
            received = written.read()
    how = "did not say where it listens in time"
    if process.poll() is not None:
        how = f"exited with {process.returncode}"
    process.kill()
    out, err = process.communicate(timeout=10)
    printed = received.decode(errors="replace") + (out or "")
    raise AssertionError(f"server {how}; stdout: {printed!r}; stderr: {err!r}")


def wait_until_listening(
    port: int, process: subprocess.Popen[Any], timeout: float = 30, host: str = "127.0.0.1"
) -> None:
    """Wait until something accepts TCP connections on the port, or the process dies."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            _, err = process.communicate()
            raise AssertionError(f"server exited with {process.returncode}: {err}")
        with contextlib.suppress(OSError), socket.create_connection((host, port), 0.2):
            return
        time.sleep(0.05)
    raise AssertionError("server did not start listening in time")


def strip_colours(line: str) -> str:
    """A console log line without its colours."""
    return _CONSOLE_COLOURS.sub("", line)


def last_line(log: Path, text: str) -> str | None:
    """The last complete line of a log holding `text`, its console colours removed."""
    lines = log.read_text(errors="replace").split("\n")[:-1]
    found = [strip_colours(line) for line in lines if text in line]
    return found[-1] if found else None


def log_fields(line: str) -> dict[str, str]:
    """The fields of one log line: JSON (the default) or the console's key=value (--debug)."""
    with contextlib.suppress(ValueError):
        return {key: str(value) for key, value in json.loads(line).items()}
    return dict(part.split("=", 1) for part in line.split() if "=" in part)


def eventually_line(log: Path, text: str, timeout: float = 10, after: str | None = None) -> str:
    """Wait for a line holding `text` (other than `after`) in a log; return it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = last_line(log, text)
        if line is not None and line != after:
            return line
        time.sleep(0.02)
    raise AssertionError(f"no line with {text!r} in {log} after {timeout:.0f}s")


@contextlib.contextmanager
def serving(
    *args: str,
    env: dict[str, str] | None = None,
    port: int | None = None,
    output: Any = None,
    prefix: tuple[str, ...] = (),
) -> Iterator[Served]:
    """Run `function-asya serve` on a loopback port for the duration of a block.

    The server binds a port of its own choosing (port 0) and says which in its log,
    unless a port is given; logs are captured unless `output` (a file) is given,
    which long runs need so that a full pipe never blocks the server. `prefix` runs
    the server under another command (which must exec it).
    """
    if output is not None:
        output.flush()
    process = subprocess.Popen(
        [*prefix, FUNCTION_ASYA, "serve", "--address", f"127.0.0.1:{port or 0}", *args],
        stdout=output or subprocess.PIPE,
        stderr=output or subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    try:
        bound = port or bound_port(process, output)
        served = Served(process, f"127.0.0.1:{bound}")
        wait_until_listening(bound, process)
    except BaseException:
        process.kill()
        process.wait()
        raise
    try:
        yield served
    finally:
        served.stop()


@dataclass(frozen=True)
class Certificates:
    """PEM files for one CA, a server certificate and a client certificate."""

    directory: Path  # holds tls.crt, tls.key, ca.crt for the server
    ca: bytes
    client_cert: bytes
    client_key: bytes


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _certificate(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: tuple[str, ec.EllipticCurvePrivateKey] | None,
    *,
    ca: bool = False,
    server: bool = False,
    names: tuple[str, ...] = (),
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    issuer_name, issuer_key = issuer or (subject, key)
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
        .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer_name)]))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if server:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(
                [
                    *(x509.DNSName(name) for name in ("localhost", *names)),
                    x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                ]
            ),
            critical=False,
        )
    return builder.sign(issuer_key, hashes.SHA256())


def make_certificates(
    directory: Path, ca_name: str = "test-ca", names: tuple[str, ...] = ()
) -> Certificates:
    """Write a CA, a server certificate for 127.0.0.1 (and `names`) and a client certificate."""
    directory.mkdir(parents=True, exist_ok=True)
    ca_key = _key()
    ca_cert = _certificate(ca_name, ca_key, None, ca=True)
    server_key = _key()
    server_cert = _certificate(
        "function-asya", server_key, (ca_name, ca_key), server=True, names=names
    )
    client_key = _key()
    client_cert = _certificate("crossplane", client_key, (ca_name, ca_key))
    pem = serialization.Encoding.PEM
    (directory / "ca.crt").write_bytes(ca_cert.public_bytes(pem))
    (directory / "tls.crt").write_bytes(server_cert.public_bytes(pem))
    (directory / "tls.key").write_bytes(_pem_key(server_key))
    return Certificates(
        directory=directory,
        ca=ca_cert.public_bytes(pem),
        client_cert=client_cert.public_bytes(pem),
        client_key=_pem_key(client_key),
    )


def secure_channel(address: str, ca: bytes, cert: bytes | None, key: bytes | None) -> grpc.Channel:
    """Open a TLS channel that trusts `ca` and presents the given client certificate."""
    credentials = grpc.ssl_channel_credentials(
        root_certificates=ca, private_key=key, certificate_chain=cert
    )
    return grpc.secure_channel(address, credentials)


def yaml_bomb(levels: int = 9) -> str:
    """A few hundred bytes of YAML whose aliases expand to 10**levels strings."""
    lines = ["l0: &l0 [" + ", ".join(["x"] * 10) + "]"]
    for level in range(1, levels):
        lines.append(f"l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * 10) + "]")
    return "\n".join(lines) + "\n"
