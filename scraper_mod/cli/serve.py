"""`scraper-mod serve GAME_OR_FOLDER [--host 127.0.0.1] [--port 8720]`: the host's page
(docs/commands.md "The host's page") for one game or every game folder under a folder, served by
waitress until Ctrl-C or SIGTERM.

A new random token each start, printed in the URL (``http://127.0.0.1:8720/?token=…``): the
page answers nothing without it. It listens on 127.0.0.1 unless ``--host`` says otherwise,
and then warns: to open it from another device, an SSH tunnel is the safe way.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from .common import SubParsers, add_game_argument

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def register(sub: SubParsers) -> None:
    p = sub.add_parser("serve", help="the host's web page for a game or a folder of games "
                                     "(prints its address with an access token)",
        description="The host's web page for a game or a folder of games (prints its address with "
                    "an access token).")
    add_game_argument(p, many=True)
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default 127.0.0.1: this machine only; "
                        "from another device use an SSH tunnel rather than 0.0.0.0)")
    p.add_argument("--port", type=int, default=8720, help="the port (default 8720; 0: any free)")
    p.set_defaults(func=run)


def page_url(host: str, port: int, token: str) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/?token={token}"


def run(args: argparse.Namespace) -> int:
    import secrets

    from waitress import create_server

    from scraper_mod.game.setup.config import load_game

    from ..daemon.many import is_games_folder
    from ..errors import ScraperModError
    from ..game.russian import game_language
    from ..web import create_app

    target = Path(args.game)
    if not is_games_folder(target):
        load_game(target)            # a game that does not load: one error line, no server
    token = secrets.token_urlsafe(24)
    app = create_app(target, token=token)
    try:
        server = create_server(app, host=args.host, port=args.port, threads=4,
                               ident="scraper-mod")
    except OSError as e:
        raise ScraperModError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}",
                              hint="is another program using the port? give another with "
                                   "--port",
                              ru=f"не удаётся слушать {args.host}:{args.port}: порт занят или "
                                 "недоступен (другой порт: --port; подробности — с ключом "
                                 "-v)") from None
    ru = game_language(target) != "en"   # a folder of games: Russian, the default (issue 39)
    if args.host not in LOCAL_HOSTS:
        print(f"предупреждение: страница слушает {args.host}, а не 127.0.0.1: открыть её может "
              f"любой, кто достучится до этого адреса, и связь не шифруется; с другого "
              f"устройства надёжнее SSH-туннель: `ssh -L {args.port}:127.0.0.1:{args.port} "
              f"THIS_HOST`" if ru else
              f"warning: listening on {args.host}, not 127.0.0.1: anyone who can reach this "
              f"address can try the page, and its traffic is not encrypted; to open it from "
              f"another device, prefer an SSH tunnel: ssh -L {args.port}:127.0.0.1:"
              f"{args.port} THIS_HOST", file=sys.stderr)
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "") else args.host
    url = page_url(shown, server.effective_port, token)
    print(f"страница ведущего: {url}" if ru else f"the host's page: {url}", flush=True)
    print("(Ctrl-C — остановить; ключ доступа меняется при каждом запуске)" if ru else
          "(Ctrl-C stops it; the token changes at each start)", flush=True)

    def stop(signum, frame) -> None:
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, stop)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, old)
        server.close()
    print("остановлено" if ru else "stopped", flush=True)
    return 0
