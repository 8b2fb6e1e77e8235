"""Code tests: output contracts, package lists, the Node harness and the sandboxes that run it."""
