"""LocalBoard's words: phpBB 3.3.15's strings in English and Russian as seen on real pages (the
words inside a post body are the one BBCode renderer's, posts/bbcode.py)."""

from __future__ import annotations

from typing import Any

from ..posts.bbcode import BBCODE_STRINGS, esc

__all__ = ["STRINGS", "esc"]

# -- language strings (from phpBB 3.3.15 en and the official ru pack, as seen on real pages) --

STRINGS: dict[str, dict[str, Any]] = {
    "ru": {
        **BBCODE_STRINGS["ru"],
        "months": "янв фев мар апр май июн июл авг сен окт ноя дек".split(),
        "posts": "Сообщения", "joined": "Зарегистрирован", "by": "", "quote": "Цитата",
        "quote_title": "Ответить с цитатой", "post": "Сообщение", "top": "Вернуться к началу",
        "reply": "Ответить", "locked": "Тема закрыта",
        "locked_title": "Тема закрыта, вы не можете редактировать и оставлять сообщения в ней.",
        "next": "След.", "prev": "Пред.", "page": "Страница", "of": "из",
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
        **BBCODE_STRINGS["en"],
        "months": "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(),
        "days": "Mon Tue Wed Thu Fri Sat Sun".split(),
        "posts": "Posts", "joined": "Joined", "by": "by", "quote": "Quote", "quote_title": "Reply with quote",
        "post": "Post", "top": "Top", "reply": "Post Reply", "locked": "Locked",
        "locked_title": "This topic is locked, you cannot edit posts or make further replies.",
        "next": "Next", "prev": "Previous", "page": "Page", "of": "of",
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
