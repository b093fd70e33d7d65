"""function-asya: a Crossplane composition function for Asya AsyncActors."""
