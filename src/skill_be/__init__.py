"""skill-be: measures whether an Agent Skill makes a model better, and gates its release."""

__version__ = "1.0.0"
