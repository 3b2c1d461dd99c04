"""The host's page as a Flask app (docs/commands.md "The host's page"): ``create_app(target,
token=...)``. ``scraper-mod serve`` runs it under waitress.

Security (the page shows roles and night moves):

- every request needs the start's token: ``?token=`` once (compared in constant time), which
  sets an HttpOnly, SameSite=Strict cookie (named per port, its value derived from the token)
  and redirects to the same address without it;
  then the cookie. Without it: 401 (no token) or 403 (a wrong one), a page with no game data;
- every action is a POST carrying the start's CSRF token (compared in constant time), and a
  POST from another origin is refused;
- the moves, the roles and the host report are not in the game page at all: its script
  fetches them from ``/api/games/NAME/secret`` after the host's click;
- answers are never cached, never framed, send no referrer to another site, and run only the page's own
  script (a Content-Security-Policy of script-src 'self').
"""

from __future__ import annotations

import hmac
import secrets
import threading
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from flask import (
    Flask,
    Response,
    abort,
    flash,
    get_flashed_messages,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.json.provider import DefaultJSONProvider

from scraper_mod.game.day.days import list_days
from scraper_mod.game.day.tally import count_asked
from scraper_mod.game.setup.config import GAME_FILE

from ..clock import Clock
from ..errors import ScraperModError
from ..game.context import GameContext, open_game
from ..game.russian import error_in, game_language
from .actions import ACTIONS
from .forum import register_forum
from .i18n import (
    MOVE_STATUS,
    PUBLISH_KIND,
    PUBLISH_STATUS,
    ROLE_KIND,
    named,
    winner_line,
    word,
)
from .view import (
    game_view,
    games_of,
    games_overview,
    page_day,
    page_tally,
    secret_view,
    tally_chart,
)

COOKIE = "scraper_mod_token"     # + "_PORT": browsers share cookies between ports
HERE = Path(__file__).parent


def _same(a: str | None, b: str) -> bool:
    return a is not None and hmac.compare_digest(a.encode(), b.encode())


def _cookie(token: str) -> tuple[str, str]:
    """This server's cookie: its name holds the port (two ``serve`` on one machine keep
    their own), its value is derived from the token for that name, so what a browser sends
    to another local web app on another port opens no other page and is not the token."""
    port = request.host.rpartition(":")[2] if ":" in request.host else (
        "443" if request.scheme == "https" else "80")
    name = f"{COOKIE}_{port}" if port.isdigit() else COOKIE
    value = hmac.new(token.encode(), name.encode(), "sha256").hexdigest()
    return name, value


class OpenGames:
    """The games ``serve`` shows, by NAME. Each server thread keeps its games open between
    requests (a page refreshes every few seconds): the store's decoded letters stay cached
    with its ``Store``, as in ``run``. A game is opened again when its game.toml changes.
    SQLite connections stay in the thread that opened them."""

    def __init__(self, target: Path, clock: Clock | None) -> None:
        self.target = target
        self.clock = clock
        self._local = threading.local()

    def paths(self) -> dict[str, Path]:
        return games_of(self.target)

    def get(self, path: Path) -> GameContext:
        cache: dict = self._local.__dict__.setdefault("games", {})
        toml = path if path.is_file() else path / GAME_FILE
        try:
            stamp = toml.stat().st_mtime_ns
        except OSError:
            stamp = None
        key = str(path.resolve())
        hit = cache.get(key)
        if hit is not None and hit[0] == stamp:
            return hit[1]
        if hit is not None:
            cache.pop(key)[1].close()
        ctx = open_game(path, clock=self.clock)
        cache[key] = (stamp, ctx)
        return ctx

    def named(self, name: str) -> GameContext:
        """The game NAME, or 404."""
        paths = self.paths()
        if name not in paths:
            abort(404)
        return self.get(paths[name])


def create_app(target: str | Path, *, token: str, clock: Clock | None = None,
               csrf: str | None = None) -> Flask:
    """The page for one game folder (or its game.toml) or a folder of game folders.
    ``token`` is the start's access token; ``clock`` the clock the games read (tests)."""
    app = Flask(__name__, template_folder=str(HERE / "templates"),
                static_folder=str(HERE / "static"), static_url_path="/static")
    app.secret_key = secrets.token_bytes(32)      # the flash messages' cookie, per start
    app.config.update(SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Strict",
                      SESSION_COOKIE_NAME="scraper_mod_flash")
    if isinstance(app.json, DefaultJSONProvider):     # Russian as it is, the contract's key order
        app.json.ensure_ascii = False
        app.json.sort_keys = False
    csrf_token = csrf or secrets.token_urlsafe(32)
    games = OpenGames(Path(target), clock)
    _guard(app, token=token, csrf=csrf_token)

    @app.context_processor
    def helpers() -> dict:
        return {"csrf_token": csrf_token, "word": word, "kinds": ROLE_KIND,
                "statuses": MOVE_STATUS, "winner_line": winner_line, "named": named,
                "publish_kind": PUBLISH_KIND, "publish_status": PUBLISH_STATUS}

    @app.errorhandler(ScraperModError)
    def scraper_error(e: ScraperModError):
        if request.path.startswith("/api/"):
            return jsonify({"error": str(e), **({"ru": e.ru} if e.ru else {})}), 409
        lang = _error_lang(games)      # issue 39: a Russian game's box is Russian only
        return render_template("error.html", message=error_in(e, lang), lang=lang), 409

    _pages(app, games)
    _api(app, games)
    register_forum(app, games)
    return app


def _error_lang(games: "OpenGames") -> str:
    """The language of the game the failed request names (its game file read as text: the
    error may be that it does not load); the default, Russian, when it names none."""
    name = (request.view_args or {}).get("name")
    path = games.paths().get(name) if isinstance(name, str) else None
    return (game_language(path) if path is not None else None) or "ru"


def _denied(code: int) -> Response:
    """401 (no token) or 403 (a wrong one): a page with no game data, in both languages."""
    text = f"{word('denied', 'ru')}\n{word('denied', 'en')}\n"
    resp = Response(text, status=code, mimetype="text/plain")
    if code == 401:
        resp.headers["WWW-Authenticate"] = 'Token realm="scraper-mod"'
    return resp


def _guard(app: Flask, *, token: str, csrf: str) -> None:
    """The token (then its cookie) on every request, the CSRF token and origin on every
    POST, and the headers of every answer."""

    @app.before_request
    def check_token():
        given = request.args.get("token")
        if given is not None:
            if not _same(given, token):
                return _denied(403)
            args = {k: v for k, v in request.args.items(multi=True) if k != "token"}
            resp = redirect(request.path + (("?" + urlencode(args)) if args else ""), code=303)
            name, value = _cookie(token)
            resp.set_cookie(name, value, httponly=True, samesite="Strict", path="/")
            return resp
        name, value = _cookie(token)
        cookie = request.cookies.get(name)
        if cookie is None:
            return _denied(401)
        if not _same(cookie, value):
            return _denied(403)
        if request.method == "POST":
            origin = request.headers.get("Origin")
            if origin and urlsplit(origin).netloc != request.host:
                return _denied(403)
            if not _same(request.form.get("csrf"), csrf):
                return _denied(403)
        return None

    @app.after_request
    def harden(resp: Response) -> Response:
        resp.headers["Cache-Control"] = "no-store"
        resp.headers["X-Frame-Options"] = "DENY"
        resp.headers["X-Content-Type-Options"] = "nosniff"
        resp.headers["Referrer-Policy"] = "same-origin"   # Origin stays on our own POSTs
        resp.headers["Content-Security-Policy"] = (
            # inline styles: the posts' preview sizes and colours text as the board does
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
            "script-src 'self'; "
            "frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
        return resp


def _pages(app: Flask, games: OpenGames) -> None:
    """``/``, ``/games/NAME`` and the actions."""

    @app.get("/")
    def index():
        rows = games_overview(games.paths(), games.get)
        lang = next((r["view"].lang for r in rows if "view" in r), "ru")
        return render_template("games.html", rows=rows, lang=lang)

    @app.get("/games/<name>")
    def game(name: str):
        ctx = games.named(name)
        day = request.args.get("day", type=int)
        v = game_view(ctx, name, day=day if day and day > 0 else None)
        forms = [(a, {f.name: (f.default(ctx, v.day) if f.default else "") for f in a.fields})
                 for a in ACTIONS.values() if a.shown(ctx)]
        return render_template("game.html", v=v, lang=v.lang, forms=forms, days=list_days(ctx),
                               results=get_flashed_messages(with_categories=True))

    @app.post("/games/<name>/actions/<act>")
    def run_action(name: str, act: str):
        """Runs the action's service, then shows what changed on the game's page."""
        spec = ACTIONS.get(act)
        if spec is None:
            abort(404)
        ctx = games.named(name)
        lang = ctx.game.language if ctx.game.language in ("ru", "en") else "en"
        try:
            for line in spec.run(ctx, request.form, lang):
                flash(line, "done")
        except ScraperModError as e:
            flash(word("error_line", lang, error=error_in(e, lang)), "failed")
        return redirect(url_for("game", name=name), code=303)


def _api(app: Flask, games: OpenGames) -> None:
    """What the page's script fetches."""

    @app.get("/api/games/<name>/tally")
    def api_tally(name: str):
        """The object of ``tally --format json --offline`` (from what is stored)."""
        result = count_asked(games.named(name), day=request.args.get("day", type=int),
                             at=request.args.get("at") or None, poll=False)
        return jsonify(result.to_json())

    @app.get("/api/games/<name>/chart")
    def api_chart(name: str):
        """The vote-history chart, as the page draws it (the page's script swaps it in)."""
        ctx = games.named(name)
        day = request.args.get("day", type=int) or page_day(ctx)[0]
        return Response(tally_chart(ctx, page_tally(ctx, day)), mimetype="image/svg+xml")

    @app.get("/api/games/<name>/secret")
    def api_secret(name: str):
        """The moves as judged, whose move is awaited and the host report: fetched only when
        the host clicks to see them."""
        ctx = games.named(name)
        day = request.args.get("day", type=int) or page_day(ctx)[0]
        return jsonify(secret_view(ctx, day))
