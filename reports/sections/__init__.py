"""Report sections: one module per section, each with ``build(ctx, seed) -> Section``."""
