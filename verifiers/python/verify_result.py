#!/usr/bin/env python3
"""Verify a result bundle (GET /v1/log/result/{sha256}) offline.

Needs only the standard library and `cryptography` (Debian: python3-cryptography). It shares no
code with the service: its own RFC 8785 canonicalisation, RFC 6962 inclusion check and C2SP
signed-note parsing.

    python3 verify_result.py bundle.json [--signing-key HEX] [--log-key HEX] [--witness VKEY]...
    python3 verify_result.py --canonicalize input.json      # prints the RFC 8785 form

Each --witness (a C2SP cosignature/v1 verifier key, <name>+<key id>+<base64 key>) requires that
witness's cosignature on the checkpoint (C2SP tlog-witness).

Exit code 0 when every step passes, 1 when one fails, 2 on bad usage.
"""
import base64
import hashlib
import json
import math
import re
import struct
import sys
from datetime import datetime, timezone

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

BUNDLE_FORMAT = "attestation-result-bundle/v1"
# The first file a verifier tries is often the paid answer itself.
NOT_A_BUNDLE_HINT = "a paid answer is not a bundle: save the result's bundle from GET /v1/log/result/<sha256>"


# --- RFC 8785 -----------------------------------------------------------------------------

def _es_number(value):
    """A number as ECMAScript's Number.prototype.toString writes it (RFC 8785 section 3.2.2.3)."""
    if isinstance(value, bool):
        raise TypeError("not a number")
    if isinstance(value, int):
        if abs(value) > 2**53:
            value = float(value)  # JSON numbers are IEEE 754 doubles
        else:
            return str(value)
    if math.isnan(value) or math.isinf(value):
        raise ValueError("RFC 8785 has no form for NaN or Infinity")
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    # repr gives the shortest round-tripping digits; re-lay them out as ECMAScript does.
    mantissa, _, exp = repr(abs(value)).partition("e")
    digits_int, _, digits_frac = mantissa.partition(".")
    digits = (digits_int + digits_frac).lstrip("0")
    point = len(digits_int.lstrip("0")) if digits_int.strip("0") else -(len(digits_frac) - len(digits_frac.lstrip("0")))
    point += int(exp or 0)
    digits = digits.rstrip("0") or "0"
    k, n = len(digits), point
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    exponent = ("+" if e >= 0 else "-") + str(abs(e))
    return sign + digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + exponent


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _es_string(text):
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif code < 0x20 or 0xD800 <= code <= 0xDFFF:
            out.append("\\u%04x" % code)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def canonicalize(value):
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return _es_number(value)
    if isinstance(value, str):
        return _es_string(value)
    if isinstance(value, list):
        return "[" + ",".join(canonicalize(v) for v in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value.keys(), key=lambda k: k.encode("utf-16-be", "surrogatepass"))
        return "{" + ",".join(_es_string(k) + ":" + canonicalize(value[k]) for k in keys) + "}"
    raise TypeError("no JSON form for %r" % type(value))


def canonical_bytes(value):
    return canonicalize(value).encode("utf-8", "surrogatepass")


# --- Ed25519, RFC 6962, C2SP signed notes ------------------------------------------------

def ed25519_verify(public_key, message, signature):
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
        return True
    except (InvalidSignature, ValueError):
        return False


def _sha256(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p)
    return h.digest()


def root_from_inclusion(leaf, index, size, path):
    if not (0 <= index < size):
        return None
    fn, sn = index, size - 1
    r = _sha256(b"\x00", leaf)
    for sibling in path:
        if sn == 0:
            return None
        if fn % 2 == 1 or fn == sn:
            r = _sha256(b"\x01", sibling, r)
            while fn % 2 == 0 and fn != 0:
                fn //= 2
                sn //= 2
        else:
            r = _sha256(b"\x01", r, sibling)
        fn //= 2
        sn //= 2
    return r.hex() if sn == 0 else None


def _note_key_id(name, kind, public_key):
    return _sha256(name.encode("utf-8"), bytes([0x0A, kind]), public_key)[:4]


def _signature_line(line):
    """A signed note's signature line "\u2014 <key name> <base64(key id || signature)>" as
    (name, payload), or None for any other line."""
    match = re.fullmatch(r"\u2014 (\S+) ([A-Za-z0-9+/=]+)", line)
    return (match.group(1), base64.b64decode(match.group(2))) if match else None


def open_checkpoint(note, public_key):
    split = note.rfind("\n\n")
    if split < 0 or not note.endswith("\n"):
        raise ValueError("the checkpoint is not a signed note")
    body = note[: split + 1]
    lines = body.split("\n")
    origin, size_text, root_b64 = lines[0], lines[1], lines[2]
    if not re.fullmatch(r"0|[1-9][0-9]*", size_text):
        raise ValueError("the checkpoint has no tree size")
    root = base64.b64decode(root_b64, validate=True)
    if len(root) != 32:
        raise ValueError("the checkpoint root is not 32 bytes")
    note_id, cosig_id = _note_key_id(origin, 0x01, public_key), _note_key_id(origin, 0x04, public_key)
    signed, issued_at = False, None
    for line in filter(None, note[split + 2:].split("\n")):
        signature = _signature_line(line)
        if signature is None:
            raise ValueError("malformed signature line")
        name, payload = signature
        if name != origin:
            continue
        if payload[:4] == note_id and len(payload) == 68:
            if not ed25519_verify(public_key, body.encode("utf-8"), payload[4:]):
                raise ValueError("the log signature does not verify")
            signed = True
        elif payload[:4] == cosig_id and len(payload) == 76:
            issued_at = _cosignature_time(body, payload, public_key)
            if issued_at is None:
                raise ValueError("the timestamped cosignature does not verify")
    if not signed:
        raise ValueError("no valid signature of the log key")
    if issued_at is None:
        raise ValueError("no timestamped cosignature of the log key")
    return {"origin": origin, "tree_size": int(size_text), "root_hash": root.hex(), "issued_at": issued_at}


# --- the bundle --------------------------------------------------------------------------

def open_witness_key(vkey):
    """A witness's verifier key: (name, key id, public key), the id checked against name and key."""
    name, _, rest = vkey.partition("+")
    id_hex, _, key_b64 = rest.partition("+")
    typed = base64.b64decode(key_b64, validate=True) if key_b64 else b""
    if not name or not re.fullmatch(r"[0-9a-f]{8}", id_hex) or len(typed) != 33 or typed[0] != 0x04:
        raise ValueError('"%s" is not a cosignature/v1 verifier key <name>+<key id>+<base64 of 0x04 and 32 bytes>' % vkey)
    key_id = _note_key_id(name, 0x04, typed[1:])
    if key_id.hex() != id_hex:
        raise ValueError("the key id of %s is %s, not %s" % (name, key_id.hex(), id_hex))
    return name, key_id, typed[1:]


def witness_cosigned_at(note, witness):
    """The time of the witness's valid cosignature on the note, or None."""
    name, key_id, public_key = witness
    split = note.rfind("\n\n")
    body = note[:split + 1]
    for line in note[split + 2:].split("\n"):
        signature = _signature_line(line)
        if signature is None or signature[0] != name:
            continue
        payload = signature[1]
        if len(payload) != 76 or payload[:4] != key_id:
            continue
        time = _cosignature_time(body, payload, public_key)
        if time is not None:
            return time
    return None


def _cosignature_time(body, payload, public_key):
    """The time of a timestamped cosignature (key id, 8-byte time, Ed25519 signature over
    "cosignature/v1\\ntime <t>\\n" + body), or None when it does not verify."""
    (time,) = struct.unpack(">Q", payload[4:12])
    message = ("cosignature/v1\ntime %d\n" % time).encode("utf-8") + body.encode("utf-8")
    return time if ed25519_verify(public_key, message, payload[12:]) else None


def _missing_member(bundle):
    """The first member a bundle must have and does not, or None."""
    result = bundle.get("result")
    if not isinstance(result, dict):
        return "`result` object"
    if not isinstance(result.get("record"), dict):
        return "`result.record` object"
    for name in ("sha256", "ed25519Sig", "key_id", "key_family"):
        if not isinstance(result.get(name), str):
            return "`result.%s` text" % name
    return None


def verify_bundle(bundle, signing_key_hex=None, log_key_hex=None, witness_keys=()):
    steps = []

    def step(name, ok, detail):
        steps.append((name, ok, detail))
        return ok

    try:
        if bundle.get("format") != BUNDLE_FORMAT:
            step("format", False, "not an %s document (%s)" % (BUNDLE_FORMAT, NOT_A_BUNDLE_HINT))
            return steps
        missing = _missing_member(bundle)
        if missing:
            step("format", False, "the bundle has no %s" % missing)
            return steps
        result = bundle["result"]
        data = canonical_bytes(result["record"])
        digest = hashlib.sha256(data).hexdigest()
        if not step("digest", digest == result["sha256"], "SHA-256 of the RFC 8785 bytes of the record (%d bytes) = %s" % (len(data), digest)):
            return steps
        key_hex = signing_key_hex or (bundle.get("signing_key") or {}).get("public_key")
        key = bytes.fromhex(key_hex)
        key_id = hashlib.sha256(key).hexdigest()[:16]
        if not step("key id", key_id == result["key_id"], "key id %s; the result was signed with %s (%s)" % (key_id, result["key_id"], "pinned" if signing_key_hex else "key from the bundle")):
            return steps
        if not step("signature", ed25519_verify(key, data, bytes.fromhex(result["ed25519Sig"])), "Ed25519 over the record's RFC 8785 bytes"):
            return steps
        if not bundle.get("inclusion") or not bundle.get("checkpoint"):
            step("inclusion", False, "the bundle has no inclusion proof yet: fetch it again once a checkpoint covers the result")
            return steps
        log_key = bytes.fromhex(log_key_hex or bundle["log_key"]["public_key"])
        checkpoint = open_checkpoint(bundle["checkpoint"], log_key)
        when = datetime.fromtimestamp(checkpoint["issued_at"], tz=timezone.utc).isoformat()
        step("checkpoint", True, "signed by the log key for %s: %d results, issued at %s" % (checkpoint["origin"], checkpoint["tree_size"], when))
        inclusion = bundle["inclusion"]
        leaf = canonical_bytes({"key_family": result["key_family"], "key_id": result["key_id"], "sha256": result["sha256"]})
        root = root_from_inclusion(leaf, inclusion["leaf_index"], checkpoint["tree_size"], [bytes.fromhex(h) for h in inclusion["audit_path"]])
        step("inclusion", root == checkpoint["root_hash"], "leaf %d leads to %s; the checkpoint's root is %s" % (inclusion["leaf_index"], root, checkpoint["root_hash"]))
        for vkey in witness_keys:
            witness = open_witness_key(vkey)
            at = witness_cosigned_at(bundle["checkpoint"], witness)
            if at is None:
                step("witness " + witness[0], False, "no cosignature of this witness on the checkpoint verifies with its key")
            else:
                step("witness " + witness[0], True, "cosigned the checkpoint at %s: it saw no other history of this log" % datetime.fromtimestamp(at, tz=timezone.utc).isoformat())
    except (KeyError, TypeError, ValueError) as err:
        step("error", False, str(err))
    return steps


def main(argv):
    args = list(argv)
    if len(args) == 2 and args[0] == "--canonicalize":
        with open(args[1], "rb") as f:
            sys.stdout.buffer.write(canonical_bytes(json.loads(f.read().decode("utf-8"))))
        return 0
    witnesses = []
    while "--witness" in args:
        at = args.index("--witness")
        if at + 1 >= len(args):
            print("--witness takes a verifier key <name>+<key id>+<base64 key>", file=sys.stderr)
            return 2
        witnesses.append(args[at + 1])
        del args[at:at + 2]
    pins = {}
    for flag in ("--signing-key", "--log-key"):
        if flag in args:
            at = args.index(flag)
            value = args[at + 1] if at + 1 < len(args) else ""
            if not re.fullmatch(r"[0-9a-f]{64}", value):
                print("%s takes a 32-byte public key in lowercase hex" % flag, file=sys.stderr)
                return 2
            pins[flag] = value
            del args[at:at + 2]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    with open(args[0], "r", encoding="utf-8") as f:
        bundle = json.load(f)
    steps = verify_bundle(bundle, pins.get("--signing-key"), pins.get("--log-key"), witnesses)
    for name, ok, detail in steps:
        print("%s %s: %s" % ("ok  " if ok else "FAIL", name, detail))
    valid = bool(steps) and all(ok for _, ok, _ in steps)
    print("VALID" if valid else "INVALID")
    return 0 if valid else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
