"""The ``trappola`` command (``trappola.cli.main``), the top layer: it parses
arguments, calls the evaluator, training and players, prints, and exits
with a status (2 for bad input, 130 on Ctrl-C)."""

import signal  # first: a Ctrl-C during the imports below is caught from here on


def _quiet_interrupt(signum, frame) -> None:
    import os
    import sys

    sys.stderr.write("\ninterrupted\n")
    sys.stderr.flush()
    os._exit(128 + signum)


# A Ctrl-C while the command is still importing ends it with one word, not an import's traceback;
# trappola.cli.main gives SIGINT back to its previous handler once it is imported.
PREVIOUS_SIGINT = signal.getsignal(signal.SIGINT)
if PREVIOUS_SIGINT is signal.default_int_handler:
    try:  # noqa: SIM105 (contextlib is one more import before the handler is set)
        signal.signal(signal.SIGINT, _quiet_interrupt)
    except ValueError:  # imported outside the main thread, where no handler can be set
        pass
