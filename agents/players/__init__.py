"""One module per player, each a subclass of ``trappola.agents.base.Player``
that declares its own registry row (``kind``, ``HELP``, ``SETTINGS``,
``ENDGAME``, ``WEB``): ``random``, ``rule``, ``human``, ``pimc``,
``tree_search`` (``vecpimc``, ``alphamu``), ``infopimc``, ``cfrdecl``, ``policy``,
``openspiel_bots`` (``ismcts``) and ``openspiel_policy`` (``openspiel``).
What the search players think with is ``trappola.agents.search``."""

#: The modules ``trappola.agents.registry`` searches for players, in the order
#: ``trappola players`` lists them; a module named like its player is imported
#: alone when that player is asked for.
MODULES = (
    "random",
    "rule",
    "human",
    "pimc",
    "tree_search",
    "infopimc",
    "cfrdecl",
    "policy",
    "openspiel_bots",
    "openspiel_policy",
)
