"""Self-play MaskablePPO training for Trappola.

* ``run``: a run's bookkeeping, the same for both trainers: ``run.config``
  (``RunConfig``, the settings both trainers share, each field with its help
  and checks; ``sb3.config`` ``TrainConfig`` and ``rllib.config``
  ``RLlibConfig`` derive from it), ``run.config_file`` (a config from YAML +
  command-line overrides), ``run.log`` (the run folder, its ``config.yaml``
  and ``train.log``), ``run.recorder`` (evaluation, ``best.zip``,
  checkpoints, ``summary.json`` and TensorBoard scalars), ``run.scalars``
  (``progress.csv`` and TensorBoard, kept across a resume), ``run.resume``
  (a resume continues its run's settings; what changes is said), ``run.interrupt``
  (Ctrl-C, SIGTERM and SIGHUP save a run) and ``run.checkpoint`` (writing and exporting
  checkpoints; reading them is ``trappola.agents.model_io.checkpoint_format``).
* ``train_command``: ``trappola train`` for both trainers.
* ``selfplay``: the self-play core (reward shaping, the Alifer value, the
  opponent pool, forced moves, opponent worker processes, the gymnasium
  self-play env, behaviour cloning) under every adapter.
* ``sb3``: the Stable-Baselines3 trainer (its config, script, vector
  environments, callbacks, exploiters).
* ``rllib``: the same self-play on RLlib (Ray), written to the same checkpoints.
* ``fit``: offline fits (belief, opponent model, distillation), ``python -m`` each.
* ``pro``: training the Pro decision for Bulka sessions.
* ``openspiel``: an OpenSpiel learner (policy gradient, PyTorch) on ``python_trappola``.
* ``devices``: ``device=auto|cpu|cuda``.
* ``networks``: the activations a network may use; ``choices``: the check of a named choice.
* ``exploit``: a best response to a frozen player (``trappola exploit``).
* ``demo``: ``make demo``'s short training run and session table.

Players read what training writes through ``trappola.agents`` (the numpy actor, the
checkpoint reader, the learned Pro policies); nothing below imports ``train``.
"""
