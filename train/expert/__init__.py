"""Expert iteration: a search plays the expert, the network learns from it.

* ``config``: ``ExpertConfig``, the settings of a run (``configs/expert_iteration.yaml``).
* ``games``: self-play games of the network, each decision labelled by the search.
* ``networks``: the networks trained (today's MLP in the checkpoint's layout; a history reader).
* ``iteration``: the algorithm, read top to bottom (``trappola train --config expert_iteration``).
"""
