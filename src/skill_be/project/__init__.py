"""What the user wrote: config, eval files, skills, code-test layout and fingerprints."""
