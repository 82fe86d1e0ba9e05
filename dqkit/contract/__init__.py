"""The contract layer: typed models, code tables, wire codecs and the exception tree. Imports nothing of dqkit."""
