"""Status: what the actor's composed resources say, read into its phase, conditions and reasons."""
