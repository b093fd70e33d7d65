"""The resolved spec made into Kubernetes objects, and the actor's status read from what is observed."""
