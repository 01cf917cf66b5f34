"""Interactions: the questions a run asks its caller (form data, approvals, takeovers), answers to
them from any replica, and one-time answer links."""
