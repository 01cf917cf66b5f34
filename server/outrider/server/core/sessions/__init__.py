"""Sessions: a browser (or a research thread) and the memory of its runs, kept between runs by the
replica executing them (see `manager`)."""
