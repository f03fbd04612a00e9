"""The shipped training configs (YAML), package data read by ``train.config.resolve_config``."""
