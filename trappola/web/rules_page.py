"""The rules panel of the page (``static/rules.html``), built from
docs/rules.md, the rules in the project's words.

The page is served as a file of the package (a request never names a file),
so the panel is built here from the Markdown, not read at run time:
``python -m trappola.web.rules_page`` rewrites it after docs/rules.md
changes, and a test checks that the two agree. The converter knows the
Markdown that file uses: headings, paragraphs, lists (nested by two
spaces), tables, ``code``, **bold** and *emphasis*.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from trappola_env.atomic_file import atomic_write

RULES_MD = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
RULES_HTML = Path(__file__).parent / "static" / "rules.html"

_LIST = re.compile(r"^( *)(?:[-*]|(\d+)\.) (.*)$")
_ROW_RULE = re.compile(r"^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$")


def inline(text: str) -> str:
    """One line of Markdown text as HTML: escaped, with code, bold and emphasis."""
    parts = re.split(r"(`[^`]*`)", text)
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
            continue
        part = html.escape(part, quote=False)
        part = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", part)
        part = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", part)
        out.append(part)
    return "".join(out)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _anchor(title: str) -> str:
    return "rules-" + re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def markdown_html(text: str) -> str:
    """The HTML of docs/rules.md (see the module docstring)."""
    lines = text.splitlines()
    out: list[str] = []
    para: list[str] = []
    lists: list[tuple[int, str]] = []  # open lists: (indent, tag)

    def flush_para():
        if para:
            out.append(f"<p>{inline(' '.join(para))}</p>")
            para.clear()

    def close_lists(to_indent: int = -1):
        while lists and lists[-1][0] > to_indent:
            out.append(f"</li></{lists.pop()[1]}>")

    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        m = _LIST.match(line)
        if not stripped:
            flush_para()
            i += 1
            continue
        if stripped.startswith("#"):
            flush_para()
            close_lists()
            level = len(stripped) - len(stripped.lstrip("#"))
            title = stripped[level:].strip()
            tag = f"h{min(level + 1, 6)}"  # the page has its own h1
            out.append(f'<{tag} id="{_anchor(title)}">{inline(title)}</{tag}>')
        elif stripped.startswith("|") and i + 1 < len(lines) and _ROW_RULE.match(lines[i + 1].strip()):
            flush_para()
            close_lists()
            head = "".join(f'<th scope="col">{inline(c)}</th>' for c in _cells(stripped))
            rows = []
            i += 2
            while i < len(lines) and lines[i].strip().startswith("|"):
                rows.append("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in _cells(lines[i])) + "</tr>")
                i += 1
            out.append(f'<div class="rules-table"><table><tr>{head}</tr>{"".join(rows)}</table></div>')
            continue
        elif m:
            flush_para()
            indent, tag = len(m.group(1)), "ol" if m.group(2) else "ul"
            if lists and lists[-1][0] >= indent:
                close_lists(indent)
                if lists and lists[-1][0] == indent:
                    out.append("</li>")
            if not lists or lists[-1][0] < indent:
                out.append(f"<{tag}>")
                lists.append((indent, tag))
            item = [m.group(3)]
            while (
                i + 1 < len(lines)
                and lines[i + 1].startswith(" ")
                and lines[i + 1].strip()
                and not _LIST.match(lines[i + 1])
            ):
                i += 1
                item.append(lines[i].strip())
            out.append(f"<li>{inline(' '.join(item))}")
        elif lists and line.startswith(" "):
            out[-1] += " " + inline(stripped)
        else:
            close_lists()
            para.append(stripped)
        i += 1
    flush_para()
    close_lists()
    return "\n".join(out) + "\n"


def build(source: Path = RULES_MD) -> str:
    """The rules panel's HTML from ``source``."""
    return "<!-- Built from docs/rules.md by python -m trappola.web.rules_page; do not edit. -->\n" + markdown_html(
        source.read_text(encoding="utf-8")
    )


def main() -> None:
    """Rewrite ``static/rules.html`` from docs/rules.md."""
    with atomic_write(RULES_HTML, "w") as f:
        f.write(build())
    print(f"wrote {RULES_HTML.name}")


if __name__ == "__main__":
    main()
