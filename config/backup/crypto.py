"""A backup encrypted with a passphrase: AES-256-GCM in chunks of 1 MiB, the key from scrypt.

Streamed, so a backup of many gigabytes never sits in memory. Every chunk is authenticated on its
own; its nonce carries its number and whether it is the last, so chunks cannot be reordered, left
out or cut off unnoticed. A check value in the header tells a wrong passphrase apart from a damaged
file before anything is read. The layout (all after the magic authenticated as associated data):

    magic "HLNSICH1" | log2(n), r, p of scrypt (1 byte each) | salt (16) | nonce prefix (7) | check (16)
    then chunks: last? (1 byte) | length (4, big-endian) | ciphertext with its tag

The passphrase comes from HELENA_SICHERUNG_PASSPHRASE or a file (--passphrase-datei), never from
the command line, where `ps` would show it to every user of the machine.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import BinaryIO

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from config.backup.errors import SicherungFehler

MAGIC = b"HLNSICH1"
CHUNK = 1 << 20
LOG2_N, R, P = 17, 8, 1  # scrypt as OWASP advises: 128 MiB and about a second per key
MAX_SCRYPT_MEMORY = 512 << 20  # what a header may ask for: four times what we write
PASSPHRASE_ENV = "HELENA_SICHERUNG_PASSPHRASE"
MIN_LENGTH = 12
_HEADER = struct.Struct(">8sBBB16s7s")
_CHUNK_HEAD = struct.Struct(">BI")
_CHECK_NONCE = b"\xff\xff\xff\xff\x02"


def passphrase(datei: str | None) -> str | None:
    """The passphrase from the file if one is named, else from the environment; None when neither."""
    if datei:
        try:
            text = Path(datei).read_text(encoding="utf-8")
        except OSError as exc:
            raise SicherungFehler(f"Die Passphrase-Datei {datei} lässt sich nicht lesen "
                                  f"({exc.strerror or exc}).") from exc
        value = text.splitlines()[0] if text.strip() else ""
        if not value:
            raise SicherungFehler(f"Die Passphrase-Datei {datei} ist leer.")
        return value
    return os.environ.get(PASSPHRASE_ENV) or None


def _key(secret: str, salt: bytes, log2_n: int, r: int, p: int) -> bytes:
    # A header is read before anything is authenticated: its demands are capped (scrypt takes
    # 128·r·n bytes), so a crafted archive cannot ask for gigabytes or hours.
    if not 10 <= log2_n <= 22 or not 1 <= r <= 32 or not 1 <= p <= 4 or 128 * r << log2_n > MAX_SCRYPT_MEMORY:
        raise SicherungFehler("Das Archiv ist beschädigt (Kopf der Verschlüsselung unlesbar).")
    return Scrypt(salt=salt, length=32, n=1 << log2_n, r=r, p=p).derive(secret.encode("utf-8"))


def is_encrypted(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(len(MAGIC)) == MAGIC


class EncryptingWriter:
    """A write-only file object: what is written lands encrypted in `raw`; close() ends the stream
    (and does not close `raw`)."""

    def __init__(self, raw: BinaryIO, secret: str) -> None:
        salt, self._prefix = os.urandom(16), os.urandom(7)
        self._aes = AESGCM(_key(secret, salt, LOG2_N, R, P))
        self._header = _HEADER.pack(MAGIC, LOG2_N, R, P, salt, self._prefix)
        check = self._aes.encrypt(self._prefix + _CHECK_NONCE, b"", self._header)
        self._raw = raw
        self._raw.write(self._header + check)
        self._buffer = bytearray()
        self._counter = 0
        self.closed = False

    def write(self, data: bytes) -> int:
        self._buffer += data
        while len(self._buffer) >= CHUNK:
            self._emit(bytes(self._buffer[:CHUNK]), last=False)
            del self._buffer[:CHUNK]
        return len(data)

    def _emit(self, plain: bytes, *, last: bool) -> None:
        nonce = self._prefix + struct.pack(">IB", self._counter, int(last))
        sealed = self._aes.encrypt(nonce, plain, self._header)
        self._raw.write(_CHUNK_HEAD.pack(int(last), len(sealed)) + sealed)
        self._counter += 1

    def close(self) -> None:
        if not self.closed:
            self._emit(bytes(self._buffer), last=True)
            self._buffer.clear()
            self.closed = True


class DecryptingReader:
    """A read-only file object over an encrypted archive; a wrong passphrase is refused on opening,
    a damaged or cut-off chunk when it is reached (SicherungFehler either way)."""

    def __init__(self, raw: BinaryIO, secret: str) -> None:
        header = raw.read(_HEADER.size)
        check = raw.read(16)
        if len(header) < _HEADER.size or len(check) < 16:
            raise SicherungFehler("Das Archiv ist beschädigt (zu kurz).")
        magic, log2_n, r, p, salt, self._prefix = _HEADER.unpack(header)
        if magic != MAGIC:
            raise SicherungFehler("Das ist kein verschlüsseltes Archiv von Helena.")
        self._aes = AESGCM(_key(secret, salt, log2_n, r, p))
        self._header = header
        try:
            self._aes.decrypt(self._prefix + _CHECK_NONCE, check, header)
        except InvalidTag:
            raise SicherungFehler("Die Passphrase ist falsch (oder der Kopf des Archivs ist beschädigt). "
                                  "Es wurde nichts verändert.", code="passphrase_falsch") from None
        self._raw = raw
        self._chunk, self._pos = b"", 0  # the decrypted chunk being read, and how far
        self._counter = 0
        self._done = False

    def _next(self) -> bytes:
        head = self._raw.read(_CHUNK_HEAD.size)
        if len(head) < _CHUNK_HEAD.size:
            raise SicherungFehler("Das Archiv ist beschädigt: es endet vorzeitig.")
        last, length = _CHUNK_HEAD.unpack(head)
        sealed = self._raw.read(length)
        if last not in (0, 1) or len(sealed) != length:
            raise SicherungFehler("Das Archiv ist beschädigt: es endet vorzeitig.")
        nonce = self._prefix + struct.pack(">IB", self._counter, last)
        try:
            plain = self._aes.decrypt(nonce, sealed, self._header)
        except InvalidTag:
            raise SicherungFehler(f"Das Archiv ist beschädigt (Block {self._counter + 1} "
                                  "stimmt nicht).") from None
        self._counter += 1
        if last:
            if self._raw.read(1):
                raise SicherungFehler("Das Archiv ist beschädigt: hinter dem Ende steht noch etwas.")
            self._done = True
        return plain

    def read(self, size: int = -1) -> bytes:
        """Up to `size` bytes (all with -1); each decrypted chunk is sliced once per read, never copied
        whole again (tarfile reads in 10 kB steps)."""
        parts: list[bytes] = []
        while size != 0:
            if self._pos >= len(self._chunk):
                if self._done:
                    break
                self._chunk, self._pos = self._next(), 0
                continue
            end = len(self._chunk) if size < 0 else min(len(self._chunk), self._pos + size)
            parts.append(self._chunk[self._pos:end])
            size -= 0 if size < 0 else end - self._pos
            self._pos = end
        return b"".join(parts)
