"""A no-op served by function-asya's own server code: it returns the desired state unchanged.

Beside the SDK's no-op (`bench.sdk_noop`) it shows what our server costs against the SDK's.
"""

from __future__ import annotations

import argparse
import asyncio

from crossplane.function import response
from crossplane.function.proto.v1 import run_function_pb2 as fnv1

from function.codec.response import Answer
from function.serving import server


class NoopRunner:
    """Copies tag, desired state and context into the response, as every function starts."""

    def answer(self, req: fnv1.RunFunctionRequest) -> Answer:
        """Return the desired state unchanged (called by the server on its event loop)."""
        return Answer(response.to(req))


def main() -> None:
    """Serve the no-op function with the same options function-asya serves with."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", required=True)
    args = parser.parse_args()
    # No response cache: the no-op is the floor a call costs without one.
    options = server.Options(address=args.address, insecure=True, cache_mb=0)
    asyncio.run(server.serve(NoopRunner(), options))


if __name__ == "__main__":
    main()
