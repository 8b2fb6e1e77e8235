"""Reports: pure functions from results to text."""
