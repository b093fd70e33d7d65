"""An actor's spec resolved: its flavors fetched, merged with its own spec, and validated."""
