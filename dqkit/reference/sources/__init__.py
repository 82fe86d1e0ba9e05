"""One module per kind of reference input; each turns its rows into OpenAddresses rows (see `common`)."""
