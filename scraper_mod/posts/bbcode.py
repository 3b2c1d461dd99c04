"""LocalBoard's words and markup: phpBB 3.3.15's strings in English and Russian, and the
BBCode -> prosilver HTML of a post body, as phpBB 3.3's s9e formatter renders it (checked
byte for byte against real pages by tests/test_localboard.py).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

# -- language strings (from phpBB 3.3.15 en and the official ru pack, as seen on real pages) --

STRINGS: dict[str, dict[str, Any]] = {
    "ru": {
        "months": "янв фев мар апр май июн июл авг сен окт ноя дек".split(),
        "posts": "Сообщения", "joined": "Зарегистрирован", "by": "", "wrote": "писал(а)",
        "view_quoted": "Просмотреть процитированное сообщение", "quote": "Цитата",
        "quote_title": "Ответить с цитатой", "post": "Сообщение", "top": "Вернуться к началу",
        "reply": "Ответить", "locked": "Тема закрыта",
        "locked_title": "Тема закрыта, вы не можете редактировать и оставлять сообщения в ней.",
        "next": "След.", "prev": "Пред.", "page": "Страница", "of": "из",
        "spoiler": "Спойлер", "code": "Код", "select_all": "Выделить всё",
        "reason": "Причина", "info": "Информация", "login": "Вход", "logout": "Выход",
        "register": "Регистрация", "index": "Список форумов", "topics": "Темы",
        "replies": "Ответы", "views": "Просмотры", "last_post": "Последнее сообщение",
        "no_topic": "Запрошенной темы не существует.",
        "no_forum": "Форум, который вы выбрали, не существует.",
        "disabled": "Извините, но конференция в настоящий момент недоступна",
        "login_forum": "Для просмотра этого форума вы должны быть авторизованы.",
        "username": "Имя пользователя", "password": "Пароль", "remember": "Запомнить меня",
        "hide": "Скрыть моё пребывание на конференции в этот раз",
        "bad_password": "Вы ввели неверный пароль. Проверьте правильность ввода и повторите "
                        "попытку. Если проблема не решается, обратитесь к администратору "
                        "конференции.",
        "bad_user": "Вы ввели неверное имя пользователя. Проверьте его и попробуйте ещё раз.",
        "bad_form": "Представленная форма недействительна. Попробуйте отправить её снова.",
        "timezone": "Часовой пояс", "tz_title": "Европа/Москва",
        "today": "Сегодня", "yesterday": "Вчера", "less_minute": "менее минуты назад",
        "ucp": "Личный раздел", "view_messages": "Просмотр сообщений", "inbox": "Входящие",
        "message": "Сообщение", "mark": "Отметить", "sent": "Отправлено", "from": "От",
        "to": "Получатель", "login_ucp": "Пожалуйста, авторизуйтесь для входа в ваш личный "
                                         "раздел.", "new_pm": "Новое ЛС",
        "feed": "Канал", "feed_new": "Новые темы", "feed_forum": "Форум", "feed_topic": "Тема",
        "feed_stats": "Статистика: Добавлено ",
        "no_feed": "Ленты новостей на этой конференции недоступны.",
        "powered": 'Создано на основе <a href="https://www.phpbb.com/">phpBB</a>&reg; Forum '
                   'Software &copy; phpBB Limited',
    },
    "en": {
        "months": "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(),
        "days": "Mon Tue Wed Thu Fri Sat Sun".split(),
        "posts": "Posts", "joined": "Joined", "by": "by", "wrote": "wrote",
        "view_quoted": "View quoted post", "quote": "Quote", "quote_title": "Reply with quote",
        "post": "Post", "top": "Top", "reply": "Post Reply", "locked": "Locked",
        "locked_title": "This topic is locked, you cannot edit posts or make further replies.",
        "next": "Next", "prev": "Previous", "page": "Page", "of": "of",
        "spoiler": "Spoiler", "code": "Code", "select_all": "Select all",
        "reason": "Reason", "info": "Information", "login": "Login", "logout": "Logout",
        "register": "Register", "index": "Board index", "topics": "Topics",
        "replies": "Replies", "views": "Views", "last_post": "Last post",
        "no_topic": "The requested topic does not exist.",
        "no_forum": "The forum you selected does not exist.",
        "disabled": "Sorry but this board is currently unavailable.",
        "login_forum": "The board requires you to be registered and logged in to view this "
                       "forum.",
        "username": "Username", "password": "Password", "remember": "Remember me",
        "hide": "Hide my online status this session",
        "bad_password": "You have specified an incorrect password. Please check your password "
                        "and try again. If you continue to have problems please contact the "
                        "Board Administrator.",
        "bad_user": "You have specified an incorrect username. Please check your username "
                    "and try again. If you continue to have problems please contact the "
                    "Board Administrator.",
        "bad_form": "The submitted form was invalid. Try submitting again.",
        "timezone": "All times are", "tz_title": "Europe/Moscow",
        "today": "Today", "yesterday": "Yesterday", "less_minute": "less than a minute ago",
        "ucp": "User Control Panel", "view_messages": "View messages", "inbox": "Inbox",
        "message": "Message", "mark": "Mark", "sent": "Sent", "from": "From", "to": "To",
        "login_ucp": "Please login in order to access the User Control Panel.",
        "new_pm": "New PM",
        "feed": "Feed", "feed_new": "New Topics", "feed_forum": "Forum", "feed_topic": "Topic",
        "feed_stats": "Statistics: Posted by",
        "no_feed": "Feeds are not available on this board.",
        "powered": 'Powered by <a href="https://www.phpbb.com/">phpBB</a>&reg; Forum Software '
                   '&copy; phpBB Limited',
    },
}


def esc(text: str) -> str:
    return html.escape(text, quote=True)


# -- BBCode -> prosilver HTML ---------------------------------------------------------------

_TAG_RE = re.compile(r"\[(/?)(b|i|u|color|quote|spoiler|code)((?:=|\s)[^\[\]]*)?\]",
                     re.IGNORECASE)
_COLOR_RE = re.compile(r"^(#[0-9A-Fa-f]{6}|#[0-9A-Fa-f]{3}|[A-Za-z]{3,20})$")
_ATTR_RE = re.compile(r'([a-z_]+)=("([^"]*)"|[^\s"]+)')


# phpBB's default smilies (a few): code -> (image, width, height, title)
_SMILIES = {
    ":D": ("icon_e_biggrin.gif", 15, 17, "Very Happy"),
    ":)": ("icon_e_smile.gif", 15, 17, "Smile"),
    ";)": ("icon_e_wink.gif", 15, 17, "Wink"),
    ":(": ("icon_e_sad.gif", 15, 17, "Sad"),
    ":P": ("icon_razz.gif", 15, 15, "Razz"),
    ":?": ("icon_e_confused.gif", 15, 17, "Confused"),
}
_SMILEY_RE = re.compile(r"(?<![^\s>])(" + "|".join(re.escape(k) for k in _SMILIES) + r")(?=\s|$|<)")


def _smilies(html_text: str) -> str:
    def img(m: re.Match) -> str:
        file, w, h, title = _SMILIES[m.group(1)]
        return (f'<img class="smilies" src="./images/smilies/{file}" width="{w}" height="{h}" '
                f'alt="{m.group(1)}" title="{title}">')
    return _SMILEY_RE.sub(img, html_text)


@dataclass
class _Node:
    tag: str                        # "" for the root
    arg: str = ""
    raw: str = ""                   # the opening tag as written (for unclosed tags)
    children: list = field(default_factory=list)


def _parse_bbcode(src: str) -> _Node:
    root = _Node("")
    stack = [root]
    pos = 0
    for m in _TAG_RE.finditer(src):
        if m.start() < pos:
            continue
        top = stack[-1]
        closing, tag, arg = m.group(1) == "/", m.group(2).lower(), (m.group(3) or "")
        if top.tag == "code" and not (closing and tag == "code"):
            continue  # nothing is parsed inside [code]
        if m.start() > pos:
            top.children.append(src[pos:m.start()])
        pos = m.end()
        if closing:
            if any(n.tag == tag for n in stack[1:]):
                while True:
                    node = stack.pop()
                    if node.tag == tag:
                        break
                    # an inner tag left open: keep its text literally
                    parent = stack[-1]
                    parent.children.remove(node)
                    parent.children.append(node.raw)
                    parent.children.extend(node.children)
            else:
                top.children.append(m.group(0))
            continue
        if tag == "color" and not _COLOR_RE.match(arg.lstrip("=").strip()):
            top.children.append(m.group(0))
            continue
        node = _Node(tag, arg, m.group(0))
        top.children.append(node)
        stack.append(node)
    stack[-1].children.append(src[pos:])
    while len(stack) > 1:  # unclosed tags are text
        node = stack.pop()
        parent = stack[-1]
        i = parent.children.index(node)
        parent.children[i:i + 1] = [node.raw, *node.children]
    return root


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


class BBCodeRenderer:
    """The tiny BBCode subset players use, rendered as phpBB 3.3's s9e formatter does."""

    def __init__(self, *, strings: dict, format_date: Callable[[datetime], str],
                 user_ids: dict[str, int] | None = None) -> None:
        self.s = strings
        self.format_date = format_date
        self.user_ids = user_ids or {}

    def render(self, src: str) -> str:
        src = src.replace("\r\n", "\n").strip("\n")
        return self._children(_parse_bbcode(src).children)

    def _text(self, text: str) -> str:
        return _smilies(esc(text)).replace("\n", "<br>\n")

    def _children(self, children, *, in_block: bool = False) -> str:
        """Render children; s9e keeps a line break next to a block tag (after ``[/quote]``,
        after ``[quote]`` and before ``[/quote]``) as a bare newline, without ``<br>``."""
        out = []
        after_block = in_block
        last = len(children) - 1
        for i, c in enumerate(children):
            if isinstance(c, str):
                head = tail = ""
                if after_block and c.startswith("\n"):
                    head, c = "\n", c[1:]
                if in_block and i == last and c.endswith("\n"):
                    tail, c = "\n", c[:-1]
                out.append(head + self._text(c) + tail)
                after_block = False
            else:
                out.append(self._node(c))
                after_block = c.tag in ("quote", "spoiler", "code")
        return "".join(out)

    def _node(self, n: _Node) -> str:
        inner = lambda: self._children(n.children)  # noqa: E731
        if n.tag == "b":
            return f'<strong class="text-strong">{inner()}</strong>'
        if n.tag == "i":
            return f'<em class="text-italics">{inner()}</em>'
        if n.tag == "u":
            return f'<span style="text-decoration:underline">{inner()}</span>'
        if n.tag == "color":
            return f'<span style="color:{esc(n.arg.lstrip("=").strip())}">{inner()}</span>'
        if n.tag == "spoiler":
            return (f'<div class="spoiler"><div class="spoiler-title"><strong>'
                    f'{self.s["spoiler"]}</strong></div><div class="spoiler-body">{inner()}'
                    f'</div></div>')
        if n.tag == "code":
            text = "".join(c if isinstance(c, str) else c.raw for c in n.children).strip("\n")
            return (f'<div class="codebox"><p>{self.s["code"]}: <a href="#" '
                    f'onclick="selectCode(this); return false;">{self.s["select_all"]}</a></p>'
                    f'<pre><code>{esc(text)}</code></pre></div>')
        if n.tag == "quote":
            name, attrs = _quote_attrs(n.arg)
            body = self._children(n.children, in_block=True)
            if name is None:
                return f'<blockquote class="uncited"><div>{body}</div></blockquote>'
            uid = attrs.get("user_id") or (str(self.user_ids[name]) if name in self.user_ids
                                           else None)
            who = (f'<a href="./memberlist.php?mode=viewprofile&amp;u={uid}">{esc(name)}</a>'
                   if uid else esc(name))
            cite = f"{who} {self.s['wrote']}:"
            pid = attrs.get("post_id")
            link = ""
            if pid and pid.isdigit():
                link = (f' <a href="./viewtopic.php?p={pid}#p{pid}" aria-label="'
                        f'{self.s["view_quoted"]}" data-post-id="{pid}" onclick="if(document.'
                        f'getElementById(hash.substr(1)))href=hash"><i class="icon '
                        f'fa-arrow-circle-up fa-fw" aria-hidden="true"></i></a>')
            mid = attrs.get("msg_id")
            if not link and mid and mid.isdigit():   # a quoted private message
                link = (f' <a href="./ucp.php?i=pm&amp;mode=view&amp;p={mid}" aria-label="'
                        f'{self.s["view_quoted"]}" data-msg-id="{mid}"><i class="icon '
                        f'fa-arrow-circle-up fa-fw" aria-hidden="true"></i></a>')
            when = ""
            if attrs.get("time", "").isdigit():
                t = datetime.fromtimestamp(int(attrs["time"]), timezone.utc)
                when = f'<span class="responsive-hide">{self.format_date(t)}</span>'
            open_ = f'<blockquote cite="./viewtopic.php?p={pid}#p{pid}">' if pid else "<blockquote>"
            return f"{open_}<div><cite>{cite}{link}{when}</cite>{body}</div></blockquote>"
        return n.raw + inner()  # pragma: no cover - every parsed tag is handled above
