"""LocalBoard's private-message pages: the inbox and one message, as phpBB 3.3.15 shows them
to the logged-in user. ``PMPages`` is a mixin of ``LocalBoard``.
"""

from __future__ import annotations

from ..posts.bbcode import esc
from .localboard_model import BoardBase


class PMPages(BoardBase):
    """Mixin: LocalBoard's private-message pages."""

    def render_pm_inbox(self, user: int) -> str:
        """The prosilver inbox (``ucp.php?i=pm&folder=inbox``), newest first."""
        s = self.s
        msgs = sorted((m for m in self.pms.values() if m.to_id == user),
                      key=lambda m: (m.sent_at, m.msg_id), reverse=True)
        rows = []
        for i, m in enumerate(msgs):
            href = f"./ucp.php?i=pm&amp;mode=view&amp;f=0&amp;p={m.msg_id}"
            by = f"{s['by']} " if s["by"] else ""
            rows.append(f"""					<li class="row bg{1 if i % 2 else 2}">
				<dl class="row-item {"pm_read" if m.read else "pm_unread"}">
					<dt>
						<a href="{href}" class="row-item-link"></a>						<div class="list-inner">

													<a href="{href}" class="topictitle">{esc(m.subject)}</a>
																		 <br />
						 {by}{self._user_link(m.author_id, m.author)} &raquo; {self.format_date(m.sent_at)}
						</div>
					</dt>
															<dd class="mark"><input type="checkbox" name="marked_msg_id[]" value="{m.msg_id}" /></dd>
				</dl>
			</li>
""")
        body = f"""<h2 class="ucp-title">{s["ucp"]}</h2>
<div id="tabs" class="tabs">
	<ul>
		<li class="tab activetab"><a href="./ucp.php?i=pm">{s["view_messages"]}</a></li>
	</ul>
</div>
<div class="panel bg3">
	<div class="inner">
	<h2>{s["view_messages"]}: {s["inbox"]}</h2>
<form id="viewfolder" method="post" action="./ucp.php?i=pm&amp;mode=view&amp;action=view_folder&amp;f=0">

<div class="panel">
	<div class="inner">
	<div class="action-bar bar-top">
						<a href="./ucp.php?i=pm&amp;mode=compose" accesskey="n" class="button">
				<span>{s["new_pm"]}</span> <i class="icon fa-pencil fa-fw" aria-hidden="true"></i>
			</a>
		</div>
			<ul class="topiclist two-columns">
			<li class="header">
				<dl>
					<dt><div class="list-inner">{s["message"]}</div></dt>
					<dd class="mark">{s["mark"]}</dd>
				</dl>
			</li>
		</ul>
		<ul class="topiclist cplist pmlist responsive-show-all two-columns">

{"".join(rows)}		</ul>
	</div>
</div>
</form>
	</div>
</div>
"""
        unread = sum(1 for m in msgs if not m.read)
        prefix = f"({unread}) " if unread else ""
        return self._page(title=f"{prefix}{self.title} - {s['ucp']} - {s['view_messages']}",
                          section="ucp", body=body, user=user)

    def render_pm_view(self, msg_id: int, user: int) -> str | None:
        """One message's view page (``ucp.php?i=pm&mode=view&p=N``); marks it read."""
        m = self.pms.get(msg_id)
        if m is None or user not in (m.to_id, m.author_id):   # the sender sees it too
            return None
        if m.to_id == user:
            m.read = True
        s = self.s
        to = self.users.get(m.to_id)
        to_link = self._user_link(m.to_id, to.name if to else "?")
        bb = self._bbcode()
        html = bb.render(m.body)
        body = f"""<h2 class="ucp-title">{s["ucp"]}</h2>
<div class="panel bg3">
	<div class="inner">
<h2>{s["view_messages"]}: {s["inbox"]}</h2>
<form id="viewfolder" method="post" action="./ucp.php?i=ucp_pm&amp;mode=view&amp;action=view_message">
<div id="post-{m.msg_id}" class="post pm has-profile">
<div class="inner">
	<dl class="postprofile" id="profile{m.msg_id}">
		<dt class="no-profile-rank no-avatar">
						{self._user_link(m.author_id, m.author)}
					</dt>
	</dl>
	<div class="postbody">
		<h3 class="first">{esc(m.subject)}</h3>
								<ul class="post-buttons">
										<li>
					<a href="./ucp.php?i=pm&amp;mode=compose&amp;action=quote&amp;f=0&amp;p={m.msg_id}" class="button button-icon-only">
						<i class="icon fa-quote-left fa-fw" aria-hidden="true"></i><span class="sr-only">{s["quote"]}</span>
					</a>
				</li>
								</ul>
		<p class="author">
			<strong>{s["sent"]}:</strong> {self.format_date(m.sent_at)}
			<br /><strong>{s["from"]}:</strong> {self._user_link(m.author_id, m.author)}
			<br /><strong>{s["to"]}:</strong> {to_link}&nbsp;					</p>
		<div class="content">{html}</div>
			</div>
	</div>
</div>
</form>
	</div>
</div>
"""
        return self._page(title=f"{self.title} - {s['ucp']} - {s['view_messages']}",
                          section="ucp", body=body, user=user)
