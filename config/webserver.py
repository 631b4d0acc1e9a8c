"""daphne on uvloop: `python -m config.webserver` takes daphne's arguments (`make run` and the tests
start daphne this way).

daphne runs Twisted on an asyncio loop it makes when `daphne.server` is first imported; a reactor
installed before that import is kept. This installs it on uvloop's loop (helena.infra.loops), which
does the selecting, waking and callback scheduling in C: about a quarter of a run start's CPU in
daphne was asyncio's own machinery (docs/betrieb.md, Issue 39). Plain `daphne …` still works, on
asyncio's loop; HELENA_UVLOOP=0 does the same here.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import environ

from helena.infra.loops import new_loop

BASE_DIR = Path(__file__).resolve().parent.parent


def main() -> None:
    # The loop is chosen before Django reads .env (config/settings.py): HELENA_UVLOOP from there, too.
    if (BASE_DIR / ".env").exists():
        environ.Env.read_env(BASE_DIR / ".env", overwrite=False)
    loop = new_loop()
    if "ASGI_THREADS" in os.environ:  # as daphne.server does for the loop it would have made
        loop.set_default_executor(ThreadPoolExecutor(max_workers=int(os.environ["ASGI_THREADS"])))
    # Imported only now: Twisted's reactor is chosen by whoever imports it first.
    from twisted.internet import asyncioreactor  # noqa: PLC0415

    asyncioreactor.install(loop)
    from daphne.cli import CommandLineInterface  # noqa: PLC0415

    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
