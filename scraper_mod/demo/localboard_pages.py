"""LocalBoard's pages: a topic page, a forum listing, the login form, the topic's Atom feed,
as phpBB 3.3.15 prosilver renders them. ``BoardPages`` is a mixin of ``LocalBoard``.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from datetime import datetime, timedelta, timezone
from urllib.parse import quote

from ..forum.phpbb.links import PAGE_LINKS
from ..posts.bbcode import BBCodeRenderer, esc
from ..posts.plural import ru_plural_word
from .localboard_model import BoardBase, BoardPost, BoardTopic, BoardUser


class BoardPages(BoardBase):
    """Mixin: LocalBoard's HTML pages (uses the board's model: users, topics, strings)."""

    # -- dates ----------------------------------------------------------------------------
    def format_date(self, t: datetime, *, relative: bool | None = None) -> str:
        """A date as the board shows it (ru ``|d M Y|, H:i``, en ``D M d, Y g:i a``)."""
        local = t.astimezone(self.tz)
        if self.language == "en":
            hour = local.hour % 12 or 12
            return (f"{self.s['days'][local.weekday()]} {self.s['months'][local.month - 1]} "
                    f"{local.day:02d}, {local.year} {hour}:{local.minute:02d} "
                    f"{'am' if local.hour < 12 else 'pm'}")
        if relative if relative is not None else self.relative_dates:
            now = self.now().astimezone(self.tz)
            delta = (now - local).total_seconds()
            if 0 <= delta < 3600:
                minutes = int(delta // 60)
                if minutes == 0:
                    return self.s["less_minute"]
                return f"{minutes} {ru_plural_word(minutes, 'минуту', 'минуты', 'минут')} назад"
            if local.date() == now.date():
                return f"{self.s['today']}, {local:%H:%M}"
            if local.date() == now.date() - timedelta(days=1):
                return f"{self.s['yesterday']}, {local:%H:%M}"
        return f"{local.day:02d} {self.s['months'][local.month - 1]} {local.year}, {local:%H:%M}"

    # -- rendering ------------------------------------------------------------------------
    def _user_link(self, uid: int, name: str) -> str:
        u = self.users.get(uid)
        if u and u.colour:
            return (f'<a href="./memberlist.php?mode=viewprofile&amp;u={uid}" '
                    f'style="color: #{u.colour};" class="username-coloured">{esc(name)}</a>')
        return (f'<a href="./memberlist.php?mode=viewprofile&amp;u={uid}" class="username">'
                f'{esc(name)}</a>')

    def _bbcode(self) -> BBCodeRenderer:
        ids = {u.name: u.user_id for u in self.users.values()}
        return BBCodeRenderer(strings=self.s, format_date=self.format_date, user_ids=ids,
                              custom=self.custom_bbcodes, links=PAGE_LINKS)

    def _feed_links(self, topic: BoardTopic | None = None) -> str:
        """The Atom feed links phpBB 3.3 puts in a page's <head> when feeds are on."""
        if not self.feed:
            return ""
        s = self.s

        def link(title: str, href: str) -> str:
            return (f'<link rel="alternate" type="application/atom+xml" '
                    f'title="{esc(s["feed"])} - {esc(title)}" href="{href}">')
        out = (f'\t{link(self.title, "/app.php/feed")}\t\t\t'
               f'{link(s["feed_new"], "/app.php/feed/topics")}\t\t')
        if topic is not None:
            forum = self.forums.get(topic.forum_id, "")
            forum_link = link(f'{s["feed_forum"]} - {forum}', f"/app.php/feed/forum/{topic.forum_id}")
            topic_link = link(f'{s["feed_topic"]} - {topic.title}',
                              f"/app.php/feed/topic/{topic.topic_id}")
            out += f"{forum_link}\t{topic_link}\t"
        return out + "\n"

    def _page(self, *, title: str, section: str, body: str, canonical: str | None = None,
              user: int = 1, redirect: str = "index.php", topic: BoardTopic | None = None) -> str:
        # long: one page template: phpBB 3.3.15's header and footer markup in order
        s = self.s
        canon = (f'\t<link rel="canonical" href="{esc(canonical)}">\n' if canonical else "")
        canon = self._feed_links(topic) + canon
        if user == 1:
            login = (f'\t\t\t<li class="rightside"  data-skip-responsive="true">\n'
                     f'\t\t\t<a href="./ucp.php?mode=login&amp;redirect={quote(redirect)}" '
                     f'title="{s["login"]}" accesskey="x" role="menuitem">\n'
                     f'\t\t\t\t<i class="icon fa-power-off fa-fw" aria-hidden="true"></i>'
                     f'<span>{s["login"]}</span>\n\t\t\t</a>\n\t\t</li>\n')
        else:
            name = self.users[user].name if user in self.users else self.login_user or "?"
            login = (f'\t\t\t<li id="username_logged_in" class="rightside no-bulletin">'
                     f'<span class="username">{esc(name)}</span> '
                     f'<a href="./ucp.php?mode=logout" title="{s["logout"]}">{s["logout"]}'
                     f'</a></li>\n')
        return f"""<!DOCTYPE html>
<html dir="ltr" lang="{self.language}">
<head>
<meta charset="utf-8" />
<meta http-equiv="X-UA-Compatible" content="IE=edge">
<meta name="viewport" content="width=device-width, initial-scale=1" />

<title>{esc(title)}</title>

{canon}
<!--
	phpBB style name: prosilver
	Based on style:   prosilver (this is the default phpBB3 style)
	Original author:  Tom Beddard ( http://www.subBlue.com/ )
	Modified by:
-->

<link href="./styles/prosilver/theme/stylesheet.css?assets_version=1" rel="stylesheet">
</head>
<body id="phpbb" class="nojs notouch section-{section} ltr ">


<div id="wrap" class="wrap">
	<a id="top" class="top-anchor" accesskey="t"></a>
	<div id="page-header">
		<div class="headerbar" role="banner">
					<div class="inner">

			<div id="site-description" class="site-description">
		<a id="logo" class="logo" href="./index.php" title="{s["index"]}">
					<span class="site_logo"></span>
				</a>
				<h1>{esc(self.title)}</h1>
				<p>Local phpBB 3.3 test board</p>
			</div>

			</div>
					</div>
				<div class="navbar" role="navigation">
	<div class="inner">

	<ul id="nav-main" class="nav-main linklist" role="menubar">
{login}	</ul>

	<ul id="nav-breadcrumbs" class="nav-breadcrumbs linklist navlinks" role="menubar">
		<li class="breadcrumbs" itemscope itemtype="https://schema.org/BreadcrumbList">
							<span class="crumb" itemtype="https://schema.org/ListItem" itemprop="itemListElement" itemscope><a itemprop="item" href="./index.php" accesskey="h" data-navbar-reference="index"><i class="icon fa-home fa-fw"></i><span itemprop="name">{s["index"]}</span></a><meta itemprop="position" content="1" /></span>
					</li>
	</ul>

	</div>
</div>
	</div>

	
	<a id="start_here" class="anchor"></a>
	<div id="page-body" class="page-body" role="main">
		
		
{body}
			</div>


<div id="page-footer" class="page-footer" role="contentinfo">
	<div class="navbar" role="navigation">
	<div class="inner">

	<ul id="nav-footer" class="nav-footer linklist" role="menubar">
		<li class="breadcrumbs">
									<span class="crumb"><a href="./index.php" data-navbar-reference="index"><i class="icon fa-home fa-fw" aria-hidden="true"></i><span>{s["index"]}</span></a></span>					</li>
		
				<li class="rightside">{s["timezone"]}: <span title="{s["tz_title"]}">{self._utc_offset()}</span></li>
							</ul>

	</div>
</div>

	<div class="copyright">
				<p class="footer-row">
			<span class="footer-copyright">{s["powered"]}</span>
		</p>
			</div>
</div>

</body>
</html>
"""

    def _utc_offset(self) -> str:
        off = self.now().astimezone(self.tz).utcoffset() or timedelta(0)
        minutes = int(off.total_seconds() // 60)
        sign = "+" if minutes >= 0 else "-"
        return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"

    def render_message(self, text: str, *, section: str = "viewtopic", user: int = 1) -> str:
        """phpBB's information page (no such topic, board disabled)."""
        body = (f'<div class="panel" id="message">\n\t<div class="inner">\n\t<h2 '
                f'class="message-title">{self.s["info"]}</h2>\n\t<p>{esc(text)}</p>\n'
                f'\t\t</div>\n</div>\n')
        return self._page(title=f"{self.title} - {self.s['info']}", section=section,
                          body=body, user=user)

    def render_login(self, *, sid: str, redirect: str, heading: str | None = None,
                     error: str | None = None, section: str = "ucp",
                     index_redirect: bool = False) -> str:
        """The login form (``ucp.php?mode=login`` or a "login required" page).

        The real ``ucp.php?mode=login`` page carries a second hidden ``redirect``
        (``index.php``) after ``sid``; PHP takes the last one (``index_redirect=True``).
        """
        s = self.s
        creation = int(self.now().timestamp())
        token = self._form_token(sid, creation)
        err = f'\t\t<div class="error">{esc(error)}</div>\n' if error else ""
        extra = '<input type="hidden" name="redirect" value="index.php" />\n' if index_redirect else ""
        body = f"""<form action="./ucp.php?mode=login" method="post" id="login" data-focus="username">
<div class="panel">
	<div class="inner">

	<div class="content">
		<h2 class="login-title">{esc(heading or s["login"])}</h2>

		<fieldset class="fields1">
{err}				<dl>
			<dt><label for="username">{s["username"]}:</label></dt>
			<dd><input type="text" tabindex="1" name="username" id="username" size="25" value="" class="inputbox autowidth" autocomplete="username" /></dd>
		</dl>
		<dl>
			<dt><label for="password">{s["password"]}:</label></dt>
			<dd><input type="password" tabindex="2" id="password" name="password" size="25" class="inputbox autowidth" autocomplete="current-password" /></dd>
					</dl>
						<dl>
			<dt>&nbsp;</dt>
			<dd><label for="autologin"><input type="checkbox" name="autologin" id="autologin" tabindex="4" /> {s["remember"]}</label></dd>			<dd><label for="viewonline"><input type="checkbox" name="viewonline" id="viewonline" tabindex="5" /> {s["hide"]}</label></dd>
		</dl>
		
		<input type="hidden" name="redirect" value="{esc(redirect)}" />
<input type="hidden" name="creation_time" value="{creation}" />
<input type="hidden" name="form_token" value="{token}" />

		
		<dl>
			<dt>&nbsp;</dt>
			<dd><input type="hidden" name="sid" value="{sid}" />
{extra}<input type="submit" name="login" tabindex="6" value="{s["login"]}" class="button1" /></dd>
		</dl>
		</fieldset>
	</div>

		</div>
</div>

</form>
"""
        return self._page(title=f"{self.title} - {s['login']}", section=section, body=body)

    def _form_token(self, sid: str, creation: int) -> str:
        return hashlib.sha1(f"{creation}{self._form_salt}login{sid}".encode()).hexdigest()

    def _pagination(self, base: str, total_posts: int, start: int) -> str:
        s = self.s
        if self.language == "ru":
            count = f"{total_posts} " + ru_plural_word(total_posts, "сообщение", "сообщения",
                                                   "сообщений")
        else:
            count = f"{total_posts} post" + ("" if total_posts == 1 else "s")
        pages = max(1, -(-total_posts // self.per_page))
        on = start // self.per_page + 1
        if pages == 1:
            return (f'\t\t\t<div class="pagination">\n\t\t\t{count}\n\t\t\t\t\t\t&bull; '
                    f'{s["page"]} <strong>1</strong> {s["of"]} <strong>1</strong>\n'
                    f'\t\t\t\t\t</div>\n')

        def href(n: int) -> str:
            return base if n == 1 else f"{base}&amp;start={(n - 1) * self.per_page}"
        start_page = min(max(1, on - 2), pages - 4) if pages > 5 else 1
        end_page = max(min(pages, on + 2), 5) if pages > 5 else pages
        items = []
        if on > 1:
            items.append(f'\t\t\t<li class="arrow previous"><a class="button button-icon-only" '
                         f'href="{href(on - 1)}" rel="prev" role="button"><i class="icon '
                         f'fa-chevron-left fa-fw" aria-hidden="true"></i><span class="sr-only">'
                         f'{s["prev"]}</span></a></li>')
        numbers: list[int | None] = list(range(start_page, end_page + 1))
        if start_page > 1:
            head: list[int | None] = [1, None] if start_page > 2 else [1]
            numbers = head + numbers
        if end_page < pages:
            tail: list[int | None] = [None, pages] if end_page < pages - 1 else [pages]
            numbers = numbers + tail
        for n in numbers:
            if n is None:
                items.append('\t\t\t<li class="ellipsis" role="separator"><span>…</span></li>')
            elif n == on:
                items.append(f'\t\t\t<li class="active"><span>{n}</span></li>')
            else:
                items.append(f'\t\t\t\t<li><a class="button" href="{href(n)}" role="button">'
                             f'{n}</a></li>')
        if on < pages:
            items.append(f'\t\t\t\t<li class="arrow next"><a class="button button-icon-only" '
                         f'href="{href(on + 1)}" rel="next" role="button"><i class="icon '
                         f'fa-chevron-right fa-fw" aria-hidden="true"></i><span class="sr-only">'
                         f'{s["next"]}</span></a></li>')
        return (f'\t\t\t<div class="pagination">\n\t\t\t{count}\n\t\t\t\t\t\t\t<ul>\n'
                + "\n".join(items) + "\n\t</ul>\n\t\t\t\t\t</div>\n")

    def _action_bar(self, t: BoardTopic, pagination: str, where: str) -> str:
        s = self.s
        if t.locked:
            button = (f'\t\t\t<a href="./posting.php?mode=reply&amp;t={t.topic_id}" class="button" '
                      f'title="{s["locked_title"]}">\n\t\t\t\t\t\t\t<span>{s["locked"]}</span> '
                      f'<i class="icon fa-lock fa-fw" aria-hidden="true"></i>\n\t\t\t\t\t</a>\n')
        else:
            button = (f'\t\t\t<a href="./posting.php?mode=reply&amp;t={t.topic_id}" class="button" '
                      f'title="{s["reply"]}">\n\t\t\t\t\t\t\t<span>{s["reply"]}</span> '
                      f'<i class="icon fa-reply fa-fw" aria-hidden="true"></i>\n\t\t\t\t\t</a>\n')
        return f'<div class="action-bar bar-{where}">\n\t\n{button}\t\n{pagination}\t\t</div>\n'

    def _post_counts(self) -> Counter:
        """Each author's posts on the board (phpBB's ``user_posts``), counted once a page."""
        return Counter(q.author_id for t in self.topics.values() for q in t.posts)

    def _render_post(self, p: BoardPost, index: int, bb: BBCodeRenderer,
                     counts: Counter | None = None) -> str:
        # long: one template: a prosilver post block in the real page's order
        s = self.s
        u = self.users.get(p.author_id) or BoardUser(p.author_id, p.author)
        link = self._user_link(p.author_id, p.author)
        posts_by = u.posts if u.posts is not None else (
            counts if counts is not None else self._post_counts())[p.author_id]
        rank = (f'\t\t\t\t\t\t<dd class="profile-rank">{esc(u.rank)}</dd>\t\t\t\n' if u.rank
                else "\t\t\t\t\t\t\t\t\t\n")
        by = s["by"]
        notice = ""
        if p.edit_count:
            editor_id = next((x.user_id for x in self.users.values() if x.name == p.edited_by),
                             p.author_id)
            elink = self._user_link(editor_id, p.edited_by or p.author)
            when = self.format_date(p.edited_at or p.posted_at, relative=False)
            if self.language == "ru":
                times = ru_plural_word(p.edit_count, "раз", "раза", "раз")
                text = (f"Последний раз редактировалось {elink} {when}, всего редактировалось "
                        f"{p.edit_count} {times}.")
            else:
                times = "time" if p.edit_count == 1 else "times"
                text = f"Last edited by {elink} on {when}, edited {p.edit_count} {times} in total."
            reason = (f'\n\t\t\t\t\t<br /><strong>{s["reason"]}:</strong> <em>'
                      f'{esc(p.edit_reason)}</em>' if p.edit_reason else "")
            notice = (f'\t\t\t\t\t\t\t\t\t\t\t\t\t<div class="notice">\n\t\t\t\t\t{text}'
                      f'{reason}\t\t\t\t</div>\n\t\t\t\n')
        else:
            notice = "\t\t\t\t\t\t\t\t\t\n"
        sig = "\t\t\t\t\t\t\t\t\t\t\n"
        if u.signature:
            sig = (f'\t\t\t\t\t\t\t<div id="sig{p.post_id}" class="signature">'
                   f'{bb.render(u.signature)}</div>\t\t\t\n')
        shown = self.format_date(p.posted_at)
        iso = p.posted_at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S+00:00")
        pid = p.post_id
        online = " online" if u.online else ""
        when = f'<time datetime="{iso}">{shown}</time>' if self.time_tags else shown
        return f"""			<div id="p{pid}" class="post has-profile bg{1 if index % 2 else 2}{online}">
		<div class="inner">

		<dl class="postprofile" id="profile{pid}">
			<dt class="{"has" if u.rank else "no"}-profile-rank no-avatar">
				<div class="avatar-container">
																			</div>
								{link}							</dt>

{rank}		<dd class="profile-posts"><strong>{s["posts"]}:</strong> <a href="./search.php?author_id={p.author_id}&amp;sr=posts">{posts_by}</a></dd>		<dd class="profile-joined"><strong>{s["joined"]}:</strong> {self.format_date(u.joined, relative=False)}</dd>		
		
						
						
		</dl>

		<div class="postbody">
						<div id="post_content{pid}">

					<h3 {'class="first"' if index == 0 else ""}>
						<a href="./viewtopic.php?p={pid}#p{pid}">{esc(p.subject)}</a>
		</h3>

													<ul class="post-buttons">
																																									<li>
							<a href="./posting.php?mode=quote&amp;p={pid}" title="{s["quote_title"]}" class="button button-icon-only">
								<i class="icon fa-quote-left fa-fw" aria-hidden="true"></i><span class="sr-only">{s["quote"]}</span>
							</a>
						</li>
														</ul>
							
						<p class="author">
									<a class="unread" href="./viewtopic.php?p={pid}#p{pid}" title="{s["post"]}">
						<i class="icon fa-file fa-fw icon-lightgray icon-md" aria-hidden="true"></i><span class="sr-only">{s["post"]}</span>
					</a>
								<span class="responsive-hide">{by} <strong>{link}</strong> &raquo; </span>{when}
			</p>
			
			
			
			
			<div class="content">{bb.render(p.body)}</div>

			
			
{notice}						
{sig}						</div>

		</div>

				<div class="back2top">
						<a href="#top" class="top" title="{s["top"]}">
				<i class="icon fa-chevron-circle-up fa-fw icon-gray" aria-hidden="true"></i>
				<span class="sr-only">{s["top"]}</span>
			</a>
					</div>
		
		</div>
	</div>

"""

    def render_topic(self, topic_id: int, start: int = 0, *, user: int = 1) -> str:
        """One viewtopic page (``start`` is clamped to the last page, as phpBB does)."""
        t = self.topics[topic_id]
        total = len(t.posts)
        last_start = max(0, (total - 1) // self.per_page * self.per_page)
        start = min(max(0, start - start % self.per_page), last_start)
        page_no = start // self.per_page + 1
        base = f"./viewtopic.php?t={topic_id}"
        pag = self._pagination(base, total, start)
        bb = self._bbcode()
        counts = self._post_counts()
        posts = "".join(self._render_post(p, i, bb, counts)
                        for i, p in enumerate(t.posts[start:start + self.per_page]))
        title = t.title + (f" - {self.s['page']} {page_no}" if page_no > 1 else "")
        body = (f'<h2 class="topic-title"><a href="{base}">{esc(t.title)}</a></h2>\n\n\n'
                + self._action_bar(t, pag, "top") + "\n\n\n\n" + posts
                + self._action_bar(t, pag, "bottom")
                + f'\n<div class="action-bar actions-jump">\n\t\t<p class="jumpbox-return">\n'
                  f'\t\t<a href="./viewforum.php?f={t.forum_id}" class="left-box arrow-left" '
                  f'accesskey="r">\n\t\t\t<i class="icon fa-angle-left fa-fw icon-black" '
                  f'aria-hidden="true"></i><span>{esc(self.forums.get(t.forum_id, ""))}'
                  f'</span>\n\t\t</a>\n\t</p>\n\t</div>\n')
        canonical = f"{self.url}viewtopic.php?t={topic_id}" + (f"&start={start}" if start else "")
        return self._page(title=f"{title} - {self.title}", section="viewtopic", body=body,
                          canonical=canonical, user=user, topic=t,
                          redirect=f"viewtopic.php?start={start}&t={topic_id}")

    def _feed_time(self, t: datetime) -> str:
        return t.astimezone(self.tz).isoformat(timespec="seconds")

    def render_topic_feed(self, topic_id: int) -> str:
        """The topic's Atom feed as phpBB 3.3 serves ``app.php/feed/topic/N``: the newest
        ``feed_limit`` posts, newest first; ``<published>`` is the post time, ``<updated>``
        the last edit (else the post time), both to the second with the board's offset."""
        t = self.topics[topic_id]
        root = self.url.rstrip("/")
        posts = sorted(t.posts, key=lambda p: (p.posted_at, p.post_id),
                       reverse=True)[:self.feed_limit]
        bb = self._bbcode()

        def cdata(text: str) -> str:
            return "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"

        def absolute(fragment: str) -> str:
            # phpBB's feed helper: one line, quotes without their <cite>, absolute links
            fragment = re.sub(r"<blockquote[^>]*><div><cite>.*?</cite>",
                              '<blockquote class="uncited"><div>', fragment.replace("\n", ""),
                              flags=re.S)
            return re.sub(r'(href|src)="\./', lambda m: f'{m.group(1)}="{root}/', fragment)

        entries = []
        for p in posts:
            link = f"{root}/viewtopic.php?p={p.post_id}#p{p.post_id}"
            stats = (f'<p>{self.s["feed_stats"]} <a href="{root}/memberlist.php?mode=viewprofile'
                     f'&amp;u={p.author_id}">{esc(p.author)}</a> — '
                     f'{self.format_date(p.posted_at, relative=False)}</p><hr />')
            entries.append(
                f"\t\t<entry>\n\t\t<author><name>{cdata(p.author)}</name></author>\n"
                f"\t\t<updated>{self._feed_time(p.edited_at or p.posted_at)}</updated>\n\n"
                f"\t\t<published>{self._feed_time(p.posted_at)}</published>\n"
                f"\t\t<id>{link}</id>\n\t\t<link href=\"{link}\"/>\n"
                f"\t\t<title type=\"html\">{cdata(p.subject)}</title>\n\n\t\t\n"
                f"\t\t<content type=\"html\" xml:base=\"{link}\">"
                f"{cdata(chr(10) + absolute(bb.render(p.body)) + stats + chr(10))}</content>\n"
                f"\t</entry>\n")
        newest = max((p.edited_at or p.posted_at for p in posts), default=None)
        feed_url = f"{root}/app.php/feed/topic/{topic_id}"
        lang = "ru" if self.language == "ru" else "en-gb"
        return (f'<?xml version="1.0" encoding="UTF-8"?>\n'
                f'<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="{lang}">\n'
                f'\t<link rel="self" type="application/atom+xml" href="{feed_url}" />\n\n'
                f'\t<title>{esc(self.title)}</title>\n'
                f'\t<subtitle>Local phpBB 3.3 test board</subtitle>\n'
                f'\t<link href="{root}/index.php" />\n'
                + (f'\t<updated>{self._feed_time(newest)}</updated>\n' if newest else "")
                + f'\n\t<author><name>{cdata(self.title)}</name></author>\n'
                f'\t<id>{feed_url}</id>\n\n' + "".join(entries) + "\t</feed>\n")

    def render_forum(self, forum_id: int, *, user: int = 1) -> str:
        """The topic list of a forum (newest topic first, as phpBB sorts by last post)."""
        s = self.s
        never = datetime.min.replace(tzinfo=timezone.utc)
        topics = sorted((t for t in self.topics.values() if t.forum_id == forum_id),
                        key=lambda t: (t.sticky, max((p.posted_at for p in t.posts),
                                                     default=never)),
                        reverse=True)   # stickies first, then by last post
        rows = []
        for i, t in enumerate(topics):
            first = t.posts[0] if t.posts else None
            last = t.posts[-1] if t.posts else None
            poster = (f' {self._user_link(first.author_id, first.author)} &raquo; <time '
                      f'datetime="{first.posted_at.astimezone(timezone.utc):%Y-%m-%dT%H:%M:%S+00:00}">'
                      f'{self.format_date(first.posted_at)}</time>' if first else "")
            lastpost = (f'{self._user_link(last.author_id, last.author)} <a href="./viewtopic.php?'
                        f'p={last.post_id}#p{last.post_id}" title="{s["last_post"]}">'
                        f'</a><br /><time datetime="{last.posted_at.astimezone(timezone.utc):%Y-%m-%dT%H:%M:%S+00:00}">'
                        f'{self.format_date(last.posted_at)}</time>' if last else "")
            kind = "sticky" if t.sticky else "topic"
            state = f"{kind}_read_locked" if t.locked else f"{kind}_read"
            sticky = " sticky" if t.sticky else ""
            rows.append(f"""		<li class="row bg{2 if i % 2 else 1}{sticky}">
						<dl class="row-item {state}">
				<dt>
										<div class="list-inner">
																		<a href="./viewtopic.php?t={t.topic_id}" class="topictitle">{esc(t.title)}</a>																								<br />
						<div class="topic-poster responsive-hide left-box">
							{poster}
						</div>
											</div>
				</dt>
				<dd class="posts">{max(0, len(t.posts) - 1)} <dfn>{s["replies"]}</dfn></dd>
				<dd class="views">{t.views} <dfn>{s["views"]}</dfn></dd>
				<dd class="lastpost">
					<span><dfn>{s["last_post"]} </dfn> {lastpost}
					</span>
				</dd>
			</dl>
					</li>
""")
        name = self.forums.get(forum_id, "")
        body = (f'<h2 class="forum-title"><a href="./viewforum.php?f={forum_id}">{esc(name)}'
                f'</a></h2>\n\t\t\t<div class="forumbg">\n\t\t<div class="inner">\n'
                f'\t\t<ul class="topiclist">\n\t\t\t<li class="header">\n\t\t\t\t<dl '
                f'class="row-item">\n\t\t\t\t\t<dt><div class="list-inner">{s["topics"]}</div>'
                f'</dt>\n\t\t\t\t</dl>\n\t\t\t</li>\n\t\t</ul>\n\t\t<ul class="topiclist topics">\n'
                + "".join(rows) + "\t\t\t\t</ul>\n\t\t</div>\n\t</div>\n")
        return self._page(title=f"{name} - {self.title}", section="viewforum", body=body,
                          canonical=f"{self.url}viewforum.php?f={forum_id}", user=user)
