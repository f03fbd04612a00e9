"""Training with OpenSpiel's own learners on the ``python_trappola`` game
(needs the ``openspiel`` and ``train`` extras): ``policy_gradient``, self-play
with OpenSpiel's PyTorch policy-gradient agents, exported to a file the
``openspiel`` player (``trappola.agents.players.openspiel_policy``) plays."""
