"""The shipped training configs (YAML), package data read by ``trappola.train.config.resolve_config``."""
