"""One module per command; `cli` imports a command's module only when it runs."""
