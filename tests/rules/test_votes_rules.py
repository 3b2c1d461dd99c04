"""RULES R2.2-R2.8 and R8.1, table-driven: each rejection reason of the vote extraction, on
real phpBB markup.

Every case writes its posts as BBCode on a LocalBoard (the phpBB 3.3.15 prosilver look-alike
on 127.0.0.1), fetches the topic at the given board times (so relative dates and edit
notices are rendered as phpBB renders them), parses each page with the real parser, keeps the
versions as the poller does (a new version only when the content changed), and runs
``extract_votes`` + ``count_votes``. Cases need: what counts, and what was rejected and why.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from scraper_mod.demo.localboard import LocalBoard
from scraper_mod.forum.model import Colored, Hidden, Post
from scraper_mod.forum.phpbb.parse import parse_topic_page
from scraper_mod.rules.colors import is_vote_color, normalize_color
from scraper_mod.rules.model import RuleOptions
from scraper_mod.rules.tally import count_votes
from scraper_mod.rules.votes import REASONS, extract_votes, reason_text

MSK = ZoneInfo("Europe/Moscow")
DEADLINE = datetime(2024, 4, 9, 20, 0, tzinfo=MSK)
PLAYERS = [("Вася", ("Василий",)), ("Маша_2", ()), ("Big Joe", ()), ("Алексей", ()),
           ("NightOwl", ()), ("Игрок-7", ()), ("Ёжик в тумане", ()), ("doc_Holiday", ())]
NICKS = [p for p, _ in PLAYERS]
IDS = {"admin": 2, "Вася": 58, "Маша_2": 59, "Big Joe": 60, "Алексей": 61, "NightOwl": 62,
       "Игрок-7": 63, "Ёжик в тумане": 64, "doc_Holiday": 65, "Зритель": 70}


def t(hhmmss: str, day: int = 9) -> datetime:
    """Game time on 9 April 2024 ("19:59:30"), or another day ("8 21:15:40")."""
    if " " in hhmmss:
        d, hhmmss = hhmmss.split()
        day = int(d)
    h, m, *s = (int(x) for x in hhmmss.split(":"))
    return datetime(2024, 4, day, h, m, s[0] if s else 0, tzinfo=MSK)


class Clock:
    """The board's clock, set by each fetch step (a plain callable for LocalBoard)."""

    def __init__(self) -> None:
        self.at = t("21:00")

    def __call__(self) -> datetime:
        return self.at


def play(board: LocalBoard, clock: Clock, steps) -> tuple[list[tuple[Post, datetime]], dict]:
    """Run the steps on a fresh topic; returns the stored versions and index -> post id.

    Steps: ("post", author, bbcode, "HH:MM:SS") | ("edit", n, bbcode, "HH:MM:SS") |
    ("delete", n) | ("fetch", "HH:MM:SS"). ``n`` is the post's index among the case's posts.
    """
    tid = board.add_topic("День 1 — голосование")
    ids: dict[int, int] = {}
    versions: list[tuple[Post, datetime]] = []
    last: dict[int, dict] = {}
    for step in steps:
        kind = step[0]
        if kind == "post":
            _, author, body, when = step
            ids[len(ids)] = board.add_post(author, IDS[author], body, t(when), topic=tid)
        elif kind == "edit":
            _, n, body, when = step
            # the notice phpBB writes for an edit of a post that is not the topic's last
            board.edit_post(ids[n], body, edited_at=t(when), notice=True)
        elif kind == "delete":
            board.delete_post(ids[step[1]])
        elif kind == "fetch":
            clock.at = t(step[1])
            html = board.render_topic(tid)
            page = parse_topic_page(html.encode("utf-8"), url=board.topic_url(tid),
                                    fetched_at=clock.at, board_tz=MSK)
            for p in page.posts:
                key = p.content_key()
                if last.get(p.post_id) != key:
                    versions.append((p, clock.at))
                    last[p.post_id] = key
    return versions, ids


@pytest.fixture(scope="module")
def boards():
    clock = Clock()
    with LocalBoard(language="ru", clock=clock) as b:
        yield {"absolute": b, "clock": clock}


# Each case: id, steps, keyword arguments for extract_votes, expected counted votes
# {voter: target}, expected rejections {(post index, text, reason)}.
CASES = [
    ("R2.2 quoted: a colored nick inside a quote is the quoted post's, not a vote", [
        ("post", "Ёжик в тумане", "[color=#ff0000]Вася[/color] — слишком бодрый.", "09:00:00"),
        ("post", "Алексей", '[quote="Ёжик в тумане" post_id=1 time=1 user_id=64]'
                            "[color=#ff0000]Вася[/color][/quote] Зачем?", "09:25:00"),
        ("fetch", "20:30:00")], {},
     {"Ёжик в тумане": "Вася"}, {(1, "Вася", "quoted")}),
    ("R2.2 spoiler: a colored nick inside a spoiler is not a vote", [
        ("post", "Маша_2", "[spoiler][color=red]Big Joe[/color][/spoiler] Угадайте.", "10:00:00"),
        ("fetch", "20:30:00")], {},
     {}, {(0, "Big Joe", "spoiler")}),
    ("R2.2 a name in the board's text color, black or dark gray is not a vote", [
        ("post", "Вася", "[color=#333333]Маша_2[/color] [color=black]Big Joe[/color] "
                         "[color=#444444]Алексей[/color]", "10:00:00"),
        ("fetch", "20:30:00")], {},
     {}, set()),
    ("R2.2 colored text that names no player", [
        ("post", "Big Joe", "Голосую [color=red]цветом[/color], как просили.", "10:00:00"),
        ("fetch", "20:30:00")], {},
     {}, {(0, "цветом", "not_a_player")}),
    ("R2.2 bold is not a vote by default; the host hears of it", [
        ("post", "doc_Holiday", "Подозреваю [b]Алексей[/b], но голос пока не даю.", "08:12:33"),
        ("fetch", "20:30:00")], {},
     {}, {(0, "Алексей", "bold")}),
    ("R2.2 bold counts with bold_votes = true", [
        ("post", "doc_Holiday", "Подозреваю [b]Алексей[/b].", "08:12:33"),
        ("fetch", "20:30:00")], {"options": RuleOptions(bold_votes=True)},
     {"doc_Holiday": "Алексей"}, set()),
    ("R2.2 a colored vote wrapped in bold counts once, no bold report", [
        ("post", "Big Joe", "[b][color=#FF0000]Алексей[/color][/b] — joining.", "16:25:20"),
        ("fetch", "20:30:00")], {},
     {"Big Joe": "Алексей"}, set()),
    ("R2.3 inflected forms and aliases match", [
        ("post", "Вася", "Я за [color=red]Машу_2[/color]", "10:00:00"),
        ("post", "Маша_2", "А я за [color=blue]Василия[/color]", "10:05:00"),
        ("post", "Алексей", "[color=green]Ёжика в тумане[/color]", "10:10:00"),
        ("fetch", "20:30:00")], {},
     {"Вася": "Маша_2", "Маша_2": "Вася", "Алексей": "Ёжик в тумане"}, set()),
    ("R2.3 a name that could be two players: no vote, the previous vote stands", [
        ("post", "Вася", "[color=red]Big Joe[/color]", "10:00:00"),
        ("post", "Вася", "[color=red]Маш[/color]", "11:00:00"),
        ("fetch", "20:30:00")],
     {"players": PLAYERS + [("Машенька", ())], "alive": NICKS + ["Машенька"]},
     {"Вася": "Big Joe"}, {(1, "Маш", "ambiguous_name")}),
    ("R2.4 two players in one post: no vote, the previous vote stands", [
        ("post", "NightOwl", "[color=red]Big Joe[/color]", "10:00:00"),
        ("post", "NightOwl", "[color=red]Вася[/color] или [color=red]Алексей[/color]?",
         "11:00:00"),
        ("fetch", "20:30:00")], {},
     {"NightOwl": "Big Joe"}, {(1, "Вася", "two_players"), (1, "Алексей", "two_players")}),
    ("R2.4 the same player named twice in one post is one vote", [
        ("post", "NightOwl", "[color=red]Алексей[/color], да, [color=blue]Алексея[/color]!",
         "11:00:00"),
        ("fetch", "20:30:00")], {},
     {"NightOwl": "Алексей"}, set()),
    ("R2.4 option ambiguous_post = last: the last named counts", [
        ("post", "NightOwl", "[color=red]Вася[/color], нет, [color=red]Алексей[/color]",
         "11:00:00"),
        ("fetch", "20:30:00")], {"options": RuleOptions(ambiguous_post="last")},
     {"NightOwl": "Алексей"}, {(0, "Вася", "two_players")}),
    ("R2.5 the latest vote counts", [
        ("post", "NightOwl", "[color=#FF0000]Big Joe[/color]", "8 21:15:40"),
        ("post", "NightOwl", "Меняю голос: [color=#FF0000]Алексей[/color]", "11:52:44"),
        ("fetch", "20:30:00")], {},
     {"NightOwl": "Алексей"}, set()),
    ("R2.8 the host's posts never vote", [
        ("post", "admin", "Голос оформляется [color=#FF0000]Вася[/color] вот так.", "12:30:00"),
        ("fetch", "20:30:00")], {},
     {}, {(0, "Вася", "host_post")}),
    ("R2.8 someone who is not a player", [
        ("post", "Зритель", "[color=red]Вася[/color]", "12:30:00"),
        ("fetch", "20:30:00")], {},
     {}, {(0, "Вася", "not_in_game")}),
    ("R2.8 a dead player's vote does not count", [
        ("post", "Вася", "[color=red]Маша_2[/color]", "12:30:00"),
        ("fetch", "20:30:00")], {"alive": [n for n in NICKS if n != "Вася"]},
     {}, {(0, "Маша_2", "dead_voter")}),
    ("R2.8 R5.4 a frozen player's vote does not count", [
        ("post", "Маша_2", "[color=red]Вася[/color]", "12:30:00"),
        ("fetch", "20:30:00")], {"frozen": ["Маша_2"]},
     {}, {(0, "Вася", "frozen_voter")}),
    ("R2.8 a vote for the dead: not counted, the previous vote stands", [
        ("post", "Маша_2", "[color=red]Big Joe[/color]", "10:30:00"),
        ("post", "Маша_2", "[color=red]Вася[/color]", "12:30:00"),
        ("fetch", "20:30:00")], {"alive": [n for n in NICKS if n != "Вася"]},
     {"Маша_2": "Big Joe"}, {(1, "Вася", "dead_target")}),
    ("R2.8 self-votes count by default", [
        ("post", "Вася", "[color=red]Вася[/color]", "12:30:00"),
        ("fetch", "20:30:00")], {},
     {"Вася": "Вася"}, set()),
    ("R2.8 option self_votes = false", [
        ("post", "Вася", "[color=red]Маша_2[/color]", "11:30:00"),
        ("post", "Вася", "[color=red]Вася[/color]", "12:30:00"),
        ("fetch", "20:30:00")], {"options": RuleOptions(self_votes=False)},
     {"Вася": "Маша_2"}, {(1, "Вася", "self_vote")}),
    ("R2.6 to the second: 19:59:59 counts, 20:00:00 is late", [
        ("post", "Маша_2", "[color=red]NightOwl[/color]", "19:59:59"),
        ("post", "Вася", "[color=red]NightOwl[/color]", "20:00:00"),
        ("fetch", "20:30:00")], {},
     {"Маша_2": "NightOwl"}, {(1, "NightOwl", "late")}),
    ("R2.7 an edit before the deadline counts from the edit's time", [
        ("post", "Игрок-7", "Хм. [color=#FF0000]Вася[/color]", "16:51:37"),
        ("fetch", "16:55:00"),
        ("post", "Игрок-7", "[color=#FF0000]Маша_2[/color]", "16:58:00"),
        ("edit", 0, "Хм. [color=#FF0000]Алексей[/color]", "17:05:12"),
        ("fetch", "20:30:00")], {},
     {"Игрок-7": "Алексей"}, set()),
    ("R2.7 an edit after the deadline changes nothing", [
        ("post", "Вася", "[color=red]Маша_2[/color]", "19:00:00"),
        ("fetch", "19:30:00"),
        ("edit", 0, "[color=red]Big Joe[/color]", "20:05:00"),
        ("fetch", "20:30:00")], {},
     {"Вася": "Маша_2"}, {(0, "Big Joe", "edited_after_deadline")}),
    ("R2.7 edited after the deadline, earlier text never seen: no vote, previous stands", [
        ("post", "Вася", "[color=red]Алексей[/color]", "12:00:00"),
        ("post", "Вася", "[color=red]Маша_2[/color]", "19:00:00"),
        ("edit", 1, "[color=red]Big Joe[/color]", "20:05:00"),
        ("fetch", "20:30:00")], {},
     {"Вася": "Алексей"}, {(1, "Big Joe", "edit_unseen")}),
    ("R2.7 option edited_votes = never", [
        ("post", "Вася", "[color=red]Алексей[/color]", "12:00:00"),
        ("post", "Вася", "[color=red]Маша_2[/color]", "19:00:00"),
        ("edit", 1, "[color=red]Big Joe[/color]", "19:10:00"),
        ("fetch", "20:30:00")], {"options": RuleOptions(edited_votes="never")},
     {"Вася": "Алексей"}, {(1, "Big Joe", "edited_votes_never")}),
    ("R8.1 a dead player after his last word's time", [
        ("post", "Вася", "Последнее слово: [color=red]Маша_2[/color]", "08:00:00"),
        ("post", "Вася", "И ещё: [color=red]Big Joe[/color]", "10:00:00"),
        ("fetch", "20:30:00")],
     {"alive": [n for n in NICKS if n != "Вася"], "last_word_until": {"Вася": t("09:00:00")}},
     {}, {(0, "Маша_2", "dead_voter"), (1, "Big Joe", "dead_after_last_word")}),
    ("deleted before the deadline: not counted, the previous vote stands", [
        ("post", "NightOwl", "[color=red]Big Joe[/color]", "10:00:00"),
        ("post", "NightOwl", "[color=red]Алексей[/color]", "11:00:00"),
        ("fetch", "12:00:00"),
        ("delete", 1),
        ("fetch", "20:30:00")], {"deleted": {1: t("13:00:00")}},
     {"NightOwl": "Big Joe"}, {(1, "Алексей", "deleted_post")}),
    ("deleted after the deadline: counts as it stood", [
        ("post", "NightOwl", "[color=red]Big Joe[/color]", "10:00:00"),
        ("post", "NightOwl", "[color=red]Алексей[/color]", "11:00:00"),
        ("fetch", "19:00:00"),
        ("delete", 1),
        ("fetch", "20:30:00")], {"deleted": {1: t("20:30:00")}},
     {"NightOwl": "Алексей"}, set()),
]


@pytest.mark.parametrize("name, steps, kwargs, expect_votes, expect_rejected", CASES,
                         ids=[c[0] for c in CASES])
def test_vote_rules(boards, name, steps, kwargs, expect_votes, expect_rejected):
    versions, ids = play(boards["absolute"], boards["clock"], steps)
    kwargs = dict(kwargs)
    if "deleted" in kwargs:
        kwargs["deleted"] = {ids[n]: at for n, at in kwargs["deleted"].items()}
    args = dict(players=PLAYERS, alive=NICKS, host="admin", deadline=DEADLINE)
    args.update(kwargs)
    votes, rejected, _notes = extract_votes(versions, **args)
    options = args.get("options", RuleOptions())
    tally = count_votes(votes, alive=args["alive"], frozen=args.get("frozen", ()),
                        self_votes=options.self_votes)
    assert {v.voter: v.target for v in tally.votes} == expect_votes
    back = {pid: n for n, pid in ids.items()}
    assert {(back[r.post_id], r.text, r.reason) for r in rejected} == expect_rejected
    assert not tally.rejected  # extraction already applied R2.8
    for r in rejected:
        assert r.reason in REASONS


def test_r2_7_edit_time_is_the_vote_time(boards):
    """R2.7: the edited vote counts from the edit's time, not from the post's 16:51:37.
    phpBB's edit notice shows the minute (17:05): the edit counts from the minute's end, the
    latest it can have been (issue 40: never before what it follows)."""
    versions, ids = play(boards["absolute"], boards["clock"], [
        ("post", "Игрок-7", "Хм. [color=#FF0000]Вася[/color]", "16:51:37"),
        ("fetch", "16:55:00"),
        ("edit", 0, "Хм. [color=#FF0000]Алексей[/color]", "17:05:12"),
        ("fetch", "20:30:00")])
    votes, _, notes = extract_votes(versions, players=PLAYERS, alive=NICKS, host="admin",
                                    deadline=DEADLINE)
    # every version that held a vote is a vote at its own time (R2.7, R2.13): the first
    # version's vote, then the edit's; the count takes the latest
    assert [(v.target, v.at) for v in votes] == [("Вася", t("16:51:37")),
                                                 ("Алексей", t("17:05:59"))]
    tally = count_votes(votes, alive=NICKS)
    assert [(v.target, v.at) for v in tally.votes] == [("Алексей", t("17:05:59"))]
    (edit,) = notes.edits
    assert (edit.before, edit.after, edit.counted, edit.seen_before) == (
        ("Вася",), ("Алексей",), True, True)
    # as of 17:00 the post still voted Вася, from its post time
    votes, _, _ = extract_votes(versions, players=PLAYERS, alive=NICKS, host="admin",
                                deadline=DEADLINE, as_of=t("17:00:00"))
    assert [(v.target, v.at) for v in votes] == [("Вася", t("16:51:37"))]


def _hand_post(pid, author, when, **kw) -> Post:
    return Post(post_id=pid, author=author, author_id=IDS[author], posted_at=when,
                precision="second", earliest=when, latest=when, **kw)


@pytest.mark.parametrize("where, reason", [("code", "code"), ("signature", "signature"),
                                           ("quote", "quoted"), ("spoiler", "spoiler")])
def test_r2_2_hidden_places_are_reported(where, reason):
    """R2.2: what the parser set aside (phpBB never renders colors inside [code], so that
    place is built by hand) is reported with its place, never counted."""
    p = _hand_post(900, "doc_Holiday", t("13:15:36"),
                   hidden=(Hidden("#008000", "doc_Holiday", where),))
    votes, rejected, _ = extract_votes([(p, t("20:30"))], players=PLAYERS, alive=NICKS,
                                       host="admin", deadline=DEADLINE)
    assert votes == []
    assert [(r.text, r.reason) for r in rejected] == [("doc_Holiday", reason)]


def test_minute_precision_cutoff():
    """R2.6: boards that show minutes only: 19:59 counts, 20:00 does not."""
    def minute_post(pid, author, hhmm, target):
        start = t(hhmm)
        return dataclasses.replace(
            _hand_post(pid, author, start, colored=()), precision="minute",
            earliest=start, latest=start + timedelta(seconds=59),
            colored=(Colored("#FF0000", target),))
    posts = [minute_post(1, "Маша_2", "19:59", "NightOwl"),
             minute_post(2, "Вася", "20:00", "NightOwl")]
    votes, rejected, _ = extract_votes([(p, t("20:30")) for p in posts], players=PLAYERS,
                                       alive=NICKS, host="admin", deadline=DEADLINE)
    assert [(v.voter, v.post_id) for v in votes] == [("Маша_2", 1)]
    assert [(r.post_id, r.reason) for r in rejected] == [(2, "late")]


@pytest.mark.parametrize("color, vote", [
    ("#FF0000", True), ("#ff0000", True), ("red", True), ("darkred", True), ("#f00", True),
    ("blue", True), ("#008000", True), ("navy", True), ("#AA0000", True), ("gray", True),
    ("#000000", False), ("black", False), ("#333333", False), ("#222", False),
    ("#444444", False), ("#3a3a3a", False), ("#1c1c1c", False), ("#101820", False),
    ("inherit", False), ("", False), (None, False), ("rgb(255, 0, 0)", True),
    ("rgb(20,20,20)", False),
])
def test_r2_2_vote_colors(color, vote):
    assert is_vote_color(color, excluded_colors=RuleOptions().excluded_colors) is vote


def test_r2_2_vote_color_options():
    assert is_vote_color("red", vote_colors=("#FF0000",))
    assert not is_vote_color("blue", vote_colors=("#FF0000", "darkred"))
    assert is_vote_color("#8B0000", vote_colors=("#FF0000", "darkred"))
    assert not is_vote_color("green", excluded_colors=("green",))
    # a board whose text is dark blue: that blue is not a vote color there
    assert not is_vote_color("#1E2A5A", text_colors=("#1e2a5a",))
    assert normalize_color("DarkRed") == "#8B0000"


def test_reason_texts_exist_in_both_languages():
    for code, texts in REASONS.items():
        assert texts["ru"] and texts["en"], code
        assert reason_text(code, "ru") == texts["ru"]
    assert reason_text("something_new") == "something_new"


def _relative_post(pid, author, shown_minutes_ago, fetched, target) -> Post:
    """A post as subsilver2 shows it with relative dates: «N минут назад» fetched at
    ``fetched`` means floor((fetched - posted) / 60) = N, i.e. a range of one minute."""
    latest = fetched - timedelta(minutes=shown_minutes_ago)
    earliest = latest - timedelta(seconds=59)
    return Post(post_id=pid, author=author, author_id=IDS[author], posted_at=earliest,
                precision="relative", earliest=earliest, latest=latest,
                colored=(Colored("#FF0000", target),))


def test_r2_6_relative_date_across_the_deadline():
    """R2.6: «35 минут назад» fetched at 20:35:05 may be 19:59:06..20:00:05: it counts only
    when the post was first seen before the deadline; otherwise it is late, host told."""
    fetched = t("20:35:05")
    before = _relative_post(89, "Маша_2", 135, fetched, "Алексей")
    masha = _relative_post(96, "Маша_2", 35, fetched, "NightOwl")
    assert masha.earliest < DEADLINE <= masha.latest
    votes, rejected, _ = extract_votes([(before, fetched), (masha, fetched)], players=PLAYERS,
                                       alive=NICKS, host="admin", deadline=DEADLINE)
    assert {v.voter: v.target for v in count_votes(votes, alive=NICKS).votes} == {
        "Маша_2": "Алексей"}
    assert [(r.post_id, r.reason) for r in rejected] == [(96, "late_unclear")]
    # a poll at 19:59:45 had seen it («менее минуты назад»): it was there before 20:00
    seen_early = dataclasses.replace(masha, earliest=t("19:58:46"), latest=t("19:59:45"),
                                     posted_at=t("19:58:46"))
    votes, rejected, _ = extract_votes(
        [(before, fetched), (seen_early, t("19:59:45")), (masha, fetched)], players=PLAYERS,
        alive=NICKS, host="admin", deadline=DEADLINE)
    assert {v.voter: v.target for v in count_votes(votes, alive=NICKS).votes} == {
        "Маша_2": "NightOwl"}
    assert rejected == []


def test_r2_6_relative_date_clearly_late():
    """R2.6: a relative range wholly at or after the deadline is simply late."""
    fetched = t("20:35:05")
    p = _relative_post(97, "Вася", 34, fetched, "NightOwl")   # 20:00:06..20:01:05
    assert p.earliest >= DEADLINE
    _, rejected, notes = extract_votes([(p, fetched)], players=PLAYERS, alive=NICKS,
                                       host="admin", deadline=DEADLINE)
    assert [(r.post_id, r.reason) for r in rejected] == [(97, "late")]
    assert notes.late_posts == (97,)


def test_r2_8_forum_accounts_decide_who_wrote_a_post():
    """A player is his forum account when the game file gives ``forum_id``: a renamed
    account still votes, another account that took his name does not (not_in_game)."""
    from scraper_mod.rules.model import Player
    players = [Player(nick=n, forum_id=IDS[n]) for n in NICKS]
    renamed = dataclasses.replace(
        _hand_post(1, "Вася", t("10:00:00"), colored=(Colored("red", "Маша_2"),)),
        author="Василий Петрович")
    impostor = dataclasses.replace(
        _hand_post(2, "Вася", t("11:00:00"), colored=(Colored("red", "Big Joe"),)),
        author_id=999)
    votes, rejected, notes = extract_votes([(renamed, t("20:30")), (impostor, t("20:30"))],
                                           players=players, alive=NICKS, host="admin",
                                           deadline=DEADLINE)
    assert [(v.voter, v.target) for v in votes] == [("Вася", "Маша_2")]
    assert [(r.post_id, r.reason) for r in rejected] == [(2, "not_in_game")]
    assert any("forum user id 999" in n for n in notes.notes)


def test_r2_7_an_unseen_edit_between_two_versions_is_reported():
    """phpBB shows only the last edit: a jump in the edit count means an edit nobody saw."""
    v0 = _hand_post(5, "Вася", t("19:00:00"), colored=(Colored("red", "Маша_2"),))
    v2 = dataclasses.replace(v0, colored=(Colored("red", "Big Joe"),), edit_count=2,
                             edited_at=t("20:20:00"))
    votes, _, notes = extract_votes([(v0, t("19:30")), (v2, t("20:30"))], players=PLAYERS,
                                    alive=NICKS, host="admin", deadline=DEADLINE)
    assert [(v.voter, v.target) for v in votes] == [("Вася", "Маша_2")]
    assert any("an edit was never seen" in n for n in notes.notes)
