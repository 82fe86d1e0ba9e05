"""The local lead verification engine (seed 000): rules in their own modules, ordered by `engine`."""
