"""The console: web pages for the people in the loop (watch runs live, answer their questions,
cancel or delete them), served at /console on the REST port. An edge of its own over the core;
it signs people in with the same principals (security/) and never imports another edge."""
