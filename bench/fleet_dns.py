"""A name with two loopback addresses, for Crossplane to balance two function replicas.

Crossplane dials a function's endpoint with gRPC's DNS resolver and round-robin
balancing. This machine's /etc/hosts gives `localhost` one address, so the phase names
its replicas in a DNS server of its own on loopback, which gRPC's resolver is pointed
at by the endpoint's authority (`dns://127.0.0.1:PORT/NAME:PORT`). It answers A
queries for one name with the replicas' addresses, and every other question with no
records.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from collections.abc import Iterator

NAME = "function-asya.fleet.test"
TTL = 30
A, IN = 1, 1


def answer(query: bytes, name: str, addresses: tuple[str, ...]) -> bytes:
    """The response to one DNS query: the addresses for A questions about `name`."""
    ident, _, count = struct.unpack("!HHH", query[:6])
    if count != 1:
        return struct.pack("!HHHHHH", ident, 0x8184, 0, 0, 0, 0)  # not implemented
    end, labels = 12, []
    while length := query[end]:
        labels.append(query[end + 1 : end + 1 + length].decode(errors="replace"))
        end += 1 + length
    qtype, qclass = struct.unpack("!HH", query[end + 1 : end + 5])
    question = query[12 : end + 5]
    asked = ".".join(labels).lower().rstrip(".")
    found = addresses if (asked, qtype, qclass) == (name, A, IN) else ()
    records = b"".join(
        struct.pack("!HHHIH", 0xC00C, A, IN, TTL, 4) + socket.inet_aton(address)
        for address in found
    )
    rcode = 0 if asked == name else 3  # NXDOMAIN for other names
    header = struct.pack("!HHHHHH", ident, 0x8180 | rcode, 1, len(found), 0, 0)
    return header + question + records


@contextlib.contextmanager
def serving(addresses: tuple[str, ...], name: str = NAME) -> Iterator[str]:
    """Answer DNS on a loopback UDP port for a block; yield its `host:port`."""
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.bind(("127.0.0.1", 0))
    server.settimeout(0.2)
    stopping = threading.Event()

    def loop() -> None:
        while not stopping.is_set():
            try:
                query, client = server.recvfrom(512)
            except TimeoutError:
                continue
            with contextlib.suppress(IndexError, struct.error, OSError):
                server.sendto(answer(query, name, addresses), client)

    thread = threading.Thread(target=loop, name="fleet-dns", daemon=True)
    thread.start()
    try:
        host, port = server.getsockname()
        yield f"{host}:{port}"
    finally:
        stopping.set()
        thread.join()
        server.close()
