"""Trappola in the browser: ``trappola serve`` starts a local web app with
three views.

- Play: a person against any registered computer player (``rule``,
  ``pimc:samples=16``, ``policy`` ...), one partie or a Bulka session
  (``play``).
- Replay: a file saved by ``trappola evaluate ... --save-games DIR``
  (``evaluation.game_record``), stepped through with every hand and the
  stock open, the declarations and Manko answers, the scores and tokens,
  and the card values a ``pimc`` player reported (``replay``).
- Leaderboard: a summary written by ``trappola evaluate --json``, as a
  table with 95% confidence intervals (``leaderboard``).

``app.create_app()`` is the app (FastAPI, its API documented there);
``serve(host, port)`` runs it with uvicorn. The page is plain HTML, CSS
and JavaScript in ``static/``, with no build step.
"""
from __future__ import annotations


def serve(host: str = "127.0.0.1", port: int = 8000) -> None:
    """Run the app until interrupted (bound to this machine by default)."""
    import uvicorn

    from .app import create_app

    print(f"Trappola lab: open http://{host}:{port}/ (Ctrl-C to stop)")
    uvicorn.run(create_app(), host=host, port=port, log_level="warning")


__all__ = ["serve"]
