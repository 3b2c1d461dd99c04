"""An HTML preview of the BBCode posts, as the stock board would show them.

The body of each page is the one BBCode renderer's (``posts/bbcode.py``, the same function
LocalBoard shows posts with, checked against the real board of the fixtures); this module only wraps it
in a page. The host opens ``out/day-N/preview/*.html`` in a browser to check the posts before
pasting them.

Pure: text in, text out.
"""

from __future__ import annotations

import html
from typing import Mapping

from .bbcode import bbcode_to_html
from .dayfolder import DEPRECATED_DAY_START

__all__ = ["bbcode_to_html", "preview_files", "preview_page"]


_PAGE = """<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
body {{ background: #f5f7fa; font-family: Verdana, Helvetica, Arial, sans-serif; font-size: 10px; margin: 0; padding: 12px; }}
.post {{ background: #ecf3f7; border-radius: 7px; padding: 8px 10px; max-width: 900px; margin: 0 auto; }}
.post h3 {{ font-family: "Trebuchet MS", Arial, sans-serif; font-size: 1.5em; color: #105289; margin: 0 0 6px; }}
.content {{ font-family: "Lucida Grande", "Trebuchet MS", Verdana, sans-serif; font-size: 1.3em; line-height: 1.4em; color: #333; }}
.content ul, .content ol {{ margin: 0.8em 0 0.8em 3em; padding: 0; }}
blockquote {{ background: #ebeadd; border: 1px solid #dbdbce; margin: 0.8em 1px 0.8em 25px; padding: 5px; font-size: 0.95em; }}
blockquote cite {{ font-style: normal; font-weight: bold; display: block; font-size: 0.9em; }}
.codebox {{ background: #fff; border: 1px solid #c9d2d8; margin: 0.8em 0; }}
.codebox p {{ text-transform: uppercase; border-bottom: 1px solid #ccc; margin: 0; padding: 3px; font-size: 0.8em; font-weight: bold; }}
.codebox pre {{ margin: 0; padding: 3px; }}
.codebox code {{ color: #2e8b57; font: 0.9em Monaco, "Andale Mono", "Courier New", Courier, monospace; white-space: pre; }}
a.postlink {{ color: #368ad2; border-bottom: 1px solid #368ad2; text-decoration: none; }}
.bbtable td {{ border: 1px solid #c9d2d8; padding: 2px 6px; vertical-align: top; }}
.bbtable {{ border-collapse: collapse; }}
</style>
</head>
<body>
<div class="post">
<h3>{title}</h3>
<div class="content">{body}</div>
</div>
</body>
</html>
"""


def preview_page(text: str, *, title: str, lang: str = "ru",
                 links: Mapping[str, str] | None = None) -> str:
    """A whole HTML page showing one post as the board would (``links``: the board's own
    addresses, ``bbcode_to_html``'s)."""
    return _PAGE.format(lang=html.escape(lang), title=html.escape(title),
                        body=bbcode_to_html(text, lang=lang, links=links))


def preview_files(files: dict[str, str], *, lang: str = "ru",
                  links: Mapping[str, str] | None = None) -> dict[str, str]:
    """``preview/<name>.html`` for each post of a day's files (BBCode posts and the private
    messages, which the board shows the same way; the host report as plain text)."""
    out: dict[str, str] = {}
    for rel, text in sorted(files.items()):
        if rel.startswith("preview/") or rel.endswith(".json") or rel == DEPRECATED_DAY_START:
            continue      # the day start is previewed under its own name, day-{N+1}-start
        name = rel.replace("/", "-").rsplit(".", 1)[0]
        if rel == "host-report.txt":
            body = "[code]" + text.replace("[/code]", "[/co\u200bde]") + "[/code]"
        else:
            body = text
        out[f"preview/{name}.html"] = preview_page(body, title=rel, lang=lang, links=links)
    index = "".join(f'<li><a href="{html.escape(k[len("preview/"):])}">'
                    f'{html.escape(k[len("preview/"):-len(".html")])}</a></li>\n'
                    for k in sorted(out))
    out["preview/index.html"] = (
        f'<!DOCTYPE html>\n<html lang="{html.escape(lang)}">\n<head>\n<meta charset="utf-8">\n'
        f"<title>preview</title>\n</head>\n<body>\n<ul>\n{index}</ul>\n</body>\n</html>\n")
    return out
