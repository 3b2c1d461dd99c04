"""The game file (docs/game-file.md): loading, defaults and every validation error.

Each bad file gives one clear line naming the file and the key, through the CLI too (exit 1,
``error: ...``), never a traceback.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from datetime import date, datetime, time
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from qa_game import copy_game, edit, without_root_powers

from scraper_mod.cli import main
from scraper_mod.errors import ConfigError
from scraper_mod.game.setup.config import load_game
from scraper_mod.rules.model import Role, RuleOptions

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "games" / "day1" / "game.toml"
MINIMAL = '[game]\nstart = 2024-04-08\n'
PLAYERS = '[[players]]\nnick = "Вася"\nrole = "boss"\n[[players]]\nnick = "Маша_2"\n'


def load_text(tmp_path: Path, text: str):
    (tmp_path / "game.toml").write_text(text, encoding="utf-8")
    return load_game(tmp_path)


def test_fixture_game_loads_with_everything():
    g = load_game(FIXTURE.parent)
    assert g.title == "Игра 2" and g.timezone == ZoneInfo("Europe/Moscow")
    assert g.start == date(2024, 4, 8) and g.host == "admin"
    assert [p.nick for p in g.players] == ["Вася", "Маша_2", "Big Joe", "Алексей", "NightOwl",
                                           "Игрок-7", "Ёжик в тумане", "doc_Holiday"]
    assert g.player("Ёжик в тумане").role is Role.VSB and g.duty == "Big Joe"
    assert g.day(1).topic == "http://127.0.0.1/viewtopic.php?t=4"
    assert g.random_list[0] == "NightOwl" and g.moves.source == "maildir"
    assert g.player("Вася").forum_id == 58


def test_defaults(tmp_path):
    """CONTRACT defaults: Moscow, 21:00 / 20:00, weekends merged, Russian, default rules."""
    g = load_text(tmp_path, MINIMAL)
    assert g.timezone == ZoneInfo("Europe/Moscow")
    assert (g.day_start, g.deadline) == (time(21, 0), time(20, 0))
    assert g.language == "ru" and g.rules == RuleOptions() and g.rules.merge_weekends
    assert g.players == () and g.days == () and g.random_list is None
    assert g.state_path == tmp_path / "state.sqlite3" and g.out_dir == tmp_path / "out"


def test_rule_options_and_moved_deadline(tmp_path):
    """R1.3, R1.4, R3.3 and other options are read from [rules] and [[days]]."""
    g = load_text(tmp_path, MINIMAL + 'merge_weekends = false\n'
                  '[rules]\ntie_scope = "tied_only"\nweekend_days = ["Sat", "sun"]\n'
                  'doctor_self_heals = 2\ncheck_result = "binary"\n'
                  '[[days]]\nnumber = 2\ndeadline = 2024-04-11T20:00:00\n')
    assert g.rules.tie_scope == "tied_only" and g.rules.weekend_days == ("sat", "sun")
    assert not g.rules.merge_weekends and g.rules.doctor_self_heals == 2
    assert g.day(2).deadline == datetime(2024, 4, 11, 20, 0, tzinfo=ZoneInfo("Europe/Moscow"))


BAD = [
    # (game.toml text, key named, words of the message)
    ("[game]\nstart = 2024-04-08\nstart2 = 1\n", "game.start2", "unknown key"),
    ("foo = 1\n" + MINIMAL, "foo", "unknown key"),
    ("game = 5\n", "game", "must be a table"),
    ("[game]\ntitle = 1\n", "game.title", "must be a string"),
    ("[game]\n", "game.start", "missing"),
    ('[game]\nstart = "14.03.2024"\n', "game.start", "must be a date"),
    ("[game]\nstart = 2024-04-08T21:00:00\n", "game.start", "must be a date"),
    (MINIMAL + 'timezone = "Mars/Olympus"\n', "game.timezone", "unknown time zone"),
    (MINIMAL + 'timezone = ""\n', "game.timezone", "unknown time zone"),
    (MINIMAL + 'deadline = "8pm"\n', "game.deadline", "HH:MM"),
    (MINIMAL + 'deadline = "24:00"\n', "game.deadline", "HH:MM"),
    (MINIMAL + 'day_start = 21\n', "game.day_start", "HH:MM"),
    (MINIMAL + 'language = "de"\n', "game.language", "must be"),
    (MINIMAL + 'merge_weekends = "yes"\n', "game.merge_weekends", "true or false"),
    (MINIMAL + 'host = "Вася"\n' + PLAYERS, "game.host", "also a player"),
    (MINIMAL + "players = 5\n", "game.players", "unknown key"),
    ("players = 5\n" + MINIMAL, "players", "array of tables"),
    ("players = [1]\n" + MINIMAL, "players[1]", "must be a table"),
    (MINIMAL + '[[players]]\nrole = "boss"\n', "players[1].nick", "missing"),
    (MINIMAL + '[[players]]\nnick = "  "\n', "players[1].nick", "missing or empty"),
    (MINIMAL + '[[players]]\nnick = 7\n', "players[1].nick", "must be a string"),
    (MINIMAL + '[[players]]\nnick = "Вася"\nrole = "wizard"\n', "players[1].role",
     "unknown role 'wizard'"),
    (MINIMAL + '[[players]]\nnick = "Вася"\nsecret = 1\n', "players[1].secret", "unknown key"),
    (MINIMAL + '[[players]]\nnick = "Вася"\n[[players]]\nnick = "вася"\n', "players[2].nick",
     "duplicate nick"),
    (MINIMAL + '[[players]]\nnick = "Вася"\naliases = ["Маша"]\n[[players]]\nnick = "Маша"\n',
     "players[2].nick", "duplicate nick or alias"),
    (MINIMAL + '[[players]]\nnick = "Вася"\naliases = "Василий"\n', "players[1].aliases",
     "list of strings"),
    (MINIMAL + '[[players]]\nnick = "Вася"\nalive = "no"\n', "players[1].alive",
     "true or false"),
    (MINIMAL + '[[players]]\nnick = "Вася"\nforum_id = "58"\n', "players[1].forum_id",
     "whole number"),
    (MINIMAL + '[[players]]\nnick = "A"\nrole = "commissar"\n[[players]]\nnick = "B"\n'
     'role = "commissar"\n', "players", "2 players have the role commissar"),
    (MINIMAL + 'random_list = ["Вася"]\n' + PLAYERS, "game.random_list", "every player"),
    (MINIMAL + 'random_list = ["Вася", 2]\n' + PLAYERS, "game.random_list", "every player"),
    (MINIMAL + PLAYERS + '[mafia]\nduty = "Петя"\n', "mafia.duty", "not a player"),
    (MINIMAL + PLAYERS.replace('"boss"', '"doctor"') + '[mafia]\nduty = "Вася"\n',
     "mafia.duty", "not a mafioso"),
    (MINIMAL + PLAYERS + '[mafia]\nboss = "Вася"\n', "mafia.boss", "unknown key"),
    (MINIMAL + "mafia = 1\n", "game.mafia", "unknown key"),
    ("mafia = 1\n" + MINIMAL, "mafia", "must be a table"),
    (MINIMAL + '[rules]\ntie_scope = "everyone"\n', "rules.tie_scope", "all_alive, tied_only"),
    (MINIMAL + '[rules]\ncheck_result = "maybe"\n', "rules.check_result", "exact, binary"),
    (MINIMAL + '[rules]\nambiguous_post = "first"\n', "rules.ambiguous_post", "none, last"),
    (MINIMAL + '[rules]\nedited_votes = "always"\n', "rules.edited_votes", "versions, never"),
    (MINIMAL + '[rules]\nself_votes = 1\n', "rules.self_votes", "true or false"),
    (MINIMAL + '[rules]\ndoctor_self_heals = -1\n', "rules.doctor_self_heals", "out of range"),
    (MINIMAL + '[rules]\ndoctor_self_heals = 1.5\n', "rules.doctor_self_heals", "whole number"),
    (MINIMAL + '[rules]\nlast_word_hours = 1000\n', "rules.last_word_hours", "out of range"),
    (MINIMAL + '[rules]\nweekend_days = "sat"\n', "rules.weekend_days", "list of strings"),
    (MINIMAL + '[rules]\nweekend_days = ["saturday"]\n', "rules.weekend_days",
     "unknown weekday 'saturday'"),
    (MINIMAL + '[rules]\nweekend_days = ["mon","tue","wed","thu","fri","sat","sun"]\n',
     "rules.weekend_days", "every day of the week"),
    (MINIMAL + '[rules]\nlynch_later = true\n', "rules.lynch_later", "unknown key"),
    ("days = [1]\n" + MINIMAL, "days[1]", "must be a table"),
    ("days = 1\n" + MINIMAL, "days", "array of tables"),
    (MINIMAL + '[[days]]\ntopic = "http://x/viewtopic.php?t=4"\n', "days[1].number",
     "day number"),
    (MINIMAL + '[[days]]\nnumber = 0\n', "days[1].number", "day number from 1"),
    (MINIMAL + '[[days]]\nnumber = "1"\n', "days[1].number", "whole number"),
    (MINIMAL + '[[days]]\nnumber = 1\n[[days]]\nnumber = 1\n', "days[2].number", "twice"),
    (MINIMAL + '[[days]]\nnumber = 1\ntopic = 4\n', "days[1].topic", "must be a string"),
    (MINIMAL + '[[days]]\nnumber = 1\ndeadline = 2024-04-09\n', "days[1].deadline",
     "date and time"),
    (MINIMAL + '[[days]]\nnumber = 1\ndeadline = "tomorrow"\n', "days[1].deadline",
     "date and time"),
    (MINIMAL + '[[days]]\nnumber = 1\nnote = "x"\n', "days[1].note", "unknown key"),
    (MINIMAL + '[forum]\nmin_delay = "x"\n', "forum.min_delay", "must be a number"),
    (MINIMAL + '[forum]\nmin_delay = -1\n', "forum.min_delay", ">= 0"),
    (MINIMAL + '[forum]\ntimeout = 0\n', "forum.timeout", "> 0"),
    (MINIMAL + '[forum]\nretries = 50\n', "forum.retries", "0 to 20"),
    (MINIMAL + '[forum]\nurl = 5\n', "forum.url", "must be a string"),
    (MINIMAL + '[forum]\ntitle_pattern = "День ("\n', "forum.title_pattern",
     "regular expression"),
    (MINIMAL + '[forum]\npassword = "x"\n', "forum.password", "unknown key"),
    (MINIMAL + '[moves]\nsource = "pigeon"\n', "moves.source", "maildir, imap, queue"),
    (MINIMAL + '[moves]\nsource = "imap"\n', "moves.host", "IMAP server"),
    (MINIMAL + '[moves]\nsecurity = "tls"\n', "moves.security", "ssl, starttls or none"),
    (MINIMAL + '[moves]\nport = "993"\n', "moves.port", "whole number"),
    (MINIMAL + '[moves]\nrequire_code = "yes"\n', "moves.require_code", "true or false"),
    (MINIMAL + '[moves]\npassword = "x"\n', "moves.password", "unknown key"),
    (MINIMAL + '[schedule]\npoll_minutes = "often"\n', "schedule.poll_minutes", ">= 0"),
    (MINIMAL + '[schedule]\npoll_minutes = -5\n', "schedule.poll_minutes", ">= 0"),
    (MINIMAL + '[schedule]\nhourly = 1\n', "schedule.hourly", "unknown key"),
    (MINIMAL + '[deal]\nwizard = 1\n', "deal.wizard", "unknown role"),
    (MINIMAL + '[deal]\nmafia = -1\n', "deal.mafia", "count >= 0"),
    (MINIMAL + '[deal]\nmafia = "two"\n', "deal.mafia", "count >= 0"),
]


@pytest.mark.parametrize("text,key,words", BAD, ids=[f"{b[1]}:{b[2]}" for b in BAD])
def test_bad_game_file_names_key(tmp_path, text, key, words):
    with pytest.raises(ConfigError) as e:
        load_text(tmp_path, text)
    msg = str(e.value)
    assert msg.startswith(f"{tmp_path / 'game.toml'}: {key}: "), msg
    assert words in msg and "\n" not in msg
    assert e.value.key == key


@pytest.mark.parametrize("text,key,words", BAD[::6], ids=[f"cli-{b[1]}" for b in BAD[::6]])
def test_bad_game_file_through_cli_is_one_line(tmp_path, capsys, text, key, words):
    """Through the CLI: exit 1, one ``error:`` line naming the key, no traceback."""
    (tmp_path / "game.toml").write_text(text, encoding="utf-8")
    assert main(["deal", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    # issue 39: a Russian game's line is Russian where the message has a Russian text
    assert err.startswith(("error: ", "ошибка: ")) and f"{key}: " in err
    assert words in err or err.startswith("ошибка: "), err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_not_toml_and_not_utf8_and_missing(tmp_path):
    with pytest.raises(ConfigError, match=r"game\.toml: not valid TOML"):
        load_text(tmp_path, "[game\n")
    (tmp_path / "game.toml").write_bytes(b"[game]\ntitle = \"\xcc\xe0\xf4\xe8\xff\"\n")
    with pytest.raises(ConfigError, match="cannot read"):
        load_game(tmp_path)
    with pytest.raises(ConfigError, match="no such game file"):
        load_game(tmp_path / "elsewhere")


def test_game_file_path_or_folder(tmp_path):
    shutil.copy(FIXTURE, tmp_path / "game.toml")
    assert load_game(tmp_path).path == load_game(tmp_path / "game.toml").path


def test_r9_1_vote_table_layout_option(tmp_path):
    """R9.1: the vote table layout is a [rules] option with three values."""
    from scraper_mod.errors import ConfigError
    from scraper_mod.game.setup.config import load_game
    base = '[game]\nstart = 2024-03-14\n[rules]\nvote_table = "{}"\n'
    f = tmp_path / "game.toml"
    f.write_text(base.format("code"), encoding="utf-8")
    assert load_game(f).rules.vote_table == "code"
    f.write_text(base.format("grid"), encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        load_game(f)
    assert "rules.vote_table" in str(e.value) and "list, code, table" in str(e.value)


def test_smtp_security_and_username_are_moves_keys(tmp_path):
    f = tmp_path / "game.toml"
    f.write_text('[game]\nstart = 2024-03-14\n[moves]\nsource = "maildir"\nsmtp_host = "mx"\n'
                 'smtp_security = "starttls"\nsmtp_username = "host"\n', encoding="utf-8")
    g = load_game(f)
    assert (g.moves.smtp_security, g.moves.smtp_username) == ("starttls", "host")
    f.write_text('[game]\nstart = 2024-03-14\n[moves]\nsmtp_security = "tls13"\n',
                 encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        load_game(f)
    assert "moves.smtp_security" in str(e.value)


@pytest.mark.parametrize("key", ["poll_minutes", "final_poll_minutes"])
def test_polling_without_pause_is_refused(tmp_path, key):
    f = tmp_path / "game.toml"
    f.write_text(f'[game]\nstart = 2024-03-14\n[schedule]\n{key} = 0\n', encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        load_game(f)
    assert f"schedule.{key}" in str(e.value) and "0.01" in str(e.value)
    f.write_text(f'[game]\nstart = 2024-03-14\n[schedule]\n{key} = 0.01\n', encoding="utf-8")
    assert getattr(load_game(f).schedule, key) == 0.01


# R2.3: nicks and aliases are compared folded exactly as votes are matched, so two entries a
# vote could not tell apart are refused, and the error names both (file, both keys, both names).
CLASHES = [
    # (players, the later entry's key, the later name, the earlier entry's key, earlier name)
    ('[[players]]\nnick = "Игрок-7"\n[[players]]\nnick = "Игрок 7"\n',
     "players[2].nick", "Игрок 7", "players[1].nick", "Игрок-7"),
    ('[[players]]\nnick = "Вася"\n[[players]]\nnick = "Bacя"\n',          # Latin B, a, c
     "players[2].nick", "Bacя", "players[1].nick", "Вася"),
    ('[[players]]\nnick = "Ёжик в тумане"\n[[players]]\nnick = "Лиса"\n'
     'aliases = ["ежик_в_тумане"]\n',
     "players[2].aliases[1]", "ежик_в_тумане", "players[1].nick", "Ёжик в тумане"),
    ('[[players]]\nnick = "Кот"\naliases = ["Big Joe"]\n[[players]]\nnick = "BigJoe"\n',
     "players[2].nick", "BigJoe", "players[1].aliases[1]", "Big Joe"),
]


@pytest.mark.parametrize("players,key,name,other_key,other", CLASHES,
                         ids=[c[2] for c in CLASHES])
def test_r2_3_folded_duplicate_nicks_are_refused_naming_both(tmp_path, players, key, name,
                                                             other_key, other):
    with pytest.raises(ConfigError) as e:
        load_text(tmp_path, MINIMAL + players)
    msg = str(e.value)
    assert msg.startswith(f"{tmp_path / 'game.toml'}: {key}: duplicate nick or alias "), msg
    assert repr(name) in msg and f"{other_key} {other!r}" in msg and "\n" not in msg


def test_r2_3_a_player_may_list_a_folded_form_of_his_own_nick(tmp_path):
    g = load_text(tmp_path, MINIMAL + '[[players]]\nnick = "Big Joe"\naliases = ["BigJoe"]\n'
                  '[[players]]\nnick = "Маша_2"\n')
    assert [p.nick for p in g.players] == ["Big Joe", "Маша_2"]


@pytest.mark.parametrize("nick, key, code", [
    ("Вася\\nВторая строка", "players[1].nick", "U+000A"),
    ("\\u202eаксаМ", "players[1].nick", "U+202E"),
])
def test_control_and_bidi_characters_in_nicks_are_refused(tmp_path, nick, key, code):
    """Issue 18 item 10: a newline split a line of the newspaper's list, U+202E turned the
    rest of the line around in browsers; both are refused at load, naming the key."""
    with pytest.raises(ConfigError) as e:
        load_text(tmp_path, MINIMAL + f'[[players]]\nnick = "{nick}"\n')
    assert e.value.key == key and code in str(e.value)


def test_a_bidi_control_in_an_alias_is_refused_and_a_plain_nick_loads(tmp_path):
    with pytest.raises(ConfigError) as e:
        load_text(tmp_path, MINIMAL + '[[players]]\nnick = "Кот"\naliases = ["Ко\\u200fт"]\n')
    assert e.value.key == "players[1].aliases[1]" and "U+200F" in str(e.value)
    g = load_text(tmp_path, MINIMAL + '[[players]]\nnick = "Ёжик в тумане"\n')
    assert g.players[0].nick == "Ёжик в тумане"


# -- the QA pass: config --------------------------------------------------------------------------
# QA: a broken game.toml or game folder is one clear error naming the file and the key.


TOPIC = 'topic = "http://127.0.0.1/viewtopic.php?t=4"'


@pytest.fixture
def game(tmp_path) -> Path:
    return copy_game(tmp_path)



@pytest.mark.parametrize("old, new, key, message", [
    (TOPIC, 'topic = "день первый"', "days[1].topic", "not a web address: 'день первый'"),
    (TOPIC, 'topic = "ftp://127.0.0.1/viewtopic.php?t=4"', "days[1].topic",
     "not a web address"),
    (TOPIC, 'topic = "http://127.0.0.1/viewforum.php?f=2"', "days[1].topic",
     "not a phpBB topic address"),
    (TOPIC, 'topic = "http://127.0.0.1/viewtopic.php?t=abc"', "days[1].topic",
     "not a phpBB topic address"),
    ('url = "http://127.0.0.1/"', 'url = "forum.example.org"', "forum.url",
     "not a web address: 'forum.example.org'"),
    ('url = "http://127.0.0.1/"', 'url = "http://127.0.0.1/"\nforum = "viewforum.php?f=3"',
     "forum.forum", "not a web address"),
    ('path = "moves"', 'path = "moves"\nport = 99999', "moves.port", "from 1 to 65535"),
    ('path = "moves"', 'path = "moves"\nsmtp_port = 0', "moves.smtp_port", "from 1 to 65535"),
])
def test_bad_addresses_name_the_key(game, old, new, key, message):
    """A topic that is no URL used to pass the loader and fail later at the poller, without
    naming game.toml; a port out of range reached the socket."""
    edit(game, old, new)
    with pytest.raises(ConfigError) as e:
        load_game(game)
    assert e.value.key == key and e.value.path == str(game / "game.toml")
    assert message in str(e.value)


@pytest.mark.parametrize("url", ["http://127.0.0.1/viewtopic.php?t=4",
                                 "https://forum.example.org/phpBB3/viewtopic.php?f=2&t=123",
                                 "https://forum.example.org/viewtopic.php?t=123&start=25"])
def test_good_topic_addresses_load(game, url):
    edit(game, TOPIC, f'topic = "{url}"')
    assert load_game(game).day(1).topic == url


def test_a_game_path_that_cannot_be_looked_at(tmp_path, capsys):
    """os.stat failing with something other than "no such file" (here a name too long for
    the file system) was a traceback out of Path.exists()."""
    code = main(["tally", str(tmp_path / ("и" * 300)), "--offline"])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert err.startswith("ошибка: ") and err.count("\n") == 1    # issue 39: Russian only
    assert "не читается" in err



def test_a_game_folder_without_permission(game):
    os.chmod(game, 0)
    try:
        p = subprocess.run(without_root_powers(
            [sys.executable, "-m", "scraper_mod", "tally", str(game), "--offline", "--day", "1"]),
            capture_output=True, text=True, timeout=60)
    finally:
        os.chmod(game, 0o755)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert p.stderr.startswith("ошибка: ") and p.stderr.count("\n") == 1   # issue 39
    assert str(game / "game.toml") in p.stderr and "проверьте права на папку" in p.stderr


@pytest.mark.parametrize("old, new, key", [
    ('url = "http://127.0.0.1/"', 'url = "http://127.0.0.1/"\nmin_delay = inf', "forum.min_delay"),
    ('url = "http://127.0.0.1/"', 'url = "http://127.0.0.1/"\nfull_scan_delay = nan',
     "forum.full_scan_delay"),
    ('url = "http://127.0.0.1/"', 'url = "http://127.0.0.1/"\ntimeout = nan', "forum.timeout"),
    ('tie_scope = "all_alive"', 'tie_scope = "all_alive"\n[schedule]\npoll_minutes = nan',
     "schedule.poll_minutes"),
    ('tie_scope = "all_alive"', 'tie_scope = "all_alive"\n[schedule]\ngrace_seconds = inf',
     "schedule.grace_seconds"),
])
def test_nan_and_inf_are_no_durations(game, old, new, key):
    """TOML has inf and nan; they passed the >= 0 checks (nan compares false) and reached
    time.sleep() and the schedule."""
    edit(game, old, new)
    with pytest.raises(ConfigError) as e:
        load_game(game)
    assert e.value.key == key and "finite number" in str(e.value)


def test_a_moved_deadline_before_its_day_starts_names_the_key(game):
    """R1.4: day 2 starts on 9 April at 21:00; a deadline at 20:30 that evening was found only
    by the commands that computed day 2 (`status` said nothing), without naming game.toml."""
    with open(game / "game.toml", "a", encoding="utf-8") as f:
        f.write('\n[[days]]\nnumber = 2\ntopic = "http://127.0.0.1/viewtopic.php?t=5"\n'
                'deadline = 2024-04-09T20:30:00+03:00\n')
    with pytest.raises(ConfigError) as e:
        load_game(game)
    assert e.value.key == "days[2].deadline"
    assert "2024-04-09T20:30:00+03:00 is not after the day's start 2024-04-09T21:00:00" \
        in str(e.value)


def test_a_day_number_past_the_calendar(game):
    with open(game / "game.toml", "a", encoding="utf-8") as f:
        f.write('\n[[days]]\nnumber = 99999\ntopic = "http://127.0.0.1/viewtopic.php?t=5"\n')
    with pytest.raises(ConfigError) as e:
        load_game(game)
    assert e.value.key == "days[2].number" and "from 1 to 2000" in str(e.value)


def test_a_game_file_saved_by_notepad_with_a_byte_order_mark(game):
    text = (game / "game.toml").read_text(encoding="utf-8")
    (game / "game.toml").write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert load_game(game).title == "Игра 2"


@pytest.mark.parametrize("encoding", ["cp1251", "utf-16"])
def test_a_game_file_not_in_utf8_says_what_to_do(game, encoding):
    text = (game / "game.toml").read_text(encoding="utf-8")
    (game / "game.toml").write_bytes(text.encode(encoding))
    with pytest.raises(ConfigError) as e:
        load_game(game)
    assert str(e.value).startswith(f"{game / 'game.toml'}: cannot read: not UTF-8 text (byte ")
    assert "save game.toml as UTF-8" in str(e.value)
