"""Ed25519 keys and DSSE envelopes (https://github.com/secure-systems-lab/dsse, v1.0.0).

A signature is Ed25519 over PAE(payloadType, payload) =
    b"DSSEv1" SP LEN(type) SP type SP LEN(payload) SP payload
with LEN the byte length as ASCII decimal. The envelope is
    {"payload": base64(payload), "payloadType": type, "signatures": [{"keyid": ..., "sig": base64(sig)}]}.
Keys: the private key as unencrypted PKCS#8 PEM, the public key as SubjectPublicKeyInfo PEM; a key
id is the sha256 (hex) of the public key's 32 raw bytes.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from kg.errors import BundleError, ConfigError

PRIVATE_KEY_FILE = "kg-bundle.key"
PUBLIC_KEY_FILE = "kg-bundle.pub"


def pae(payload_type: str, payload: bytes) -> bytes:
    """DSSE's pre-authentication encoding of (payloadType, payload)."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)


def key_id(public: Ed25519PublicKey) -> str:
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()


def public_pem(public: Ed25519PublicKey) -> bytes:
    return public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def keygen(folder: Path) -> tuple[Path, Path, str]:
    """A new Ed25519 key pair in folder: (private key path, public key path, key id). The private
    key file is created with mode 0600; an existing key is never overwritten."""
    private_path, public_path = folder / PRIVATE_KEY_FILE, folder / PUBLIC_KEY_FILE
    for path in (private_path, public_path):
        if path.exists():
            raise ConfigError(f"{path} already exists: kg never overwrites a key. Use it, move it away, or pass "
                              "--out to make a key pair elsewhere.")
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError as exc:
        raise ConfigError(f"{private_path} already exists: kg never overwrites a key.") from exc
    except OSError as exc:
        raise ConfigError(f"Cannot write a key pair into {folder} ({exc.strerror}): pass --out with a writable "
                          "folder.") from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(pem)
        os.chmod(private_path, 0o600)  # whatever the umask
        public_path.write_bytes(public_pem(key.public_key()))
    except OSError as exc:
        private_path.unlink(missing_ok=True)  # half a pair would block the next keygen
        raise ConfigError(f"Cannot write a key pair into {folder} ({exc.strerror}): pass --out with a writable "
                          "folder.") from exc
    return private_path, public_path, key_id(key.public_key())


def load_private(path: Path) -> Ed25519PrivateKey:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"Cannot read the private key {path} ({exc.strerror}). Make one with `kg bundle keygen`, "
                          "or pass --key PRIVATE.") from exc
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"{path} is not an unencrypted PEM private key: give the file `kg bundle keygen` wrote.") from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise ConfigError(f"{path} is not an Ed25519 key: bundles are signed with Ed25519 (`kg bundle keygen`).")
    return key


def load_public(path: Path) -> Ed25519PublicKey:
    """An Ed25519 public key from a PEM file (BundleError when it is not one)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BundleError(f"Cannot read the public key {path} ({exc.strerror}): give the signer's .pub file.") from exc
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError) as exc:
        raise BundleError(f"{path} is not a PEM public key: give the signer's kg-bundle.pub.") from exc
    if not isinstance(key, Ed25519PublicKey):
        raise BundleError(f"{path} is not an Ed25519 public key: bundles are signed with Ed25519.")
    return key


def sign(payload: bytes, payload_type: str, key: Ed25519PrivateKey) -> dict[str, Any]:
    """A DSSE envelope of payload with one signature (Ed25519 signatures are deterministic)."""
    return {
        "payload": base64.b64encode(payload).decode("ascii"),
        "payloadType": payload_type,
        "signatures": [{"keyid": key_id(key.public_key()),
                        "sig": base64.b64encode(key.sign(pae(payload_type, payload))).decode("ascii")}],
    }


def envelope_bytes(envelope: dict[str, Any]) -> bytes:
    return (json.dumps(envelope, indent=2, sort_keys=True) + "\n").encode("utf-8")


def _b64(text: Any) -> bytes:
    if not isinstance(text, str):
        raise ValueError("not a string")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return base64.urlsafe_b64decode(text)  # DSSE allows either alphabet


def parse(envelope: Any) -> tuple[str, bytes, list[tuple[str, bytes]]]:
    """(payloadType, payload, [(keyid, signature)]) of an envelope (ValueError when malformed)."""
    if not isinstance(envelope, dict) or not isinstance(envelope.get("payloadType"), str):
        raise ValueError("no payloadType")
    signatures = envelope.get("signatures")
    if not isinstance(signatures, list) or not signatures:
        raise ValueError("no signatures")
    parsed = []
    for sig in signatures:
        if not isinstance(sig, dict):
            raise ValueError("a signature is not an object")
        parsed.append((str(sig.get("keyid") or ""), _b64(sig.get("sig"))))
    return envelope["payloadType"], _b64(envelope.get("payload")), parsed


def verify(payload_type: str, payload: bytes, signatures: list[tuple[str, bytes]], key: Ed25519PublicKey) -> bool:
    """Whether any signature is key's over PAE(payload_type, payload) (key ids are only hints)."""
    message = pae(payload_type, payload)
    for _keyid, sig in signatures:
        try:
            key.verify(sig, message)
            return True
        except InvalidSignature:
            continue
    return False
