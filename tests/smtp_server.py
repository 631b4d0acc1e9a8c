"""A real SMTP server for the tests: aiosmtpd on 127.0.0.1 and a free port, in a thread of the test
process; every mail it accepts is kept (envelope and parsed message). Stopped, the port refuses
connections, as a mail server that is down does. `antworten` scripts refusals as real servers give
them: `server.antworten["RCPT"] = ["450 4.2.0 Greylisted"]` answers the next RCPT TO so, then accepts
again (MAIL for the sender)."""

from __future__ import annotations

import email
import email.policy
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller

from tests.scripted_llm_server import unused_port


@dataclass(frozen=True)
class Empfangen:
    mail_from: str
    rcpt_tos: list[str]
    message: EmailMessage

    @property
    def betreff(self) -> str:
        return str(self.message["Subject"]).strip()  # a long subject is folded onto a new line

    @property
    def text(self) -> str:
        return self.message.get_content()


class _Handler:
    def __init__(self, server: SmtpServer) -> None:
        self.server = server

    def _geskriptet(self, befehl: str) -> str | None:
        with self.server.lock:
            liste = self.server.antworten.get(befehl)
            return liste.pop(0) if liste else None

    async def handle_MAIL(self, server: Any, session: Any, envelope: Any, address: str,
                          mail_options: list[str]) -> str:
        if (antwort := self._geskriptet("MAIL")) is not None:
            return antwort
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          rcpt_options: list[str]) -> str:
        if (antwort := self._geskriptet("RCPT")) is not None:
            return antwort
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.original_content or envelope.content,
                                           policy=email.policy.default)
        with self.server.lock:
            self.server.empfangen.append(Empfangen(envelope.mail_from, list(envelope.rcpt_tos), message))
        return "250 Message accepted for delivery"


class SmtpServer:
    def __init__(self, port: int | None = None) -> None:
        self.port = port or unused_port()
        self.empfangen: list[Empfangen] = []
        self.antworten: dict[str, list[str]] = {}  # "MAIL"/"RCPT" → the next replies, then "250 OK"
        self.lock = threading.Lock()
        self._controller: Controller | None = None

    def start(self) -> SmtpServer:
        self._controller = Controller(_Handler(self), hostname="127.0.0.1", port=self.port)
        self._controller.start()
        return self

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    def warte_auf(self, anzahl: int, *, sekunden: float = 20.0) -> list[Empfangen]:
        """The mails received once there are `anzahl` (or the deadline passed)."""
        deadline = time.monotonic() + sekunden
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.empfangen) >= anzahl:
                    break
            time.sleep(0.05)
        with self.lock:
            return list(self.empfangen)


@contextmanager
def smtp_server(port: int | None = None) -> Iterator[SmtpServer]:
    server = SmtpServer(port).start()
    try:
        yield server
    finally:
        server.stop()
