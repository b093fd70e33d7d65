"""The floor: a no-op function as anyone would write it on the SDK's own runtime.

A `FunctionRunnerServiceServicer` whose RunFunction returns `response.to(req)`,
served by `crossplane.function.runtime.serve` (grpc.aio, the SDK's defaults) on an
insecure address, or with mutual TLS for Crossplane core (the fleet-rig phase): what a
function costs before it does anything.
"""

from __future__ import annotations

import argparse

import grpc
from crossplane.function import response, runtime
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1


class NoopRunner(grpcv1.FunctionRunnerServiceServicer):
    """Answers every request with its desired state and context unchanged."""

    async def RunFunction(  # noqa: N802  # gRPC requires this name.
        self, req: fnv1.RunFunctionRequest, context: grpc.aio.ServicerContext
    ) -> fnv1.RunFunctionResponse:
        """Return the desired state unchanged."""
        return response.to(req)


def main() -> None:
    """Serve the no-op on the address given: without TLS, or with mutual TLS from a folder."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", required=True)
    parser.add_argument("--tls-certs-dir", help="tls.crt, tls.key and ca.crt (as Crossplane's)")
    args = parser.parse_args()
    creds = runtime.load_credentials(args.tls_certs_dir) if args.tls_certs_dir else None
    runtime.serve(NoopRunner(), args.address, creds=creds, insecure=creds is None)


if __name__ == "__main__":
    main()
