"""The resolved spec made into Kubernetes objects: one renderer per resource, one seam per transport."""
