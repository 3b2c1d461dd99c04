"""The host's page's own words, in Russian and English (the game's ``language``).

Russian follows RULES R9.6 and shared/design/russian-text.md: a nick is a label after a colon
or dash, never declined; «срок», never «дедлайн»; numbers with nouns through ``plural``.
"""

from __future__ import annotations

from ..forum.engine import TOPIC_URL_SHAPE

WORDS: dict[str, dict[str, str]] = {
    "games": {"ru": "Игры", "en": "Games"},
    "game": {"ru": "Игра", "en": "Game"},
    "day": {"ru": "День", "en": "Day"},
    "deadline": {"ru": "Срок", "en": "Deadline"},
    "moved": {"ru": "перенесён", "en": "moved"},
    "time_left": {"ru": "Осталось", "en": "Time left"},
    "leader": {"ru": "Лидер", "en": "Leader"},
    "no_leader": {"ru": "голосов пока нет", "en": "no votes yet"},
    "needs_host": {"ru": "Требует внимания", "en": "Needs you"},
    "all_fine": {"ru": "всё в порядке", "en": "all fine"},
    "game_over": {"ru": "Игра окончена", "en": "The game is over"},
    "won_town": {"ru": "Игра окончена: победил город", "en": "The game is over: the town wins"},
    "won_mafia": {"ru": "Игра окончена: победила мафия", "en": "The game is over: the mafia wins"},
    "won_maniac": {"ru": "Игра окончена: победил Маньяк",
                   "en": "The game is over: the Maniac wins"},
    "not_needed": {"ru": "не нужен: игра окончена", "en": "not needed: the game is over"},
    "topic": {"ru": "Тема дня", "en": "The day's topic"},
    "no_topic": {"ru": "темы пока нет", "en": "no topic yet"},
    "daemon": {"ru": "Демон (scraper-mod run)", "en": "Daemon (scraper-mod run)"},
    "running": {"ru": "работает, pid {pid}", "en": "running, pid {pid}"},
    "not_running": {"ru": "не запущен: scraper-mod run {folder}",
                    "en": "not running: scraper-mod run {folder}"},
    "last_poll": {"ru": "Последнее чтение форума", "en": "Last forum read"},
    "never": {"ru": "ещё не было", "en": "never"},
    "errors": {"ru": "Ошибки демона", "en": "The daemon's errors"},
    "told": {"ru": "Оповещения ведущему", "en": "Alerts sent to the host"},
    "count": {"ru": "Подсчёт голосов", "en": "The vote count"},
    "count_final": {"ru": "Итог голосования", "en": "The final count"},
    "as_of": {"ru": "на", "en": "as of"},
    "not_voting": {"ru": "Не голосуют", "en": "Not voting"},
    "not_voted": {"ru": "Не голосовали", "en": "Did not vote"},
    "all_voted": {"ru": "Проголосовали все", "en": "Everyone has voted"},
    # issue 39: what a count shows besides the votes
    "majority_needs": {"ru": "До большинства ({n})", "en": "To a majority ({n})"},
    "needs_more": {"ru": "ещё {n}", "en": "{n} more"},
    "not_counted": {"ru": "Не засчитано", "en": "Not counted"},
    "posts_today": {"ru": "Постов за день", "en": "Posts today"},
    "no_posts": {"ru": "без постов с начала дня", "en": "no post since the day began"},
    "not_open": {"ru": "Голосование ещё не открыто: голоса принимаются с {hm}",
                 "en": "The vote has not opened yet: votes count from {hm}"},
    "no_one": {"ru": "никто", "en": "no one"},
    "frozen": {"ru": "Заморозка (голос не считается)", "en": "Frozen (the vote does not count)"},
    "lynch": {"ru": "Посадка", "en": "Jailed"},
    "by_random": {"ru": "по случайному списку", "en": "by the random list"},
    "pardoned": {"ru": "Посадки нет — Судья помиловал", "en": "Nobody jailed — the Judge pardoned"},
    "history": {"ru": "Голоса в течение дня", "en": "Votes through the day"},
    "no_history": {"ru": "голосов пока нет", "en": "no votes yet"},
    "moves": {"ru": "Ночные ходы", "en": "Night moves"},
    "reveal": {"ru": "Показать ходы и отчёт ведущего", "en": "Show the moves and the host report"},
    "hide": {"ru": "Скрыть", "en": "Hide"},
    "awaiting": {"ru": "Ещё нет хода", "en": "No move yet"},
    "awaiting_none": {"ru": "Все ходы получены", "en": "Every move is in"},
    "no_moves": {"ru": "ходов пока нет", "en": "no moves yet"},
    "alerts": {"ru": "Что требует внимания", "en": "What needs you"},
    "no_alerts": {"ru": "Ничего", "en": "Nothing"},
    "posts": {"ru": "Посты дня {day}", "en": "Day {day}'s posts"},
    "newspaper": {"ru": "Газета", "en": "The newspaper"},
    "day_start": {"ru": "Начало дня", "en": "The day start"},
    "host_report": {"ru": "Отчёт ведущему", "en": "The host report"},
    "publish": {"ru": "Публикация", "en": "Publishing"},
    "publish_mode": {"ru": "режим публикации: {mode}", "en": "publish mode: {mode}"},
    "actions": {"ru": "Действия", "en": "Actions"},
    "done": {"ru": "Сделано", "en": "Done"},
    "failed": {"ru": "Не сделано", "en": "Not done"},
    "open_page": {"ru": "Открыть", "en": "Open"},
    "passed": {"ru": "срок прошёл", "en": "the deadline has passed"},
    "resolved": {"ru": "подведён", "en": "resolved"},
    "due": {"ru": "срок прошёл, итоги не подведены", "en": "due, not resolved yet"},
    "open": {"ru": "идёт", "en": "open"},
    "days": {"ru": "Дни игры", "en": "The game's days"},
    "starts": {"ru": "начало", "en": "starts"},
    "unit_d": {"ru": "сут.", "en": "d"},
    "unit_h": {"ru": "ч", "en": "h"},
    "unit_m": {"ru": "мин", "en": "min"},
    "unit_s": {"ru": "с", "en": "s"},
    "denied": {"ru": "Нужен ключ доступа: откройте адрес, который напечатала команда "
                     "scraper-mod serve.",
               "en": "An access key is needed: open the address that scraper-mod serve "
                     "printed."},
    "refresh_failed": {"ru": "не удалось обновить", "en": "could not refresh"},
    "updated": {"ru": "обновлено", "en": "updated"},
    # the alerts
    "a_nick": {"ru": "Ник не распознан", "en": "Nick not recognised"},
    "a_dead": {"ru": "Пост выбывшего", "en": "A post by the dead"},
    "a_late": {"ru": "Пост после срока", "en": "A late post"},
    "a_silent": {"ru": "Правка без отметки", "en": "A silent edit"},
    "a_note": {"ru": "Заметка подсчёта", "en": "A note of the count"},
    "a_sender": {"ru": "Неизвестный отправитель", "en": "An unknown sender"},
    "a_moves": {"ru": "Ходы не прочитаны", "en": "The moves could not be read"},
    "a_publish": {"ru": "Публикация не удалась", "en": "A publication failed"},
    "a_daemon": {"ru": "Ошибка демона", "en": "A daemon error"},
    "a_due": {"ru": "Срок дня {day} прошёл, итоги не подведены",
              "en": "Day {day}'s deadline has passed and it is not resolved"},
    "a_topic": {"ru": "У дня {day} нет темы", "en": "Day {day} has no topic"},
    "a_count": {"ru": "Подсчёт не удался", "en": "The count failed"},
    # the actions
    "act_move": {"ru": "Перенести срок", "en": "Move the deadline"},
    "act_open": {"ru": "Открыть тему дня", "en": "Open a day's topic"},
    "act_publish": {"ru": "Опубликовать посты дня", "en": "Publish the day's posts"},
    "act_decide_vote": {"ru": "Решение по посту", "en": "Decide a post"},
    "act_decide_kill": {"ru": "Убрать игрока из игры", "en": "Remove a player"},
    "act_replace": {"ru": "Замена игрока", "en": "Replace a player"},
    "act_undo": {"ru": "Отменить решение", "en": "Take a decision back"},
    "f_post": {"ru": "номер поста", "en": "post id"},
    "f_vote_nick": {"ru": "голос за (ник или none — не голос)",
                    "en": "a vote for (nick, or none for no vote)"},
    "f_nick": {"ru": "ник", "en": "nick"},
    "f_old": {"ru": "кого заменяют", "en": "who is replaced"},
    "f_new": {"ru": "кто заменяет", "en": "the newcomer"},
    "f_at": {"ru": "с какого момента (2024-03-18T15:00; пусто — сейчас)",
             "en": "from (2024-03-18T15:00; empty: now)"},
    "f_why": {"ru": "причина", "en": "reason"},
    "f_k": {"ru": "номер решения", "en": "decision number"},
    "decision_line": {"ru": "Решение №{k}: {summary}", "en": "Decision {k}: {summary}"},
    "rewritten_line": {"ru": "Итоги пересчитаны: дни {days}", "en": "Results redone: days {days}"},
    "card_line": {"ru": "Карточка роли для новичка: {path}",
                  "en": "The newcomer's role card: {path}"},
    "board_line": {"ru": "На форуме: {what}", "en": "On the board: {what}"},
    "f_day": {"ru": "день", "en": "day"},
    "f_time": {"ru": "новый срок (2024-03-18T20:00 или default)",
               "en": "new deadline (2024-03-18T20:00 or default)"},
    "f_url": {"ru": f"адрес темы ({TOPIC_URL_SHAPE})", "en": f"topic address ({TOPIC_URL_SHAPE})"},
    "moved_line": {"ru": "День {day}: срок перенесён: {before} → {after}",
                   "en": "Day {day}: deadline moved: {before} → {after}"},
    "moved_back": {"ru": "День {day}: срок возвращён по расписанию: {before} → {after}",
                   "en": "Day {day}: deadline back to the schedule: {before} → {after}"},
    "next_day_line": {"ru": "День {day}: начало — {start}, срок — {deadline}; следующие дни — за ним",
                      "en": "Day {day} now runs from {start} to {deadline}; the days after "
                            "follow on from it"},
    "in_past_line": {"ru": "Этот срок уже прошёл: запущенный scraper-mod run подведёт итоги "
                           "дня {day} на следующем шаге",
                     "en": "That is in the past: a running scraper-mod run resolves day {day} "
                           "at its next step"},
    "opened_line": {"ru": "День {day}: тема {topic}", "en": "Day {day}: topic {topic}"},
    "reopened_line": {"ru": "День {day}: тема заменена: {previous} → {topic}",
                      "en": "Day {day}: topic changed from {previous} to {topic}"},
    "published_line": {"ru": "{status}: {kind} → {to}", "en": "{status}: {kind} → {to}"},
    "nothing_to_publish": {"ru": "Публиковать нечего", "en": "Nothing to publish"},
    "error_line": {"ru": "Ошибка: {error}", "en": "Error: {error}"},
}

PUBLISH_KIND = {
    "newspaper": {"ru": "газета", "en": "newspaper"},
    "day-start": {"ru": "начало дня", "en": "day start"},
    "day-topic": {"ru": "тема дня", "en": "day topic"},
    "pm": {"ru": "личное сообщение", "en": "PM"},
    "role-card": {"ru": "карточка роли", "en": "role card"},
    "lock": {"ru": "закрытие темы", "en": "topic lock"},
}

PUBLISH_STATUS = {
    "posted": {"ru": "опубликовано", "en": "posted"},
    "already": {"ru": "уже на форуме", "en": "already there"},
    "waiting": {"ru": "ждёт публикации", "en": "waiting"},
    "failed": {"ru": "не удалось", "en": "failed"},
    "skipped": {"ru": "пропущено", "en": "skipped"},
    "done": {"ru": "опубликовано", "en": "posted"},
}

ROLE_KIND = {
    "kill": {"ru": "убийство", "en": "kill"},
    "heal": {"ru": "лечение", "en": "heal"},
    "check": {"ru": "проверка", "en": "check"},
    "freeze": {"ru": "заморозка", "en": "freeze"},
}

MOVE_STATUS = {
    "counted": {"ru": "засчитано", "en": "counted"},
    "replaced": {"ru": "заменено более поздним", "en": "replaced"},
    "late": {"ru": "после срока", "en": "late"},
    "invalid": {"ru": "не засчитано", "en": "invalid"},
    "unknown_sender": {"ru": "неизвестный отправитель", "en": "unknown sender"},
}


def winner_line(winner: str, lang: str) -> str:
    """«Игра окончена: победил город» for the winner's code (town, mafia, maniac)."""
    return word(f"won_{winner}" if f"won_{winner}" in WORDS else "game_over", lang)


def named(table: dict[str, dict[str, str]], code: str, lang: str) -> str:
    """A code (a publication's kind or status) in ``lang``; the code itself when unknown."""
    return table.get(code, {}).get(lang) or code


def word(key: str, lang: str, **fields: object) -> str:
    """The page's text for ``key`` in ``lang`` (English when the language has none)."""
    texts = WORDS[key]
    text = texts.get(lang) or texts["en"]
    return text.format(**fields) if fields else text
