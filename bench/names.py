"""Names bench: what the dictionary of Russian word forms (pymorphy3, issue 12) costs.

Usage::

    python bench/names.py            # full run (a few seconds)
    python bench/names.py --quick    # fewer rounds: timing targets reported, not enforced

Two figures, each against the same work without the dictionary, measured in the same run:

* per nick: building the name index of a 12-player game (the fixture's kinds of nicks: Russian
  words, names, Latin, mixed) with ``inflect`` from ``scraper_mod.morphology`` against the
  hand-written declension alone, divided by the number of nicks. The dictionary's look-ups are
  paid once per nick per process (the index is shared by every day of a game). Target: at most
  5 ms more per nick, cold cache (the first game of a process), so a 30-player game pays
  < 0.15 s once.
* a 1,000-post day: ``extract_votes`` over 1,000 posts (a third of them votes, written in
  inflected forms) with an index built with the dictionary, against one built without:
  matching is a dictionary look-up either way, so the target is <= 1.10x.

The dictionary's load (once per process) is printed as context.
"""

from __future__ import annotations

import random
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import CannotRun, Report, arg_parser, fmt_s, interleaved, main_wrapper, need  # noqa: E402

MSK = ZoneInfo("Europe/Moscow")
NICKS = ["Заяц", "Лев", "Боец", "Мать", "Дочь", "Лёд", "Вася", "Маша_2", "Big Joe",
         "Ёжик в тумане", "Светлана", "NightOwl"]
# how players write a vote for each (inflected where Russian)
WRITTEN = {"Заяц": "Зайца", "Лев": "Льва", "Боец": "Бойца", "Мать": "Мать", "Дочь": "Дочь",
           "Лёд": "Лёд", "Вася": "Васю", "Маша_2": "Машу_2", "Big Joe": "Big Joe",
           "Ёжик в тумане": "Ёжика в тумане", "Светлана": "Светлану", "NightOwl": "NightOwl'а"}


def run(args, report: Report) -> None:
    names = need("scraper_mod.rules.names", "the name index (rules/names.py)")
    votes = need("scraper_mod.rules.votes", "the vote extraction (rules/votes.py)")
    model = need("scraper_mod.forum.model", "the post model")
    try:
        morphology = need("scraper_mod.morphology", "the pymorphy3 adapter")
        t0 = time.perf_counter()
        morphology._analyzer()
        load = time.perf_counter() - t0
    except Exception as e:  # noqa: BLE001 - the dictionary package missing or broken
        raise CannotRun(f"pymorphy3 or its Russian dictionary cannot load: {e}") from None
    report.info(f"pymorphy3 dictionary load, once per process: {fmt_s(load)}")
    players = [(n, ()) for n in NICKS]

    # --- per nick, cold cache: every round clears the adapter's cache
    def with_dictionary():
        morphology.inflect.cache_clear()
        names.NameIndex(players, inflect=morphology.inflect)

    def without():
        names.NameIndex(players)
    repeat = 3 if args.quick else 15
    t = interleaved({"with": with_dictionary, "without": without}, repeat=repeat)
    extra = (t["with"] - t["without"]) / len(NICKS)
    report.add("per_nick", f"index build {fmt_s(t['with'] / len(NICKS))} per nick with the "
               f"dictionary, {fmt_s(t['without'] / len(NICKS))} without: +{fmt_s(extra)} per "
               f"nick ({t['with'] / t['without']:.1f}x)", ratio=t["with"] / t["without"],
               target="<= 5 ms per nick", ok=extra <= 0.005, value=extra, unit="s",
               baseline=t["without"] / len(NICKS))

    # --- a 1,000-post day
    rng = random.Random(12)
    deadline = datetime(2024, 3, 15, 20, 0, tzinfo=MSK)
    start = deadline - timedelta(hours=23)
    posts = []
    for i in range(1000):
        at = start + timedelta(seconds=i * 80)
        author = rng.choice(NICKS)
        colored = ()
        if rng.random() < 0.33:
            colored = (model.Colored("#FF0000", WRITTEN[rng.choice(NICKS)]),)
        p = model.Post(post_id=1000 + i, author=author, author_id=None, posted_at=at,
                       precision="second", earliest=at, latest=at, colored=colored,
                       text="болтовня " * 10)
        posts.append((p, at))
    ix_with = names.NameIndex(players, inflect=morphology.inflect)
    ix_without = names.NameIndex(players)

    def day(ix):
        ix.match.cache_clear()
        return votes.extract_votes(posts, players=players, alive=NICKS, host="admin",
                                   deadline=deadline, index=ix, lang="ru")
    counted_with = len(day(ix_with)[0])
    counted_without = len(day(ix_without)[0])
    report.info(f"votes counted on the 1,000-post day: {counted_with} with the dictionary, "
                f"{counted_without} without (Зайца, Льва, Бойца name nobody without it)")
    t = interleaved({"with": lambda: day(ix_with), "without": lambda: day(ix_without)},
                    repeat=3 if args.quick else 10)
    ratio = t["with"] / t["without"]
    report.add("day_1000_posts", f"extract_votes over 1,000 posts {fmt_s(t['with'])} with the "
               f"dictionary's index, {fmt_s(t['without'])} without: {ratio:.2f}x",
               ratio=ratio, target="<= 1.10x", ok=ratio <= 1.10, value=t["with"], unit="s",
               baseline=t["without"])


if __name__ == "__main__":
    main_wrapper("names", run, arg_parser(__doc__))
