"""Offline fits the players read at play time, each run once with
``python -m``: the belief model (``belief_fit``), the opponent model for
inference (``opponent_model``) and the search distilled into the network
(``distill``)."""
