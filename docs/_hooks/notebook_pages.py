"""MkDocs hook: each notebook of ``notebooks/`` becomes a page ``notebooks/<name>.md`` of the site.

The page shows the notebook as committed (its Markdown, its code and the outputs it was run with,
figures as PNG files beside the page), so the build needs no kernel, no converter and no network.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

from mkdocs.structure.files import File


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _fence(body: str, lang: str = "") -> str:
    ticks = "````" if "```" in body else "```"
    return f"{ticks}{lang}\n{body.rstrip()}\n{ticks}\n"


def notebook_markdown(nb: dict, stem: str) -> tuple[str, dict[str, bytes]]:
    """The page for the notebook ``nb`` (parsed JSON) and its figures (file name -> PNG bytes)."""
    parts: list[str] = []
    figures: dict[str, bytes] = {}
    for cell in nb.get("cells", []):
        source = _text(cell.get("source", ""))
        if cell.get("cell_type") == "markdown":
            parts.append(source.rstrip() + "\n")
            continue
        if cell.get("cell_type") != "code" or not source.strip():
            continue
        parts.append(_fence(source, "python"))
        printed = ""  # consecutive printed lines make one block
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if out.get("output_type") == "stream":
                printed += _text(out.get("text", ""))
                continue
            if printed:
                parts.append(_fence(printed))
                printed = ""
            if "image/png" in data:
                name = f"{stem}_{len(figures) + 1}.png"
                figures[name] = base64.b64decode(_text(data["image/png"]))
                parts.append(f"![figure {len(figures)}]({name})\n")
            elif "text/plain" in data:
                parts.append(_fence(_text(data["text/plain"])))
            elif out.get("output_type") == "error":
                parts.append(_fence("\n".join(out.get("traceback", []))))
        if printed:
            parts.append(_fence(printed))
    return "\n".join(parts), figures


def on_files(files, config):
    """Add a page and its figures for every notebook."""
    root = Path(config.config_file_path).resolve().parent
    for path in sorted((root / "notebooks").glob("*.ipynb")):
        page, figures = notebook_markdown(json.loads(path.read_text(encoding="utf-8")), path.stem)
        note = f"*This page is `notebooks/{path.name}` as committed, with the outputs of its last run.*\n"
        title, _, rest = page.partition("\n") if page.startswith("# ") else ("", "", page)
        files.append(File.generated(config, f"notebooks/{path.stem}.md", content=f"{title}\n\n{note}\n{rest}"))
        for name, png in figures.items():
            files.append(File.generated(config, f"notebooks/{name}", content=png))
    return files
