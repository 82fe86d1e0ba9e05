"""The notebook surface: pandas (and Dask) accessors, the batch pipeline under them, and their settings.

    import dqkit.notebook            # registers df.leads, df.addr and Series.addr (see `accessors`)
    df.leads.verify()                # on the local engine; backend="vendor" or a `dqkit serve` URL for HTTP
    dqkit.notebook.options.cache = False      # no persistent cache for this session (or DQKIT_CACHE=0)

Plots live in `dqkit.plots`, the HTML report in `dqkit.report`.
"""

from dqkit.notebook import accessors as accessors
from dqkit.notebook.cache import ResultCache
from dqkit.notebook.settings import options

__all__ = ["ResultCache", "accessors", "options"]
