"""The rules page that `t42 serve` serves beside the game page (solver/show/web/rules.html),
written from docs/rules/texas42.md and docs/rules/moon.md.

The server serves only the flat files of solver/show/web, not the documentation site,
so the game page links to this copy of the two rules pages. Run it after editing either
page (a test fails while the copy differs)::

    python docs/_gen/rules_page.py

Links between the two pages become links within the one page; links to the rest of the
site, which the server does not serve, become plain text. The page's style is rules.css
beside it (the pages keep their styles in files of their own, none inline).
"""

from __future__ import annotations

import re
from pathlib import Path

import markdown
from markdown.extensions.toc import slugify

ROOT = Path(__file__).resolve().parents[2]
#: The pages, in order: (file, the id of its section, the prefix of its headings' ids).
PAGES = (("texas42.md", "texas42", ""), ("moon.md", "moon", "moon-"))
OUT = ROOT / "solver" / "show" / "web" / "rules.html"

HEAD = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Texas 42 and Moon: the rules</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="common.css">
<link rel="stylesheet" href="rules.css">
</head>
<body>
<header class="bar">
  <h1><span class="logo" aria-hidden="true"></span>Texas 42 <small>the rules</small></h1>
  <nav aria-label="Pages">
    <a href="play.html">Play a game</a>
    <a href="index.html">Double-dummy table</a>
  </nav>
</header>
<main>
<nav aria-label="Contents"><p>The rules as the solver and the game page play them:
<a href="#texas42">42</a> and <a href="#moon">Moon</a>.</p></nav>
"""

FOOT = """</main>
<footer>Written from docs/rules/texas42.md and docs/rules/moon.md of texas42-solver.</footer>
</body>
</html>
"""


def _links(text: str) -> str:
    """Links to the other rules page point into this page; links elsewhere become text."""
    def link(match: re.Match[str]) -> str:
        words, target = match.group(1), match.group(2)
        page, _, anchor = target.partition("#")
        for name, section, prefix in PAGES:
            if page == name:
                return f"[{words}](#{prefix + anchor if anchor else section})"
        return words
    return re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", link, text)


def _page(name: str, section: str, prefix: str) -> str:
    text = _links((ROOT / "docs" / "rules" / name).read_text())
    body = markdown.markdown(text, extensions=["tables", "fenced_code", "toc"], extension_configs={
        "toc": {"baselevel": 2, "slugify": lambda value, sep: prefix + slugify(value, sep)}})
    # A code block wider than a phone scrolls: keyboard users reach it with Tab.
    body = body.replace("<pre>", '<pre tabindex="0">')
    return f'<section id="{section}">\n{body}\n</section>\n'


def rules_html() -> str:
    """The rules page: both rules pages, one after the other."""
    return HEAD + "".join(_page(*page) for page in PAGES) + FOOT


if __name__ == "__main__":
    OUT.write_text(rules_html())
    print(f"wrote {OUT.relative_to(ROOT)}")
