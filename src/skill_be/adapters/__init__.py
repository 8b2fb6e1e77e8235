"""Adapters: a prompt in, an Answer out. One module per adapter, chosen by name from a registry."""
