"""What the search players think with: the double-dummy solver (``solver``),
layouts of the hidden cards consistent with a seat's knowledge
(``sampling``, ``worlds``), readings of the opponent's hand (``belief``, a
learned prior; ``inference``, from its decisions; ``knowledge``, from public
play) and ``rule``'s small exact ``endgame``. The players that use them
(``pimc``, ``policy``, ``rule``) live in ``trappola.agents.players``."""
