"""The shipped training configs (YAML), package data read by ``trappola.train.run.config_file.resolve_config``."""
