"""Trappola in the browser: ``trappola serve`` starts a local web app with
four views.

- Play: a person against any registered computer player (``rule``,
  ``pimc:samples=16``, ``policy`` ...), one partie or a Bulka session
  (``play``).
- Replay: a file saved by ``trappola evaluate ... --save-games DIR``
  (``trappola.agents.evaluation.game_record``), stepped through with every hand and the
  stock open, the declarations and Manko answers, the scores and tokens,
  and the card values a ``pimc`` player reported (``replay``).
- Leaderboard: a summary written by ``trappola evaluate --json``, as a
  table with 95% confidence intervals (``leaderboard``), each pair linked
  to the games of its own run (``runs``).
- Rules: docs/rules.md with a legend of the card names (``rules_page``).

``app.create_app()`` is the app (FastAPI, its API documented there);
``serve(host, port)`` runs it with uvicorn. The page is plain HTML, CSS
and JavaScript modules in ``static/`` (``main.js`` routes the address to
``play.js``, ``replay.js`` and ``leaderboard.js``; ``util.js`` is shared),
with no build step.

The server runs on the user's machine, so it trusts no request: ``guard``
admits only this machine's host names and the page's own origin,
``opponents`` offers bounded players and never opens a file a request
names, ``thinking`` runs them on a bounded pool that stops with their
table, and ``body`` reads uploads within their limit. Every answer forbids
framing and inline script (``guard.SECURITY_HEADERS``).
"""

from __future__ import annotations

#: Bind addresses meaning "every interface": they name no host a browser uses.
_ANY = ("0.0.0.0", "::", "")


def serve(host: str = "127.0.0.1", port: int = 8000, hosts=()) -> None:
    """Run the app until interrupted (bound to this machine by default). It
    answers to this machine's names, ``host`` and ``hosts`` (``guard``)."""
    import uvicorn

    from trappola.web.app import create_app

    names = list(hosts) + ([] if host in _ANY else [host])
    shown = "127.0.0.1" if host in _ANY else (f"[{host}]" if ":" in host else host)
    print(f"Trappola lab: open http://{shown}:{port}/ (Ctrl-C to stop)")
    if host in _ANY and not hosts:
        print(
            "  bound to every interface, but it answers only to this machine's names; "
            "add --allow-host NAME for each name other machines use"
        )
    uvicorn.run(create_app(hosts=names), host=host, port=port, log_level="warning")


__all__ = ["serve"]
