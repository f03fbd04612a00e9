"""Self-play MaskablePPO on Stable-Baselines3 (``trappola train --config
ppo_selfplay``): the config (``config``), the training script
(``ppo_selfplay``), the vector environments (``vec``, ``batched_vec_env``,
``selfplay_env``), callbacks, the privileged critic, the behaviour-cloning
warm start (``bc``) and league exploiters."""
