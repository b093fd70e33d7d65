"""An actor's spec resolved: its flavors fetched and merged with its own spec, by the merge rules."""
