"""The gRPC server Crossplane calls: requests in, answers out, kept by content."""
