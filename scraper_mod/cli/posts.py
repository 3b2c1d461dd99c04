"""`scraper-mod posts URL_OR_FILE [--json]`: the posts of a topic page, a saved file, or a
whole topic read from the board (docs/commands.md)."""

from __future__ import annotations

import argparse
from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..errors import ConfigError, ForumError, ParseError
from ..forum.model import Post, TopicPage
from .common import SubParsers, parse_time_arg, print_json


def register(sub: SubParsers) -> None:
    p = sub.add_parser(
        "posts", help="print the posts of a topic (a URL: every page) or of saved pages",
        description="Reads a phpBB or SMF topic and prints its posts. A URL is fetched from the "
                    "board, all its pages from the one given on; a file is a saved page.")
    p.add_argument("sources", metavar="URL_OR_FILE", nargs="+",
                   help="a topic URL (phpBB …/viewtopic.php?t=N, SMF …/index.php?topic=N.0; "
                        "the engine is told from it) or saved page file(s), in order")
    p.add_argument("--json", action="store_true", help="JSON as in docs/commands.md")
    p.add_argument("--tz", default="Europe/Moscow",
                   help="the board's time zone (default Europe/Moscow)")
    p.add_argument("--single-page", action="store_true",
                   help="with a URL: only that page, not the pages after it")
    p.add_argument("--fetched-at", metavar="TIME",
                   help="with a file: when it was saved (ISO 8601, board time without an "
                        "offset); needed to date «Сегодня» / «N минут назад»")
    p.add_argument("--username", help="log in as this user (password: "
                                      "SCRAPER_MOD_FORUM_PASSWORD)")
    p.add_argument("--min-delay", type=float, default=1.0,
                   help="seconds between two requests to the board (default 1)")
    p.set_defaults(func=run)


def post_json(post: Post, tz: ZoneInfo | None = None) -> dict:
    """One post as docs/commands.md's ``posts --json`` object (plus a few extra fields), times in
    ``tz`` (default: as parsed, in the board's zone)."""
    def t(v):
        return (v.astimezone(tz) if tz else v).isoformat() if v else None
    return {
        "post_id": post.post_id,
        "author": post.author,
        "author_id": post.author_id,
        "posted_at": t(post.posted_at),
        "precision": post.precision,
        "edited_at": t(post.edited_at),
        "edited_by": post.edited_by,
        "edit_count": post.edit_count,
        "edit_reason": post.edit_reason,
        "page_url": post.page_url,
        "colored": [{"color": c.color, "text": c.text} for c in post.colored],
        "bold": list(post.bold),
        "quotes": list(post.quotes),
        "text": post.text,
        # a post the board merged from several replies (a board's «merge post»): each piece at its time
        **({"parts": [{"posted_at": t(post.posted_at + timedelta(seconds=x.after)),
                       "colored": [{"color": c.color, "text": c.text} for c in x.colored],
                       "text": x.text} for x in post.parts]} if post.parts else {}),
    }


def _is_url(s: str) -> bool:
    return s.startswith(("http://", "https://"))


def _read(args, tz: ZoneInfo) -> list[TopicPage]:
    from ..forum.engine import TOPIC_URL_SHAPE, client_for_topic, parse_saved_topic

    pages: list[TopicPage] = []
    urls = [s for s in args.sources if _is_url(s)]
    if urls and len(args.sources) > 1:
        raise ConfigError("give one URL, or one or more files, not both",
                          hint="a URL reads the whole topic by itself")
    if urls:
        from ..forum.poller import fetch_topic
        url = urls[0]
        client = client_for_topic(url, username=args.username, min_delay=args.min_delay)
        return fetch_topic(client, url, board_tz=tz, single_page=args.single_page)
    fetched_at = parse_time_arg(args.fetched_at, tz, name="--fetched-at") \
        if args.fetched_at else None
    for s in args.sources:
        path = Path(s)
        if not path.is_file():
            raise ForumError("no such file, and not an http(s) URL", url=s,
                             hint=f"give a saved topic page or a …/{TOPIC_URL_SHAPE} link")
        try:
            pages.append(parse_saved_topic(path, fetched_at=fetched_at, board_tz=tz))
        except ParseError as e:
            if fetched_at is None and "relative date" in e.message:
                raise ParseError(e.message, hint="give --fetched-at TIME: when the page was "
                                                 "saved, in board time") from None
            raise
    return pages


def _text(pages: list[TopicPage], tz: ZoneInfo) -> str:
    out: list[str] = []
    for page in pages:
        flags = " (locked)" if page.locked else ""
        tid = f" t={page.topic_id}" if page.topic_id is not None else ""
        out.append(f"== {page.title}{tid}: page {page.page} of {page.page_count}, "
                   f"{len(page.posts)} post(s){flags}")
        for p in page.posts:
            when = p.posted_at.astimezone(tz)
            shown = when.strftime("%Y-%m-%d %H:%M:%S" if p.precision == "second"
                                  else "%Y-%m-%d %H:%M")
            approx = "" if p.precision == "second" else f" ({p.precision})"
            uid = f" [{p.author_id}]" if p.author_id is not None else ""
            out.append(f"#{p.post_id}  {p.author}{uid}  {shown} {when:%z}{approx}")
            if p.edit_count:
                edited = p.edited_at.astimezone(tz).strftime("%Y-%m-%d %H:%M") \
                    if p.edited_at else "?"
                reason = f": {p.edit_reason}" if p.edit_reason else ""
                out.append(f"    edited {p.edit_count}x by {p.edited_by or p.author} "
                           f"at {edited}{reason}")
            if p.colored:
                out.append("    colored: " + ", ".join(f"{c.text} ({c.color})"
                                                       for c in p.colored))
            if p.quotes:
                out.append("    quotes: " + ", ".join(f"#{q}" for q in p.quotes))
            for line in (p.text or "").splitlines() or [""]:
                out.append(f"    {line}" if line else "")
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def run(args: argparse.Namespace) -> int:
    try:
        tz = ZoneInfo(args.tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(f"--tz: unknown time zone {args.tz!r}",
                          hint='e.g. "Europe/Moscow"') from None
    pages = _read(args, tz)
    if args.json:
        print_json([post_json(p, tz) for page in pages for p in page.posts])
    else:
        print(_text(pages, tz), end="")
    return 0

