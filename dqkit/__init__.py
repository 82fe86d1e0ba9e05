"""dqkit: check the quality of sales leads and US postal addresses, offline or against the vendor services."""

__version__ = "0.1.0"
