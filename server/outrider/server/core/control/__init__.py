"""A person's control of a browser run: the gate its agent passes, takeover and hand-back, the
person's input, and the live screen."""
