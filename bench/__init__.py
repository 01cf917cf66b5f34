"""On-demand benchmarks; not part of the test suite. Run from the repo root, e.g.
`.venv/bin/python -m bench.bench_stream`."""
