"""What a topic's store holds now, for the poller's tests: the latest version of each post."""

from scraper_mod.forum.model import Post
from scraper_mod.forum.poller import canonical_topic_url, stored_posts
from scraper_mod.store import Store


def current_posts(store: Store, topic_url: str) -> list[Post]:
    """The latest stored version of each post not marked deleted, in topic order."""
    key = canonical_topic_url(topic_url)
    deleted = store.deleted_posts(key)
    latest = {post.post_id: post for post, _ in stored_posts(store, key)}
    return sorted((p for pid, p in latest.items() if pid not in deleted),
                  key=lambda p: (p.posted_at, p.post_id))
