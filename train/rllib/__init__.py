"""The same self-play on RLlib (Ray, new API stack), written to the lab's
checkpoints (``trappola train --config rllib_selfplay``): the config
(``config``), the multi-agent environments (``env``), the network
(``module``), the training script (``selfplay``) and the export to the
checkpoint format (``export``); ``address`` checks a cluster's address before Ray waits for it."""
