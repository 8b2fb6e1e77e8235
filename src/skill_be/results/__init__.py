"""The run directory, summary.json and the result file."""
