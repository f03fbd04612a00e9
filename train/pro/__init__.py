"""Training and comparing the learned Pro decision (the rules document,
section 8) in simulated Bulka sessions.

The Pro policies themselves, as a player uses them at play time, are in
``trappola.agents.pro_learned`` (``LookaheadPro``, shipped; the linear ``ProPolicy``);
the fixed rules of the other players are ``trappola.agents.pro_rules.ProRule``. Here:

* ``bench``: ``SessionBench``, seeded 4-player sessions with the focal
  player's cards played by the trained policy (common random numbers),
  and the forked map over sessions the benches share (``per_seed``,
  ``map_interleaved``);
* ``lookahead``: ``measure_win_rates``, the win rates ``LookaheadPro``
  learns (method ``lookahead``, shipped);
* ``rollouts``: paired-rollout advantages at each Pro offer and their
  least-squares fit (method ``rollouts``);
* ``cem``: the cross-entropy method over ``ProPolicy`` weights (method
  ``cem``, kept for comparison);
* ``compare``: tokens per partie of several Pro rules on the same sessions;
* ``analysis``: where waiting pays (``python -m trappola.train.pro.analysis``;
  ``--tables mixed`` on ``observed``'s held-out tables);
* ``observed``: ``ObservedPro``, the Pro decision from the session records,
  fitted and compared on held-out mixed tables;
* ``__main__``: ``python -m trappola.train.pro``, train one method and compare it
  with never, always and the best fixed threshold.
"""
