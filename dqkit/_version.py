"""The version of dqkit, in a module of its own so that parts of dqkit can name it without importing the package
(whose `__init__` imports the notebook accessors, which import them: a circle)."""

__version__ = "0.1.0"
