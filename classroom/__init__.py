"""Dev-side: the demo class and the class builder the demo, the tests and the benchmarks share (not installed)."""
