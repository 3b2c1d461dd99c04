"""What a page without posts stands for: not found, login required, board disabled, a bot
challenge, not phpBB at all (``classify_error_page``)."""

from __future__ import annotations

from typing import Any

from lxml import etree

from scraper_mod.errors import (
    BoardDisabledError,
    ForumError,
    LoginRequiredError,
    NotABoardPageError,
    ParseError,
    TopicNotFoundError,
)
from scraper_mod.forum.html import _norm, _tc

# ---------------------------------------------------------------- page kinds

_NOT_FOUND = ("the requested topic does not exist", "запрошенной темы не существует",
              "the requested post does not exist", "запрошенного сообщения не существует",
              "the topic or post you requested does not exist",
              "темы или сообщения, которое вы запросили, не существует",
              "the forum you selected does not exist", "форум, который вы выбрали, не существует",
              "выбранного вами форума не существует", "тема не существует",
              "которую вы запросили, не существует", "сообщения, которое вы запросили")
_DISABLED = ("this board is currently unavailable", "конференция в настоящий момент недоступна",
             "board is currently disabled", "форум временно отключен",
             "форум в настоящий момент недоступен")
_LOGIN = ("requires you to be registered and logged in", "must be registered and logged in",
          "должны быть авторизованы", "должны быть зарегистрированы и авторизованы",
          "авторизуйтесь для входа", "you need to login in order to",
          "you are not authorised to read", "вы не можете читать", "нет доступа к этому форуму",
          "please login to access", "you must be logged in", "необходимо авторизоваться",
          "не авторизованы для чтения", "нет прав для чтения")
_CHALLENGE = ("just a moment...", "checking your browser", "cf-browser-verification",
              "challenge-platform", "cf_chl_", "ddos-guard", "attention required! | cloudflare",
              "enable javascript and cookies to continue", "captcha-delivery", "sucuri website firewall",
              "verify you are human", "/cdn-cgi/challenge")
_PHPBB_MARKERS = ("phpbb", "viewtopic.php", "viewforum.php", "ucp.php", "memberlist.php",
                  "posting.php")


def classify_error_page(doc: Any, *, url: str = "", what: str = "topic") -> ForumError:
    """The error a page that holds no posts stands for (not found, login, disabled...)."""
    root = doc
    try:
        html_low = etree.tostring(root, encoding="unicode", method="html")[:400_000].lower()
    except (ValueError, etree.SerializationError):  # pragma: no cover - defensive
        html_low = ""
    text_low = _norm(_tc(root)).lower()
    title = _norm(root.findtext(".//title") or "")
    u = url or None
    for marker in _CHALLENGE:
        if marker in html_low:
            return NotABoardPageError(f"a bot challenge or firewall page, not the board "
                                 f"(title {title!r})", url=u)
    if not any(m in html_low for m in _PHPBB_MARKERS):
        return NotABoardPageError(f"not a phpBB page (title {title!r})", url=u)
    for marker in _DISABLED:
        if marker in text_low:
            return BoardDisabledError(f"the board is disabled: {marker!r}", url=u)
    for marker in _NOT_FOUND:
        if marker in text_low:
            if "forum" in marker or "форум" in marker:
                return TopicNotFoundError(f"the forum does not exist ({marker!r})", url=u,
                                          hint="check [forum] url / the forum id")
            return TopicNotFoundError(f"the {what} does not exist ({marker!r})", url=u)
    if what == "topic":
        if root.tag == "feed" or "<feed" in html_low[:2000] and "atom" in html_low[:2000]:
            return ParseError("an Atom feed, not a topic page", url=u,
                              hint="use the viewtopic.php?t=N address of the topic")
        if root.xpath("boolean(//a[contains(concat(' ',@class,' '),' topictitle ')])"):
            return ParseError("a forum's topic list (viewforum), not a topic page", url=u,
                              hint="use the viewtopic.php?t=N address of the topic")
    login_form = root.xpath("boolean(//input[@type='password'] | "
                            "//form[contains(@action,'mode=login')])")
    for marker in _LOGIN:
        if marker in text_low:
            return LoginRequiredError(f"the board wants a login: {marker!r}", url=u)
    if login_form:
        return LoginRequiredError("the board answered with its login form", url=u)
    msg = root.xpath("string(//div[@id='message']//p | //div[contains(@class,'panel')]//h2)")
    if _norm(msg):
        return ParseError(f"the board answered with a message instead of the {what}: "
                          f"{_norm(msg)[:200]!r}", url=u)
    return ParseError(f"no posts found on the page (title {title!r}); truncated or not a "
                      f"{what} page", url=u, hint="retry; check the URL")
