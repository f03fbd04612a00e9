"""Self-play MaskablePPO training for Trappola.

* ``run_config``: ``RunConfig``, the settings both trainers share, each
  field with its help and checks; ``sb3_config`` (``TrainConfig``) and
  ``rllib_config`` (``RLlibConfig``) derive from it.
* ``config_file``: a config from YAML + command-line overrides.
* ``train_command``: ``trappola train`` for both trainers.
* ``run_recorder``: evaluation, ``best.zip``, checkpoints, ``summary.json``
  and TensorBoard scalars of a run, for both trainers.
* ``selfplay``: the self-play core (reward shaping, the Alifer value, the
  opponent pool, forced moves, opponent worker processes) under every adapter.
* ``selfplay_env``: the single-agent gymnasium adapter.
* ``batched_vec_env``: the default vector environment, all games in one
  process on the batched engine (``trappola.envs.batch``).
* ``networks``: the activations a network may use; ``choices``: the check of a named choice.
* ``vec``: ``make_vec_env``, the batched one or the process-pool one
  (``vec_env: subproc``).
* ``privileged_policy``: the policy whose critic also reads the whole deal
  (``privileged_critic``).
* ``run_log``: the run folder, its ``config.yaml`` and ``train.log``.
* ``ppo_selfplay``: the training script (``train``).
* ``bc``: behaviour cloning warm start on a teacher's moves.
* ``callbacks``: snapshots, the recorder's step and the time cap during a run.
* ``model_checkpoint``: writing and exporting checkpoints (reading them is ``trappola.agents.checkpoint_format``).
* ``pro``: training the Pro decision for Bulka sessions.
* ``demo``: ``make demo``'s short training run and session table.
* ``belief_fit``, ``opponent_model``, ``distill``: the belief model, the opponent model
  for inference and the search distilled into the network (``python -m`` each).
* ``exploit``, ``exploiters``: best responses to a frozen player (``trappola exploit``)
  and league exploiters.
* ``rllib_env``, ``rllib_module``, ``rllib_selfplay``,
  ``rllib_export``: the same self-play on RLlib (Ray), written to the same
  checkpoints (``trappola train --config rllib_selfplay``).

Players read what training writes through ``agents`` (the numpy actor, the
checkpoint reader, the learned Pro policies); nothing below imports ``train``.
"""
