"""The debugging toolbox: run torch's own debugging tools and this toolkit on one example, record what each showed."""
