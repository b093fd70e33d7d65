"""`function-asya render`: a Docker-free `crossplane render` that calls functions over gRPC."""
