"""Web page bench: the host's page of a big day renders from the store in under 200 ms.

Usage::

    python bench/web_page.py             # 30 players, 2,000 posts, 150 moves by mail
    python bench/web_page.py --quick     # 20 players, 300 posts, 40 moves
    python bench/web_page.py --profile   # also where the page's time goes

The game: one day topic of 2,000 posts by 30 players (parsed by the real parser from
LocalBoard's phpBB 3.3.15 pages and stored as ``poll`` stores them, with votes changing all
day) and 150 night-move letters (the Doctor, the Commissar, the mafia and the Maniac changing
their minds; civilians sending moves they cannot make; a stranger), half an hour before the
deadline.

Figures (each the best of several rounds, interleaved):

* ``read`` (the baseline): open the game and read what the page reads from the store — every
  post version of the topic and every stored letter;
* ``page``: ``GET /games/NAME`` through the app (Flask's test client, no socket): the count,
  its history drawn as SVG, the alerts, the night moves judged (for the unknown senders),
  the days, the template. Target: under 200 ms; printed as a ratio to ``read``;
* ``api_tally``, ``secret`` and ``page_cold`` (no target): the live count the page fetches
  every few seconds, the moves after the host's click, and the page as a new server's first
  answer (each server thread keeps its games open, so later pages reuse the decoded letters).
"""

from __future__ import annotations

import random
import shutil
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import CannotRun, Report, arg_parser, fmt_s, interleaved, main_wrapper, need  # noqa: E402
from _synth import TopicWriter, game_players, game_toml, move_mail  # noqa: E402
from replay import PER_PAGE, _store_pages  # noqa: E402

TARGET_MS = 200.0
TOKEN = "bench"


def _move_letters(rng: random.Random, players, alive: list[str], n: int) -> list[tuple]:
    """``n`` (sender, text) letters: real moves re-sent with new targets, and noise."""
    by_role = {}
    for p in players:
        by_role.setdefault(p.role, []).append(p)
    civilians = by_role["civilian"]
    out = []
    for i in range(n):
        target = rng.choice(alive)
        kind = i % 6
        if kind == 0:
            out.append((by_role["doctor"][0], f"лечу {target}"))
        elif kind == 1:
            out.append((by_role["commissar"][0], f"проверить {target}"))
        elif kind == 2:
            out.append((by_role["mafia"][0], f"убить {target}"))
        elif kind == 3:
            out.append((by_role["maniac"][0], f"убить {target}"))
        elif kind == 4:
            out.append((rng.choice(civilians), f"проверяю {target}"))   # a move they cannot make
        else:
            out.append((by_role["boss"][0], f"заморозить {target}"))
    return out


def build_game(folder: Path, *, players_n: int, posts: int, moves: int, seed: int = 17) -> dict:
    """Write game.toml and state.sqlite3 under ``folder``: day 1's topic and its letters."""
    lb = need("scraper_mod.demo.localboard", "LocalBoard renders the pages")
    parser = need("scraper_mod.forum.phpbb.parse", "the parser stores the versions")
    poller = need("scraper_mod.forum.poller", "canonical_topic_url")
    from scraper_mod.game.context import open_game

    rng = random.Random(seed)
    players = game_players(players_n)
    nicks = [p.nick for p in players]
    (folder / "moves").mkdir(parents=True)
    order = rng.sample(nicks, len(nicks))          # the random list
    board = lb.LocalBoard(language="ru", per_page=PER_PAGE).start()
    try:
        tid = board.add_topic("День 1 — голосование")
        url = board.topic_url(tid)
        (folder / "game.toml").write_text(game_toml(
            title="Бенч: страница", start="2024-03-04", players=players, random_list=order,
            forum_url=board.url, topics={1: url}, min_delay=0), encoding="utf-8")
        ctx = open_game(folder)
        cal, store = ctx.calendar(), ctx.store
        opens, deadline = cal.day_start(1), cal.deadline(1)
        writer = TopicWriter(rng, nicks, next_id=10_000,
                             user_ids={p.nick: p.forum_id for p in players})
        written = writer.day(1, opens=opens, closes=deadline - timedelta(minutes=40),
                             alive=nicks, posts=posts)
        for p in written:
            board.add_post(p.author, p.author_id, p.bbcode, p.posted_at, topic=tid,
                           post_id=p.post_id)
        store.db.execute("BEGIN")
        versions = _store_pages(board, parser, store, tid, poller.canonical_topic_url(url),
                                deadline - timedelta(minutes=35),
                                range(-(-len(written) // PER_PAGE)))
        source = f"maildir:{(folder / 'moves').absolute()}"
        stranger = type(players[0])("Чужой", "civilian", "stranger@example.net", 999)
        letters = _move_letters(rng, players, nicks, moves - 1) + [(stranger, "убить Васю")]
        for i, (sender, text) in enumerate(letters):
            at = opens + timedelta(minutes=6 * i + 1)
            store.add_message(source, f"1-{i}", move_mail(sender, text, at, n=100 + i),
                              received_at=at, stored_at=at + timedelta(seconds=30))
        store.db.execute("COMMIT")
        ctx.close()
    finally:
        board.stop()
    return {"posts": len(written), "versions": versions, "letters": len(letters),
            "at": deadline - timedelta(minutes=30)}


def run(args, report: Report) -> None:
    players_n, posts, moves = (20, 300, 40) if args.quick else (30, 2000, 150)
    tmp = Path(tempfile.mkdtemp(prefix="scraper-mod-bench-web-"))
    try:
        folder = tmp / "big"
        t0 = time.perf_counter()
        facts = build_game(folder, players_n=players_n, posts=posts, moves=moves)
        report.info(f"{players_n} players, {facts['posts']} posts ({facts['versions']} stored "
                    f"versions), {facts['letters']} move letters; set-up "
                    f"{time.perf_counter() - t0:.1f} s")
        measure(folder, facts, report, quick=args.quick, profile=args.profile)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def measure(folder: Path, facts: dict, report: Report, *, quick: bool, profile: bool) -> None:
    from scraper_mod.clock import FakeClock
    from scraper_mod.game.context import open_game
    from scraper_mod.web import create_app

    app = create_app(folder, token=TOKEN, clock=FakeClock(facts["at"]))
    c = app.test_client()
    c.get(f"/?token={TOKEN}")
    name = folder.name

    def read():
        ctx = open_game(folder)
        n = len(ctx.store.post_versions()) + len(ctx.store.messages())
        ctx.close()
        return n

    def get(url: str, must: str):
        def fn():
            r = c.get(url)
            if r.status_code != 200 or must not in r.get_data(as_text=True):
                raise CannotRun(f"{url}: {r.status_code} {r.get_data(as_text=True)[:300]}")
        return fn

    page = get(f"/games/{name}", 'class="series"')

    def page_cold():
        """A server's first request: the game opened, its letters decoded."""
        fresh = create_app(folder, token=TOKEN, clock=FakeClock(facts["at"])).test_client()
        fresh.get(f"/?token={TOKEN}")
        if fresh.get(f"/games/{name}").status_code != 200:
            raise CannotRun("the page of a fresh server failed")

    fns = {"read": read, "page": page, "api_tally": get(f"/api/games/{name}/tally?day=1",
                                                         '"counts"'),
           "secret": get(f"/api/games/{name}/secret?day=1", '"awaiting"'),
           "page_cold": page_cold}
    best = interleaved(fns, repeat=3 if quick else 7)
    base = best["read"]
    report.add("read", f"reading the store: {fmt_s(base)} (the baseline)", value=base, unit="s")
    ms = best["page"] * 1000
    report.add("page", f"the game's page: {fmt_s(best['page'])} = {best['page'] / base:.1f}× "
                       f"reading the store", ratio=best["page"] / base, value=best["page"],
               unit="s", baseline=base, target=f"< {TARGET_MS:.0f} ms", ok=ms < TARGET_MS)
    for k, what in (("api_tally", "the live count (/api/.../tally)"),
                    ("secret", "the moves after the click (/api/.../secret)"),
                    ("page_cold", "the page as a new server's first answer")):
        report.add(k, f"{what}: {fmt_s(best[k])} = {best[k] / base:.1f}× reading the store",
                   ratio=best[k] / base, value=best[k], unit="s", baseline=base)
    if profile:
        import cProfile
        import pstats
        prof = cProfile.Profile()
        prof.runcall(page)
        st = pstats.Stats(prof).strip_dirs()
        st.sort_stats("cumulative").print_stats(30)


def main() -> None:
    p = arg_parser(__doc__)
    p.add_argument("--profile", action="store_true", help="show where the page's time goes")
    main_wrapper("web_page", run, p)


if __name__ == "__main__":
    main()
