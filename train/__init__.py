"""Self-play MaskablePPO training for Trappola (issue 5).

* ``config``: every setting (``TrainConfig``), YAML + command-line overrides.
* ``selfplay_env``: the single-agent wrapper with the opponent pool.
* ``ppo_selfplay``: the training script (``train``, ``cli_main``).
* ``bc``: behaviour cloning warm start on a teacher's moves.
* ``checkpoint``: save/load with metadata and validation.
* ``numpy_policy``: the actor in numpy (fast play, pool snapshots).
* ``pro``: the learned Pro decision for Bulka sessions.
* ``demo``: ``make demo``'s short training run and session table.
"""
