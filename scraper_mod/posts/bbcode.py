"""The one BBCode -> HTML renderer: a post body as phpBB 3.3.15 (prosilver, s9e text formatter)
shows it. The --preview pages, the host's web page and LocalBoard all use it.

Checked byte for byte against a real phpBB 3.3.15: fixtures/phpbb/bbcode-3.3.15 (every tag the
posts use, their edge cases and whole rendered days; tests/posts/test_bbcode.py) and the real topic of
fixtures/phpbb/phpbb-3.3.15 (tests/demo/test_localboard.py). What the real board does, and so this:

- stock tags ``b i u size color url list * quote code``; bare ``http://``, ``www.`` links and
  e-mail addresses are linked; the default smilies become images;
- text is escaped for ``& < >`` (quotes stay), a line break is ``<br>`` and a newline;
- a tag left open is closed at the end of the post or by the end tag of a tag around it; a
  closing tag that closes nothing, a start tag with a bad argument and an unknown tag stay text;
- block tags (``list * quote code`` and the custom ``spoiler``/``table``) ignore the whitespace
  around them as s9e does: before a tag, trailing blanks up to one line break; after a start tag
  one line break, after an end tag two, are kept as bare newlines, not ``<br>``; an
  implicitly closed block ends before the whitespace at its end.

Custom BBCodes are a board's own: ``spoiler`` (the one the board of fixtures/phpbb/phpbb-3.3.15
has) and ``table``/``tr``/``td`` (the newspaper's table layout, only written when the game says
the board has such a tag; its HTML is not phpBB's and not captured) are rendered only when asked.

Pure: text in, text out.
"""

from __future__ import annotations

import functools
import html
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable, Iterable, Union

# phpBB 3.3.15's words that appear inside a rendered post (en, and the official ru pack as seen
# on the real pages of fixtures/phpbb/phpbb-3.3.15)
BBCODE_STRINGS: dict[str, dict[str, str]] = {
    "ru": {"wrote": "писал(а)", "view_quoted": "Просмотреть процитированное сообщение",
           "spoiler": "Спойлер", "code": "Код", "select_all": "Выделить всё"},
    "en": {"wrote": "wrote", "view_quoted": "View quoted post", "spoiler": "Spoiler",
           "code": "Code", "select_all": "Select all"},
}

STOCK_TAGS = frozenset({"b", "i", "u", "size", "color", "url", "list", "*", "quote", "code"})
CUSTOM_TAGS = {"spoiler": ("spoiler",), "table": ("table", "tr", "td")}
_BLOCK = frozenset({"list", "*", "quote", "code", "spoiler", "table", "tr", "td"})

_COLOR_RE = re.compile(r"^(#[0-9A-Fa-f]{6}|#[0-9A-Fa-f]{3}|[A-Za-z]{3,20})$")
_URL_RE = re.compile(r"^(?:(?:https?|ftp)://[^\s\"<>]+|mailto:[^\s\"<>]+)$", re.I)
_ATTR_RE = re.compile(r'([a-z_]+)=("([^"]*)"|[^\s"]+)')
_LIST_TYPES = {"1": "decimal", "a": "lower-alpha", "A": "upper-alpha", "i": "lower-roman",
               "I": "upper-roman"}
_OL_TYPES = frozenset({"decimal", "lower-alpha", "upper-alpha", "lower-roman", "upper-roman",
                       "lower-greek", "decimal-leading-zero"})
_SIMPLETEXT = re.compile(r"^[-a-zA-Z0-9+.,_ ]+$")
_AUTOLINK = re.compile(
    r"(?<![\w/@])(?:(?:https?|ftp)://|www\.)[^\s()\[\]<>\"]+"
    r"|(?<![-\w+.])[-a-z0-9_+.]+@[-a-z0-9.]*[a-z0-9]", re.I)
_TRAILING = ".,;:!?'\""

# phpBB's default smilies (a few): code -> (image, width, height, title)
_SMILIES = {
    ":D": ("icon_e_biggrin.gif", 15, 17, "Very Happy"),
    ":)": ("icon_e_smile.gif", 15, 17, "Smile"),
    ";)": ("icon_e_wink.gif", 15, 17, "Wink"),
    ":(": ("icon_e_sad.gif", 15, 17, "Sad"),
    ":P": ("icon_razz.gif", 15, 15, "Razz"),
    ":?": ("icon_e_confused.gif", 15, 17, "Confused"),
}
_SMILEY_RE = re.compile(r"(?<![^\s>])(" + "|".join(re.escape(k) for k in _SMILIES)
                        + r")(?=\s|$|<)")


def inert(text: str) -> str:
    """A player's text made inert for a post or a PM that the board parses as BBCode: every
    «[» and «]» becomes its full-width look-alike («［», «］»), so ``[img]``, ``[url]`` or a
    closing ``[/code]`` are shown as written and never act (issue 40: an alert showed a
    player's ``[img]`` live in the host's inbox and leaked his address)."""
    return text.replace("[", "\uff3b").replace("]", "\uff3d")


def esc(text: str) -> str:
    """HTML-escape ``text`` for an attribute value (quotes too)."""
    return html.escape(text, quote=True)


def esc_text(text: str) -> str:
    """HTML-escape text as s9e does between tags: ``& < >`` only."""
    return html.escape(text, quote=False)


def _smilies(html_text: str) -> str:
    def img(m: re.Match) -> str:
        file, w, h, title = _SMILIES[m.group(1)]
        return (f'<img class="smilies" src="./images/smilies/{file}" width="{w}" height="{h}" '
                f'alt="{m.group(1)}" title="{title}">')
    return _SMILEY_RE.sub(img, html_text)


def _autolink(text: str) -> str:
    """Escaped ``text`` with its bare links and e-mail addresses linked as phpBB does."""
    out, last = [], 0
    for m in _AUTOLINK.finditer(text):
        url = m.group(0).rstrip(_TRAILING)
        if not url or url.endswith(("://", "@")):
            continue
        out.append(_smilies(esc_text(text[last:m.start()])))
        if "@" in url and "://" not in url and not url.lower().startswith("www."):
            out.append(f'<a href="mailto:{esc(url)}">{esc_text(url)}</a>')
        else:
            href = url if "://" in url else "http://" + url
            out.append(f'<a href="{esc(href)}" class="postlink">{esc_text(url)}</a>')
        last = m.start() + len(url)
    out.append(_smilies(esc_text(text[last:])))
    return "".join(out)


@dataclass
class _Raw:
    """Whitespace s9e ignores around a block tag: shown as it is, no ``<br>``."""
    text: str


@dataclass
class _Node:
    tag: str                        # "" for the root
    arg: str = ""
    raw: str = ""                   # the opening tag as written
    children: list[Union[str, _Raw, "_Node"]] = field(default_factory=list)


@functools.lru_cache(maxsize=8)
def _tag_re(tags: frozenset[str]) -> re.Pattern[str]:
    names = "|".join(re.escape(t) for t in sorted(tags, key=len, reverse=True))
    return re.compile(r"\[(/?)(" + names + r")((?:=|\s)[^\[\]]*)?\]", re.IGNORECASE)


def _valid(tag: str, arg: str) -> bool:
    value = arg[1:].strip() if arg.startswith("=") else arg.strip()
    if tag == "color":
        return bool(_COLOR_RE.match(value))
    if tag == "size":
        return value.isdigit() and 1 <= int(value) <= 200
    if tag == "url":
        return not value or bool(_URL_RE.match(value.strip('"')))
    if tag == "list":
        return not value or value in _LIST_TYPES or bool(_SIMPLETEXT.match(value))
    if tag in ("quote", "spoiler"):
        return True
    return not value


class _Parser:
    """s9e's handling of tags and whitespace, on a tree: ``pos`` is how far the text is out,
    ``ws_pos`` how far it may go out as bare whitespace (after a block tag)."""

    def __init__(self, src: str, tags: frozenset[str]) -> None:
        self.src, self.tags, self.tag_re = src, tags, _tag_re(tags)
        self.root = _Node("")
        self.stack = [self.root]
        self.pos = self.ws_pos = 0

    def parse(self) -> _Node:
        scan = 0
        while (m := self.tag_re.search(self.src, scan)) is not None:
            scan = m.end()
            closing, tag, arg = m.group(1) == "/", m.group(2).lower(), m.group(3) or ""
            if closing:
                self._close_tag(tag, m.start(), m.end())
            elif self._open_tag(tag, arg, m):
                if tag == "code":           # nothing inside [code] is markup, up to [/code]
                    end = re.compile(r"\[/code\]", re.I).search(self.src, m.end())
                    scan = end.start() if end else len(self.src)
        for node in reversed(self.stack[1:]):
            self._magic_end(node, len(self.src))
        self._text_up_to(len(self.src), 0)
        return self.root

    def _text_up_to(self, catchup: int, max_lines: int) -> None:
        if self.pos >= catchup:
            return
        top = self.stack[-1].children
        if self.ws_pos > self.pos:
            skip = min(catchup, self.ws_pos)
            top.append(_Raw(self.src[self.pos:skip]))
            self.pos = skip
            if self.pos >= catchup:
                return
        ignore = catchup
        while max_lines and ignore > self.pos and self.src[ignore - 1] in " \n\t":
            ignore -= 1
            if self.src[ignore] == "\n":
                max_lines -= 1
        if ignore > self.pos:
            top.append(self.src[self.pos:ignore])
        if catchup > ignore:
            top.append(_Raw(self.src[ignore:catchup]))
        self.pos = catchup

    def _after(self, end: int, lines: int) -> None:
        self.pos = self.ws_pos = end
        while lines and self.ws_pos < len(self.src) and self.src[self.ws_pos] == "\n":
            lines -= 1
            self.ws_pos += 1

    def _open_tag(self, tag: str, arg: str, m: re.Match) -> bool:
        names = [n.tag for n in self.stack]
        if tag == "*":
            if "list" not in names:
                return False
            last_list = len(names) - 1 - names[::-1].index("list")
            if "*" in names[last_list:]:
                for node in reversed(self.stack[last_list + 1:]):
                    self._magic_end(node, m.start())
            if self.stack[-1].tag != "list":
                return False
        if not _valid(tag, arg):
            return False
        block = tag in _BLOCK
        self._text_up_to(m.start(), 1 if block else 0)
        node = _Node(tag, arg, m.group(0))
        self.stack[-1].children.append(node)
        self.stack.append(node)
        if tag == "code" and self.src.startswith("\n", m.end()):
            self._after(m.end() + 1, 0)     # phpBB trims the first line break of a code block
        else:
            self._after(m.end(), 1 if block else 0)
        return True

    def _close_tag(self, tag: str, start: int, end: int) -> None:
        names = [n.tag for n in self.stack[1:]]
        if tag not in names:
            return                          # closes nothing: stays text
        while self.stack[-1].tag != tag:
            self._magic_end(self.stack[-1], start)
        block = tag in _BLOCK
        self._text_up_to(start, 1 if block else 0)
        self.stack.pop()
        self._after(end, 2 if block else 0)

    def _magic_end(self, node: _Node, at: int) -> None:
        """Close ``node`` where no end tag is written; a block ends before its trailing
        whitespace."""
        block = node.tag in _BLOCK
        if block:
            while at > self.pos and self.src[at - 1] in " \n\t":
                at -= 1
        self._text_up_to(at, 1 if block else 0)
        self.stack.pop()
        self._after(at, 2 if block else 0)


def _quote_attrs(arg: str) -> tuple[str | None, dict[str, str]]:
    arg = arg.strip()
    name = None
    if arg.startswith("="):
        rest = arg[1:]
        if rest.startswith('"'):
            end = rest.find('"', 1)
            name, rest = (rest[1:end], rest[end + 1:]) if end > 0 else (rest[1:], "")
        else:
            name, _, rest = rest.partition(" ")
        arg = rest
    attrs = {m.group(1): (m.group(3) if m.group(3) is not None else m.group(2))
             for m in _ATTR_RE.finditer(arg)}
    return name, attrs


def _utc_date(t: datetime) -> str:
    return f"{t:%d.%m.%Y %H:%M} UTC"


class BBCodeRenderer:
    """A post body's BBCode as the board shows it. ``custom`` names the board's own BBCodes to
    render (``"spoiler"``, ``"table"``); ``user_ids`` links quoted authors to their profiles."""

    def __init__(self, *, strings: dict[str, str],
                 format_date: Callable[[datetime], str] = _utc_date,
                 user_ids: dict[str, int] | None = None, custom: Iterable[str] = (),
                 inline_scripts: bool = True) -> None:
        self.s = strings
        # phpBB's own onclick handlers; a page whose CSP forbids inline scripts (the host's
        # page) gets none, and its own script does their job (web/static/game.js)
        self.inline_scripts = inline_scripts
        self.format_date = format_date
        self.user_ids = user_ids or {}
        self.tags = STOCK_TAGS.union(*(CUSTOM_TAGS[c] for c in custom))

    def render(self, src: str) -> str:
        """The HTML of ``src`` (phpBB trims a message and turns CR LF into LF)."""
        src = src.replace("\r\n", "\n").strip(" \t\n\r\0\x0b")
        return self._children(_Parser(src, self.tags).parse().children)

    def _children(self, children: list[str | _Raw | _Node], *, in_link: bool = False) -> str:
        out = []
        for c in children:
            if isinstance(c, _Raw):
                out.append(esc_text(c.text))
            elif isinstance(c, str):
                text = _smilies(esc_text(c)) if in_link else _autolink(c)
                out.append(text.replace("\n", "<br>\n"))
            else:
                out.append(self._node(c, in_link=in_link))
        return "".join(out)

    def _node(self, n: _Node, *, in_link: bool) -> str:  # noqa: C901 - one case per tag
        value = n.arg[1:].strip() if n.arg.startswith("=") else ""

        def inner() -> str:
            return self._children(n.children, in_link=in_link)
        if n.tag == "b":
            return f'<strong class="text-strong">{inner()}</strong>'
        if n.tag == "i":
            return f'<em class="text-italics">{inner()}</em>'
        if n.tag == "u":
            return f'<span style="text-decoration:underline">{inner()}</span>'
        if n.tag == "size":
            return f'<span style="font-size:{int(value)}%;line-height:116%">{inner()}</span>'
        if n.tag == "color":
            return f'<span style="color:{esc(value)}">{inner()}</span>'
        if n.tag == "url":
            return self._url(n, value.strip('"'))
        if n.tag == "list":
            kind = _LIST_TYPES.get(value, value)
            if not kind:
                return f"<ul>{inner()}</ul>"
            el = "ol" if kind in _OL_TYPES else "ul"
            return f'<{el} style="list-style-type:{esc(kind)}">{inner()}</{el}>'
        if n.tag == "*":
            return f"<li>{inner()}</li>"
        if n.tag == "code":
            text = "".join(c if isinstance(c, str) else c.text if isinstance(c, _Raw) else c.raw
                           for c in n.children)
            click = (' onclick="selectCode(this); return false;"' if self.inline_scripts
                     else ' class="select-code"')
            return (f'<div class="codebox"><p>{self.s["code"]}: <a href="#"'
                    f'{click}>{self.s["select_all"]}</a></p>'
                    f'<pre><code>{esc_text(text)}</code></pre></div>')
        if n.tag == "spoiler":
            return (f'<div class="spoiler"><div class="spoiler-title"><strong>'
                    f'{self.s["spoiler"]}</strong></div><div class="spoiler-body">{inner()}'
                    f'</div></div>')
        if n.tag == "table":
            return f'<table class="bbtable">{inner()}</table>'
        if n.tag in ("tr", "td"):
            return f"<{n.tag}>{inner()}</{n.tag}>"
        return self._quote(n)

    def _url(self, n: _Node, href: str) -> str:
        if href:
            body = self._children(n.children, in_link=True)
            return f'<a href="{esc(href)}" class="postlink">{body}</a>'
        text = "".join(c if isinstance(c, str) else c.text if isinstance(c, _Raw) else c.raw
                       for c in n.children)
        if not _URL_RE.match(text) or any(isinstance(c, _Node) for c in n.children):
            return esc_text(n.raw) + self._children(n.children) + "[/url]"
        return f'<a href="{esc(text)}" class="postlink">{esc_text(text)}</a>'

    def _quote(self, n: _Node) -> str:
        name, attrs = _quote_attrs(n.arg)
        body = self._children(n.children)
        if name is None:
            return f'<blockquote class="uncited"><div>{body}</div></blockquote>'
        uid = attrs.get("user_id") or (str(self.user_ids[name]) if name in self.user_ids
                                       else None)
        who = (f'<a href="./memberlist.php?mode=viewprofile&amp;u={uid}">{esc_text(name)}</a>'
               if uid else esc_text(name))
        cite = f"{who} {self.s['wrote']}:"
        pid = attrs.get("post_id")
        link = ""
        if pid and pid.isdigit():
            link = (f' <a href="./viewtopic.php?p={pid}#p{pid}" aria-label="'
                    f'{self.s["view_quoted"]}" data-post-id="{pid}"'
                    + (' onclick="if(document.getElementById(hash.substr(1)))href=hash"'
                       if self.inline_scripts else "")
                    + '><i class="icon '
                    'fa-arrow-circle-up fa-fw" aria-hidden="true"></i></a>')
        mid = attrs.get("msg_id")
        if not link and mid and mid.isdigit():   # a quoted private message
            link = (f' <a href="./ucp.php?i=pm&amp;mode=view&amp;p={mid}" aria-label="'
                    f'{self.s["view_quoted"]}" data-msg-id="{mid}"><i class="icon '
                    f'fa-arrow-circle-up fa-fw" aria-hidden="true"></i></a>')
        when = ""
        if attrs.get("time", "").isdigit():
            t = datetime.fromtimestamp(int(attrs["time"]), timezone.utc)
            when = f'<span class="responsive-hide">{self.format_date(t)}</span>'
        open_ = (f'<blockquote cite="./viewtopic.php?p={pid}#p{pid}">' if pid
                 else "<blockquote>")
        return f"{open_}<div><cite>{cite}{link}{when}</cite>{body}</div></blockquote>"


def bbcode_to_html(text: str, *, lang: str = "ru", custom: Iterable[str] = ("table",),
                   inline_scripts: bool = True) -> str:
    """The HTML a phpBB 3.3.15 board in ``lang`` shows for a post's BBCode ``text`` (the post
    body only). ``custom``: the board's own BBCodes (the preview assumes the table tags the
    newspaper writes only when the game says the board has them). ``inline_scripts=False``:
    without phpBB's onclick handlers, for a page whose CSP refuses them."""
    return BBCodeRenderer(strings=BBCODE_STRINGS.get(lang, BBCODE_STRINGS["en"]),
                          custom=custom, inline_scripts=inline_scripts).render(text)
