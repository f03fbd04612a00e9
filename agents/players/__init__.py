"""One module per player, each a subclass of ``trappola.agents.base.Player``
registered by name in ``trappola.agents.REGISTRY``: ``random``, ``rule``,
``human``, ``pimc``, ``tree_search`` (``vecpimc``, ``alphamu``), ``infopimc``,
``cfrdecl``, ``policy``, ``openspiel_bots`` (``ismcts``) and
``openspiel_policy`` (``openspiel``). What the search players think with is
``trappola.agents.search``."""
