"""The opponents the web table offers: registered players with bounded
settings, and never a file path.

A page may ask for any spec the registry parses (``agents.parse_spec``),
but the server runs it, so the web accepts only the players and settings
listed in ``WEB_SETTINGS`` (derived from the ``WEB`` row each player class
declares): numbers within bounds that keep one decision
to a fraction of a second (so a closed table's last decision ends soon),
choices from their lists, and the learned models by name
(``belief=default``), never a path. Anything else is refused before the
player is built, so no file is ever opened for a request, and no message
names a file of the server.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from trappola.agents import make_player, parse_spec, player_class, registry
from trappola.agents.settings import WebBound
from trappola.web.errors import WebError

#: Longest spec accepted (the longest useful one is far shorter).
MAX_SPEC = 200


class _WebSettings(Mapping[str, Mapping[str, WebBound]]):
    """player -> {setting: None (its own choices or bool), (low, high) for a
    number, or a tuple of the strings allowed}: the ``WEB`` rows the player
    classes declare (``trappola.agents.registry.web_rows``), read when first used."""

    def __getitem__(self, name: str) -> Mapping[str, WebBound]:
        web = registry.web_rows()[name].web
        assert web is not None  # web_rows holds only rows with one
        return web

    def __iter__(self) -> Iterator[str]:
        return iter(registry.web_rows())

    def __len__(self) -> int:
        return len(registry.web_rows())


WEB_SETTINGS = _WebSettings()


def check_web_spec(spec) -> str:
    """``spec`` stripped, if the web table may build it; else ``WebError``
    saying what is allowed (the registry's own checks come on top)."""
    if not isinstance(spec, str):
        raise WebError(f"opponent must be a player spec like 'rule' or 'pimc:samples=16', got {type(spec).__name__}")
    if len(spec) > MAX_SPEC:
        raise WebError(f"the player spec is longer than {MAX_SPEC} characters")
    try:
        name, bare, settings = parse_spec(spec)
    except ValueError as e:
        raise WebError(str(e)) from None
    allowed = WEB_SETTINGS.get(name)
    if allowed is None:
        raise WebError(f"unknown player {name!r} for the web table; available: {', '.join(WEB_SETTINGS)}")
    if bare:
        raise WebError(
            f"player {name!r}: the web table takes key=value settings only "
            "(it opens no files: a checkpoint is played with trappola play or evaluate)"
        )
    cls = player_class(name)
    for key, text in settings.items():
        if key not in allowed:
            raise WebError(
                f"setting {key!r} of {name!r} is not offered in the web table; it takes: {', '.join(allowed)}"
            )
        bound = allowed[key]
        try:
            value = cls.SETTINGS[key].convert(key, text)
        except ValueError as e:
            raise WebError(f"player spec {spec!r}: {e}") from None
        if isinstance(bound, tuple) and isinstance(bound[0], str):
            if value not in bound:
                raise WebError(
                    f"setting {key}: the web table takes "
                    f"{' or '.join(repr(b) for b in bound)} (a model by name, never a path)"
                )
        elif bound is not None and not bound[0] <= value <= bound[1]:
            raise WebError(f"setting {key}={text}: the web table takes {bound[0]} to {bound[1]}")
    return spec.strip()


def web_player(spec):
    """The player a web table plays against, built from a checked spec;
    ``WebError`` for a refused spec or a player that cannot be built here
    (a missing optional dependency)."""
    spec = check_web_spec(spec)
    try:
        return make_player(spec)
    except ValueError as e:
        raise WebError(f"player spec {spec!r}: {e}") from None
