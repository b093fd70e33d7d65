"""The files written from a source of truth in the code: CRDs from the models, docs tables from rules."""
