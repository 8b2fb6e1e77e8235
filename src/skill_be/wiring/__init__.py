"""What the commands share, so that each module of `commands/` is one command as a short script: the
parts built before the first model call (`assembly`), a benchmarking command's steps (`pipeline`),
the run folder's files (`run_files`), cost and scale (`scale`), agent and trigger setup
(`agent_parts`, `trigger_setup`), the previous version as an arm (`versus`), Ctrl-C (`interrupted`)
and the warnings and Result line every command prints (`common`)."""
