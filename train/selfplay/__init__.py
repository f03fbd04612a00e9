"""One self-play core under every training adapter.

* ``reward``: the reward modes, their check and scales, ``scale_reward``;
* ``alifer``: the value of an Alifer (a replay), running or batch mean;
* ``pool``: the opponent pool (snapshots, exploiters, registered players);
* ``forced``: the forced moves every adapter plays for the agent;
* ``opponent_workers``: a pool's per-game players in worker processes;
* ``env``: the single-agent gymnasium self-play env (``SelfPlayEnv``);
* ``single_agent``: the public env for your own loop (``OpponentPoolEnv``: a fixed
  opponent pool, win reward, stable defaults);
* ``bc``: behaviour cloning, the warm start both trainers and the fits call.

The adapters: ``trappola.train.sb3.batched_vec_env`` (the SB3 VecEnv),
``env`` (the gymnasium env), ``trappola.train.rllib.env`` (RLlib) and
``bc`` (behaviour cloning's returns). The package imports nothing itself, so that the
configs can read the reward modes without loading the players.
"""
