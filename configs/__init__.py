"""The shipped training configs (YAML), package data read by ``trappola.train.config_file.resolve_config``."""
