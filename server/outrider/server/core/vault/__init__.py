"""The vault: state that outlives a run and must not be read by whoever reads the store. Profiles
(saved browser state) and credentials (write-only secrets bound to origins), each sealed under a
data key of its own that the operator's master key wraps (envelope encryption)."""
