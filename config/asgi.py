"""ASGI entry point for daphne: HTTP through Django, websockets through Channels."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs the app registry)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from akten.accounts.auth import WebsocketTokenOrSessionAuth  # noqa: E402
from config.body_limit import BodyLimit  # noqa: E402
from config.db_unavailable import DatabaseUnavailableWebsocket  # noqa: E402
from config.logfilter import daphne_zugriffe_maskieren  # noqa: E402
from helena.routing import websocket_urlpatterns  # noqa: E402

daphne_zugriffe_maskieren()  # a calendar feed's key stays out of daphne's access log

application = ProtocolTypeRouter({
    "http": BodyLimit(django_asgi_app),  # an oversized upload is refused before it is read
    # Session first (cookie), then a Bearer token or an Origin check may override the user; the database
    # away while a socket connects or reads: closed with 4503 (config/db_unavailable.py)
    "websocket": DatabaseUnavailableWebsocket(
        AuthMiddlewareStack(WebsocketTokenOrSessionAuth(URLRouter(websocket_urlpatterns)))),
})

# Durable runs: this process beats for its runs, takes over inline runs of a daphne that is gone, and
# hands its own over when told to stop (helena/runs/durable/).
from helena.runs.durable.shutdown import hand_over_before_twisted_stops  # noqa: E402
from helena.runs.durable.watch import watch  # noqa: E402

watch.start(role="web")
hand_over_before_twisted_stops()

# Everything runs need is loaded now: freeze it and collect garbage less often (config/gc_tuning.py).
from config.gc_tuning import tune as tune_gc  # noqa: E402

tune_gc()
