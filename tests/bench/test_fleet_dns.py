"""The fleet-rig's DNS server: a name's A records are its replicas' addresses."""

from __future__ import annotations

import socket
import struct

from bench import fleet_dns


def query(name: str, qtype: int = fleet_dns.A, ident: int = 0x1234) -> bytes:
    labels = b"".join(bytes([len(part)]) + part.encode() for part in name.split("."))
    return (
        struct.pack("!HHHHHH", ident, 0x0100, 1, 0, 0, 0)
        + labels
        + b"\0"
        + struct.pack("!HH", qtype, 1)
    )


def records(response: bytes, asked: bytes) -> tuple[int, int, list[str]]:
    ident, flags, _, count = struct.unpack("!HHHH", response[:8])
    rest = response[len(asked) :]
    addresses = []
    for _ in range(count):
        _, kind, _, _, length = struct.unpack("!HHHIH", rest[:12])
        assert (kind, length) == (fleet_dns.A, 4)
        addresses.append(socket.inet_ntoa(rest[12:16]))
        rest = rest[16:]
    return ident, flags & 0xF, addresses


def test_the_name_resolves_to_every_replica_over_udp() -> None:
    hosts = ("127.0.0.1", "127.0.0.2")
    asked = query(fleet_dns.NAME.upper())  # names are matched without case
    with (
        fleet_dns.serving(hosts) as server,
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client,
    ):
        host, port = server.split(":")
        client.settimeout(5)
        client.sendto(asked, (host, int(port)))
        response = client.recv(512)
    assert records(response, asked) == (0x1234, 0, list(hosts))


def test_other_questions_have_no_records() -> None:
    aaaa = query(fleet_dns.NAME, qtype=28)
    assert records(fleet_dns.answer(aaaa, fleet_dns.NAME, ("127.0.0.1",)), aaaa) == (0x1234, 0, [])
    other = query("_grpc_config." + fleet_dns.NAME, qtype=16)
    assert records(fleet_dns.answer(other, fleet_dns.NAME, ("127.0.0.1",)), other)[1:] == (3, [])
