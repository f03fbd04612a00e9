"""Self-play MaskablePPO training for Trappola.

* ``run_config``: ``RunConfig``, the settings both trainers share, each
  field with its help and checks; ``sb3.config`` (``TrainConfig``) and
  ``rllib.config`` (``RLlibConfig``) derive from it.
* ``config_file``: a config from YAML + command-line overrides.
* ``train_command``: ``trappola train`` for both trainers.
* ``run_recorder``: evaluation, ``best.zip``, checkpoints, ``summary.json``
  and TensorBoard scalars of a run, for both trainers; ``run_log``: the run
  folder, its ``config.yaml`` and ``train.log``.
* ``selfplay``: the self-play core (reward shaping, the Alifer value, the
  opponent pool, forced moves, opponent worker processes) under every adapter.
* ``sb3``: the Stable-Baselines3 trainer (its config, script, vector
  environments, callbacks, behaviour cloning, exploiters).
* ``rllib``: the same self-play on RLlib (Ray), written to the same checkpoints.
* ``fit``: offline fits (belief, opponent model, distillation), ``python -m`` each.
* ``pro``: training the Pro decision for Bulka sessions.
* ``openspiel``: an OpenSpiel learner (policy gradient, PyTorch) on ``python_trappola``.
* ``run_interrupt``: Ctrl-C saves a run (both trainers); ``devices``: ``device=auto|cpu|cuda``.
* ``networks``: the activations a network may use; ``choices``: the check of a named choice.
* ``model_checkpoint``: writing and exporting checkpoints (reading them is
  ``trappola.agents.model_io.checkpoint_format``).
* ``exploit``: a best response to a frozen player (``trappola exploit``).
* ``demo``: ``make demo``'s short training run and session table.

Players read what training writes through ``trappola.agents`` (the numpy actor, the
checkpoint reader, the learned Pro policies); nothing below imports ``train``.
"""
