"""LocalBoard's writing side: phpBB 3.3's posting, edit, PM compose and quick-mod lock forms,
with their hidden fields and refusals, as the real board answers them (checked against
phpBB 3.3.15's HTML, fixtures/phpbb/answers/).

``PostingForms`` is a mixin of ``LocalBoard``: ``posting_route`` answers ``posting.php``,
``ucp.php?i=pm&mode=compose``, the PM outbox/sentbox and ``mcp.php`` quick-mod, else None.
Refusals: a form submitted in the second it was served or with a bad token («The submitted
form was invalid»), a locked topic (for non-moderators), the flood limit
(``post_flood_seconds``), ``max_post_chars``, users in ``no_post_users``, unknown PM recipients.
"""

from __future__ import annotations

import html
import re
from typing import Any

from .localboard_model import BoardBase

_EN = {"locked": "This topic is locked, you cannot edit posts or make further replies.",
       "flood": "You cannot make another post so soon after your last.",
       "too_long": "Your message contains {n} characters. The maximum number of allowed "
                   "characters is {m}.",
       "no_post": "You are not authorised to post in this forum.",
       "no_users": "The requested users to be added do not exist.",
       "login_reply": "You need to login in order to reply to topics within this forum.",
       "sent": "This message has been sent successfully.",
       "locked_done": "The selected topic has been locked.",
       "no_topic": "The requested topic does not exist."}


def _e(s: str) -> str:
    return html.escape(s, quote=True)


class PostingForms(BoardBase):
    """Mixin: the forms a posting client (scraper-mod's writer) submits."""

    post_flood_seconds: int = 0
    max_post_chars: int = 60000
    moderators: frozenset = frozenset({2})

    def _pf_state(self) -> dict:
        if not hasattr(self, "_pf"):
            self._pf: dict[str, Any] = {"last_post": {}, "no_post": set(), "sent": []}
        return self._pf

    @property
    def no_post_users(self) -> set:
        return self._pf_state()["no_post"]

    @property
    def sent_pms_log(self) -> list:
        """(msg id, from uid, to uid, subject, body) of PMs sent through the compose form."""
        return self._pf_state()["sent"]

    # -- pages ------------------------------------------------------------------------------
    def _pf_hidden(self, sid: str, extra: dict | None = None) -> str:
        creation = int(self.now().timestamp())
        fields = dict(extra or {})
        fields.update({"creation_time": str(creation),
                       "form_token": self._form_token(sid, creation)})
        return "".join(f'<input type="hidden" name="{_e(k)}" value="{_e(v)}" />\n'
                       for k, v in fields.items())

    def _pf_form(self, sid: str, action: str, *, subject: str = "", message: str = "",
                 hidden: dict | None = None, error: str = "", recipients: str = "",
                 compose: bool = False, user: int = 1) -> str:
        err = f'<p class="error">{_e(error)}</p>\n' if error else ""
        to = (f'<textarea name="username_list" id="username_list">{_e(recipients)}</textarea>\n'
              '<input type="submit" name="add_to" value="Add" class="button2" />\n'
              if compose else "")
        body = (f'<form id="postform" method="post" action="{_e(action)}">\n'
                f'<div class="panel" id="postingbox"><div class="inner">\n{err}{to}'
                f'<input type="text" name="subject" id="subject" value="{_e(subject)}" />\n'
                f'<textarea name="message" id="message">{_e(message)}</textarea>\n'
                f'{self._pf_hidden(sid, hidden)}'
                '<input type="submit" name="post" value="Submit" class="button1" />\n'
                '</div></div>\n</form>\n')
        return self._page(title=f"{self.title} - Post", section="posting", body=body, user=user)

    def _pf_token_ok(self, sid: str, form: dict) -> bool:
        creation = int(form["creation_time"]) if form.get("creation_time", "").isdigit() else 0
        diff = int(self.now().timestamp()) - creation
        return form.get("form_token") == self._form_token(sid, creation) and 0 < diff <= 7200

    def _pf_msg(self, text: str, user: int, *, refresh: str | None = None) -> str:
        page = self.render_message(text, section="posting", user=user)
        if refresh:
            page = page.replace("<head>", f'<head>\n<meta http-equiv="refresh" content="3; '
                                          f'url={_e(refresh)}" />', 1)
        return page

    def _pf_name(self, uid: int) -> str:
        u = self.users.get(uid)
        return u.name if u else "Guest"

    # -- routing ----------------------------------------------------------------------------
    def posting_route(self, method: str, path: str, q: dict, form: dict, sid: str,
                      user: int, headers: dict) -> tuple[int, dict, str] | None:
        if path == "posting.php":
            return self._pf_posting(method, q, form, sid, user, headers)
        if path == "ucp.php" and q.get("i") == "pm" and user != 1:
            if q.get("mode") == "compose":
                return self._pf_compose(method, q, form, sid, user, headers)
            if q.get("folder") in ("outbox", "sentbox") and q.get("mode") != "view":
                return 200, headers, self._pf_sent_list(user)
        if path == "mcp.php" and q.get("quickmod") == "1":
            return self._pf_lock(method, q, form, sid, user, headers)
        return None

    def _pf_posting(self, method, q, form, sid, user, headers):
        mode = q.get("mode")
        topic = None
        if mode == "reply":
            topic = self.topics.get(int(q["t"])) if q.get("t", "").isdigit() else None
        elif mode == "edit":
            try:
                post = self.find_post(int(q.get("p", "0")))
                topic = self.topics[post.topic_id]
            except (KeyError, ValueError):
                topic = None
        if mode in ("reply", "edit") and topic is None:
            return 404, headers, self._pf_msg(_EN["no_topic"], user)
        if mode == "post" and not (q.get("f", "").isdigit() and int(q["f"]) in self.forums):
            return 404, headers, self._pf_msg("The requested forum does not exist.", user)
        if user == 1:
            return 200, headers, self.render_login(sid=sid, redirect=f"./posting.php?mode={mode}",
                                                   heading=_EN["login_reply"], section="posting")
        if user in self.no_post_users:
            return 200, headers, self._pf_msg(_EN["no_post"], user)
        if topic is not None and topic.locked and user not in self.moderators:
            return 200, headers, self._pf_msg(_EN["locked"], user)
        action = "./posting.php?" + "&".join(f"{k}={v}" for k, v in q.items() if k != "sid")
        hidden = {}
        if mode == "reply":
            hidden["topic_cur_post_id"] = str(topic.posts[-1].post_id if topic.posts else 0)
        subject = f"Re: {topic.title}" if topic is not None else ""
        message = post.body if mode == "edit" else ""
        if method != "POST":
            return 200, headers, self._pf_form(sid, action, subject=subject, message=message,
                                               hidden=hidden, user=user)
        text = form.get("message", "")

        def again(error: str):
            return 200, headers, self._pf_form(sid, action, subject=form.get("subject", ""),
                                               message=text, hidden=hidden, error=error,
                                               user=user)
        if not self._pf_token_ok(sid, form):
            return again(self.s["bad_form"])
        if len(text) > self.max_post_chars:
            return again(_EN["too_long"].format(n=len(text), m=self.max_post_chars))
        now = self.now()
        last = self._pf_state()["last_post"].get(user)
        if (mode != "edit" and last is not None and self.post_flood_seconds
                and (now - last).total_seconds() < self.post_flood_seconds):
            return again(_EN["flood"])
        name = self._pf_name(user)
        if mode == "edit":
            self.edit_post(post.post_id, text, editor=name, reason=form.get("edit_reason"))
            pid = post.post_id
            loc = f"viewtopic.php?p={pid}#p{pid}"
        elif mode == "reply":
            pid = self.add_post(name, user, text, now, topic=topic.topic_id)
            loc = f"viewtopic.php?p={pid}#p{pid}"
        else:
            tid = self.add_topic(form.get("subject") or "(no subject)", forum_id=int(q["f"]))
            self.add_post(name, user, text, now, topic=tid)
            loc = f"viewtopic.php?t={tid}"
        self._pf_state()["last_post"][user] = now
        return 302, {**headers, "Location": f"{self.url}{loc}"}, ""

    def _pf_compose(self, method, q, form, sid, user, headers):
        action = f"./ucp.php?i=pm&mode=compose&action=post&sid={sid}"
        if method != "POST":
            return 200, headers, self._pf_form(sid, action, compose=True, user=user,
                                               hidden={"status_switch": "0"})
        if not self._pf_token_ok(sid, form):
            return 200, headers, self._pf_form(sid, action, compose=True, user=user,
                                               error=self.s["bad_form"])
        to = {int(m.group(1)) for k in form for m in [re.fullmatch(r"address_list\[u\]\[(\d+)\]",
                                                                    k)] if m}
        if "add_to" in form:
            names = [n.strip() for n in form.get("username_list", "").splitlines() if n.strip()]
            found = {u.user_id for u in self.users.values() if u.name in names}
            if not found or len(found) < len(names):
                return 200, headers, self._pf_form(sid, action, compose=True, user=user,
                                                   error=_EN["no_users"])
            hidden = {f"address_list[u][{uid}]": "to" for uid in sorted(to | found)}
            return 200, headers, self._pf_form(sid, action, compose=True, user=user,
                                               subject=form.get("subject", ""),
                                               message=form.get("message", ""), hidden=hidden)
        if not to:
            return 200, headers, self._pf_form(sid, action, compose=True, user=user,
                                               error="You must specify at least one recipient.")
        if user in self.no_post_users:
            return 200, headers, self._pf_msg("You are not authorised to send private "
                                              "messages.", user)
        mid = None
        for uid in sorted(to):
            mid = self.send_pm(self._pf_name(user), user, form.get("subject", ""),
                               form.get("message", ""), self.now(), to_id=uid)
            self.sent_pms_log.append((mid, user, uid, form.get("subject", ""),
                                      form.get("message", "")))
        return 200, headers, self._pf_msg(_EN["sent"], user,
                                          refresh=f"{self.url}ucp.php?i=pm&mode=view&p={mid}")

    def _pf_sent_list(self, user: int) -> str:
        rows = "".join(
            f'<li class="row bg1"><dl class="row-item pm_read"><dt><div class="list-inner">'
            f'<a href="./ucp.php?i=pm&amp;mode=view&amp;f=-2&amp;p={mid}" class="topictitle">'
            f'{_e(subject)}</a> <br />To <a href="./memberlist.php?mode=viewprofile&amp;u={to}"'
            f' class="username">{_e(self._pf_name(to))}</a></div></dt></dl></li>\n'
            for mid, frm, to, subject, _ in reversed(self.sent_pms_log) if frm == user)
        return self._page(title=f"{self.title} - Outbox", section="ucp", user=user,
                          body=f'<ul class="topiclist cplist pmlist">\n{rows}</ul>\n')

    def _pf_lock(self, method, q, form, sid, user, headers):
        tid = int(q["t"]) if q.get("t", "").isdigit() else None
        if tid not in self.topics:
            return 404, headers, self._pf_msg(_EN["no_topic"], user)
        if user not in self.moderators:
            return 200, headers, self._pf_msg("You are not authorised to moderate.", user)
        if method != "POST" or "confirm" not in form:
            body = (f'<form id="confirm" method="post" action="./mcp.php?action=lock&amp;'
                    f'quickmod=1&amp;t={tid}&amp;confirm_key=K">\n'
                    f'<input type="hidden" name="topic_id_list[0]" value="{tid}" />\n'
                    f'<input type="hidden" name="action" value="lock" />\n'
                    f'<input type="hidden" name="sess" value="{sid}" />\n'
                    '<input type="submit" name="confirm" value="Yes" />\n</form>\n')
            return 200, headers, self._page(title="Lock", section="mcp", body=body, user=user)
        self.lock(tid)
        return 200, headers, self._pf_msg(_EN["locked_done"], user)

    def lock_link(self, topic_id: int, sid: str = "") -> str:
        """The quick-mod tool's lock link as prosilver shows it to a moderator."""
        return (f'<li><a href="./mcp.php?f=3&amp;t={topic_id}&amp;start=0&amp;quickmod=1&amp;'
                f'action=lock&amp;sid={sid}" data-ajax="true">Lock topic</a></li>')
