"""The run engine: prompts, scheduling, grading, scores and the gate. Knows nothing of files or terminals."""
