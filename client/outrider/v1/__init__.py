"""Generated code of the outrider.v1 contract; regenerate with scripts/gen-proto."""
