"""The gate: what a resolved actor may not ask for, refused before anything is rendered."""
