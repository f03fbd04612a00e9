"""Self-play MaskablePPO on Stable-Baselines3 (``trappola train --config
ppo_selfplay``): the config (``config``), the training script
(``ppo_selfplay``), the vector environments (``vec``, ``batched_vec_env``),
callbacks, the privileged critic and league exploiters. The gymnasium
self-play env and the behaviour-cloning warm start, which the RLlib trainer
shares, are ``trappola.train.selfplay``'s."""
