"""The one error the web app answers with: a message and an HTTP status."""

from __future__ import annotations


class WebError(ValueError):
    """A request the app refuses; answered as ``{"detail": message}`` with
    ``status`` (a 4xx, or 503 when the server is busy)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status
