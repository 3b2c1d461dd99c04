"""An HTML preview of the BBCode posts, as a stock phpBB 3.3 board would show them.

``bbcode_to_html(text)`` understands the stock tags the posts use — ``b i u s size color list
* url quote code`` (and ``table tr td``, a board's own table tags) — the way phpBB does: a
tag it does not know, a closing tag that closes nothing, a bad ``url``/``color``/``size``
argument or a tag left open shows as the literal text it is; everything else is HTML-escaped;
bare ``http://`` / ``www.`` links are linked as phpBB's autolink does. The host opens
``out/day-N/preview/*.html`` in a browser to check the posts before pasting them.

Pure: text in, text out.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

_TAG = re.compile(r"\[(/?)(\*|[A-Za-z]+)(?:=(\"[^\"\]\n]*\"|[^\]\n]*))?\]")
_KNOWN = {"b", "i", "u", "s", "size", "color", "list", "*", "url", "quote", "code",
          "table", "tr", "td"}
_COLOR = re.compile(r"^(#[0-9A-Fa-f]{3}|#[0-9A-Fa-f]{6}|[A-Za-z]{3,20})$")
_URL = re.compile(r"^(https?|ftp)://[^\s\"<>]+$|^mailto:[^\s\"<>]+$", re.I)
_AUTOLINK = re.compile(r"(?<![\w/@])((?:https?|ftp)://[^\s\[\]<>\"]+|www\.[^\s\[\]<>\"]+)",
                       re.I)
_CONTAINERS = {"list", "table", "tr"}  # whitespace directly inside them is layout, not text


@dataclass
class _Node:
    name: str                       # "" for the root
    arg: str | None = None
    raw: str = ""                   # the opening tag as written
    children: list = field(default_factory=list)  # str | _Node


def _valid_arg(name: str, arg: str | None) -> bool:
    if name == "size":
        return arg is not None and arg.isdigit() and 1 <= int(arg) <= 200
    if name == "color":
        return arg is not None and bool(_COLOR.match(arg))
    if name == "url":
        return arg is None or bool(_URL.match(arg))
    if name == "list":
        return arg is None or arg in ("1", "a", "A", "i", "I", "disc", "circle", "square")
    if name == "quote":
        return True
    return arg is None


def _parse(text: str) -> _Node:
    root = _Node("")
    stack = [root]
    pos = 0
    while True:
        m = _TAG.search(text, pos)
        if m is None:
            break
        if m.start() > pos:
            stack[-1].children.append(text[pos:m.start()])
        pos = m.end()
        closing, name, arg = m.group(1), m.group(2).lower(), m.group(3)
        if arg is not None and len(arg) >= 2 and arg[0] == arg[-1] == '"':
            arg = arg[1:-1]
        raw = m.group(0)
        if name not in _KNOWN:
            stack[-1].children.append(raw)
            continue
        if not closing:
            if name == "*":
                if stack[-1].name == "*":
                    stack.pop()
                if stack[-1].name != "list" or arg is not None:
                    stack[-1].children.append(raw)
                    continue
            if not _valid_arg(name, arg):
                stack[-1].children.append(raw)
                continue
            node = _Node(name, arg, raw)
            stack[-1].children.append(node)
            if name == "code":  # nothing inside [code] is markup, up to its [/code]
                end = re.compile(r"\[/code\]", re.I).search(text, pos)
                if end is None:
                    node.children.append(text[pos:])
                    node.name = "!unclosed"
                    pos = len(text)
                    break
                node.children.append(text[pos:end.start()])
                pos = end.end()
                continue
            stack.append(node)
            continue
        # a closing tag: it closes the nearest open tag of its name (and what is inside it)
        names = [n.name for n in stack]
        if name == "*" or name not in names[1:]:
            stack[-1].children.append(raw)
            continue
        if name == "list" and stack[-1].name == "*":
            stack.pop()
        while stack[-1].name != name:
            stack.pop().name = "!unclosed"
        stack.pop()
    if pos < len(text):
        stack[-1].children.append(text[pos:])
    for node in stack[1:]:
        if node.name != "*":
            node.name = "!unclosed"
    return root


def _text(s: str, *, autolink: bool) -> str:
    out = []
    last = 0
    if autolink:
        for m in _AUTOLINK.finditer(s):
            out.append(html.escape(s[last:m.start()]))
            url = m.group(1)
            href = url if "://" in url else "http://" + url
            out.append(f'<a href="{html.escape(href)}" class="postlink">{html.escape(url)}</a>')
            last = m.end()
    out.append(html.escape(s[last:]))
    return "".join(out).replace("\n", "<br>\n")


def _render(node: _Node, *, in_link: bool = False) -> str:
    parts = []
    for ch in node.children:
        if isinstance(ch, str):
            if node.name in _CONTAINERS and not ch.strip():
                continue
            parts.append(_text(ch, autolink=not in_link))
        else:
            parts.append(_render_node(ch, in_link=in_link))
    return "".join(parts)


def _render_node(n: _Node, *, in_link: bool) -> str:
    name, arg = n.name, n.arg
    if name == "!unclosed":
        # phpBB shows a tag it could not pair as the text it is
        inner = _render(_Node("", children=n.children), in_link=in_link)
        return html.escape(n.raw) + inner
    if name == "code":
        body = html.escape("".join(c for c in n.children if isinstance(c, str)).strip("\n"))
        return f'<div class="codebox"><p>Code:</p><pre><code>{body}</code></pre></div>'
    if name == "url":
        if arg is None:
            href = "".join(c for c in n.children if isinstance(c, str))
            if not _URL.match(href):
                return html.escape(n.raw) + _render(n, in_link=in_link) + "[/url]"
            return (f'<a href="{html.escape(href)}" class="postlink">'
                    f"{html.escape(href)}</a>")
        return (f'<a href="{html.escape(arg)}" class="postlink">'
                f"{_render(n, in_link=True)}</a>")
    inner = _render(n, in_link=in_link)
    if name == "b":
        return f"<strong>{inner}</strong>"
    if name == "i":
        return f"<em>{inner}</em>"
    if name == "u":
        return f'<span style="text-decoration:underline">{inner}</span>'
    if name == "s":
        return f"<s>{inner}</s>"
    if name == "size":
        return f'<span style="font-size:{int(str(arg))}%;line-height:116%">{inner}</span>'
    if name == "color":
        return f'<span style="color:{html.escape(str(arg))}">{inner}</span>'
    if name == "list":
        if arg in ("1", "a", "A", "i", "I"):
            return f'<ol style="list-style-type:{_OL[arg]}">{inner}</ol>'
        return f"<ul>{inner}</ul>"
    if name == "*":
        return f"<li>{_trim_breaks(inner)}</li>"
    if name == "quote":
        cite = f"<cite>{html.escape(arg)} wrote:</cite>" if arg else ""
        return f"<blockquote><div>{cite}{_trim_breaks(inner)}</div></blockquote>"
    if name == "table":
        return f'<table class="bbtable">{inner}</table>'
    if name == "tr":
        return f"<tr>{inner}</tr>"
    if name == "td":
        return f"<td>{inner}</td>"
    return inner  # pragma: no cover - every known tag is handled above


def _trim_breaks(s: str) -> str:
    """Line breaks at the very start or end of a block are layout, not content."""
    return re.sub(r"^(\s|<br>)+|(\s|<br>)+$", "", s)


_OL = {"1": "decimal", "a": "lower-alpha", "A": "upper-alpha", "i": "lower-roman",
       "I": "upper-roman"}


def bbcode_to_html(text: str) -> str:
    """The HTML phpBB would show for a post's BBCode ``text`` (the post body only)."""
    html_body = _render(_parse(text))
    # phpBB drops the line break right after a block (list, quote, code, table)
    return re.sub(r"(</ul>|</ol>|</blockquote>|</div>|</table>)<br>\n", r"\1\n", html_body)


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


def preview_page(text: str, *, title: str, lang: str = "ru") -> str:
    """A whole HTML page showing one post as the board would."""
    return _PAGE.format(lang=html.escape(lang), title=html.escape(title),
                        body=bbcode_to_html(text))


def preview_files(files: dict[str, str], *, lang: str = "ru") -> dict[str, str]:
    """``preview/<name>.html`` for each post of a day's files (BBCode posts and the private
    messages, which phpBB shows the same way; the host report as plain text)."""
    out: dict[str, str] = {}
    for rel, text in sorted(files.items()):
        if rel.startswith("preview/") or rel.endswith(".json"):
            continue
        name = rel.replace("/", "-").rsplit(".", 1)[0]
        if rel == "host-report.txt":
            body = "[code]" + text.replace("[/code]", "[/co\u200bde]") + "[/code]"
        else:
            body = text
        out[f"preview/{name}.html"] = preview_page(body, title=rel, lang=lang)
    links = "".join(f'<li><a href="{html.escape(k[len("preview/"):])}">'
                    f'{html.escape(k[len("preview/"):-len(".html")])}</a></li>\n'
                    for k in sorted(out))
    out["preview/index.html"] = (
        f'<!DOCTYPE html>\n<html lang="{html.escape(lang)}">\n<head>\n<meta charset="utf-8">\n'
        f"<title>preview</title>\n</head>\n<body>\n<ul>\n{links}</ul>\n</body>\n</html>\n")
    return out
