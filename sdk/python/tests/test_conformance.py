"""The Python SDK against the conformance vectors (sdk/conformance/), as the TypeScript and Go SDKs
run them; and a verifier that skips the signature, which must fail them."""
from __future__ import annotations

import os
import re

import pytest

import keypanel.verify
from keypanel import CLIENT_CODES, SERVER_CODES, Code
from conformance import load_vectors, run_case

FILES = load_vectors()
CASES = [(name, vectors["publicKey"]["pem"], case) for name, vectors in FILES for case in vectors["cases"]]
SIGNED_TAMPERS = {"changed-byte", "changed-signature", "wrong-key", "forged-valid"}
ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")


@pytest.mark.parametrize("name,pem,case", CASES, ids=[f"{n}: {c['name']}" for n, _, c in CASES])
def test_vector(name, pem, case):
    assert run_case(case, pem) is None


def test_the_enum_holds_every_code_the_api_answers():
    with open(os.path.join(ROOT, "worker", "platform", "vocabulary.ts"), encoding="utf-8") as f:
        source = f.read()
    listed = re.search(r"export const LICENSE_CODES = \[(.*?)\] as const", source, re.S).group(1)
    api = set(re.findall(r"'([A-Z_]+)'", listed))
    assert {c.value for c in SERVER_CODES} == api
    assert {c.value for c in Code} == api | {c.value for c in CLIENT_CODES}


def test_the_vectors_cover_every_code():
    covered = {case["code"] for _, _, case in CASES if case["tamper"] is None}
    assert {c.value for c in SERVER_CODES} <= covered


def test_a_verifier_that_skips_the_signature_fails_the_suite(monkeypatch):
    # Every Ed25519 check says yes: what a hand-rolled offline check that forgets the signature does.
    monkeypatch.setattr(keypanel.verify, "_ed25519", lambda key, signature, data: True)
    tampered = [(n, pem, c) for n, pem, c in CASES if c["tamper"] in SIGNED_TAMPERS]
    passed_anyway = [f"{n}: {c['name']}" for n, pem, c in tampered if run_case(c, pem) is None]
    assert len(tampered) > 100
    assert passed_anyway == []
