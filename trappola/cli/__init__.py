"""The ``trappola`` command (``trappola.cli.main``), the top layer: it parses
arguments, calls the evaluator, training and players, prints, and exits
with a status (2 for bad input, 130 on Ctrl-C)."""
