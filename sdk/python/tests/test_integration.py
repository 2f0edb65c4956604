"""The Python SDK against a real local KeyPanel (scripts/sdk-languages.ts starts it, as the CLI
tests start theirs, and makes a customer with a key of each kind): activate, validate, go offline,
wind the clock back, heartbeat a floating seat, borrow, start a trial, consume with a retried
Idempotency-Key, refuse a tampered answer, deactivate, and activate air-gapped."""
from __future__ import annotations

import base64
import json
import os
import threading
import time
import urllib.request

import pytest

from keypanel import Code, FileStore, Licensing, MemoryStore, Retry, SignatureError, device_fingerprint, device_info
from keypanel.http import urllib_transport

FIXTURES = os.environ.get("KEYPANEL_TEST_FIXTURES")
if not FIXTURES:
    if os.environ.get("KEYPANEL_REQUIRE_INTEGRATION"):
        raise RuntimeError("KEYPANEL_TEST_FIXTURES is not set: run through `npm run test:sdks`")
    pytest.skip("no local KeyPanel: `npm run test:sdks` (or `npm test`) starts one for this test", allow_module_level=True)

with open(FIXTURES, encoding="utf-8") as f:
    FIX = json.load(f)
URL = FIX["url"]
PEM = FIX["publicKeyPem"]
KEYS = FIX["keys"]
NO_WAIT = Retry(retries=2, base_delay=0.01, max_delay=1)


def client(store=None, **options) -> Licensing:
    options.setdefault("retry", NO_WAIT)
    return Licensing(URL, PEM, store if store is not None else MemoryStore(), **options)


def holder_call(path: str, body: dict) -> dict:
    """The key's holder, signed in on a connected machine (what My Keys or the CLI does)."""
    request = urllib.request.Request(
        URL + path,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "authorization": f"Bearer {FIX['customerToken']}"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as res:
        return json.loads(res.read())


def test_activate_validate_offline_clock_and_deactivate(tmp_path):
    key = KEYS["nodeLocked"]
    fp = device_fingerprint(salt="python-integration")
    assert len(fp) == 64
    store = FileStore(str(tmp_path / "license.json"))
    licensing = client(store)

    first = licensing.validate(key, fp)
    assert (first.valid, first.code, first.source) == (False, Code.NOT_ACTIVATED, "online")
    activated = licensing.activate(key.lower(), fp, device_info=device_info())
    assert (activated.valid, activated.code, activated.source) == (True, Code.VALID, "online")
    assert activated.license.key == key and activated.license.entitlements == ["pro"]
    assert activated.offline_token.key == key and activated.offline_token.fingerprint == fp
    assert licensing.validate(key, fp).code == Code.VALID
    assert licensing.has_entitlement(key, fp, "pro") and not licensing.has_entitlement(key, fp, "enterprise")
    assert licensing.trusted_time() is not None

    # The server out of reach: the kept token answers, from the file, in a new process's client.
    down = Licensing("http://127.0.0.1:9", PEM, FileStore(str(tmp_path / "license.json")), retry=Retry(retries=0))
    offline = down.validate(key, fp)
    assert (offline.valid, offline.code, offline.source) == (True, Code.VALID, "offline")
    assert down.check_offline(key, fp).valid
    # The clock wound back a day: nothing offline is believed.
    rewound = Licensing("http://127.0.0.1:9", PEM, FileStore(str(tmp_path / "license.json")), retry=Retry(retries=0), clock=lambda: time.time() - 86400)
    assert rewound.validate(key, fp).code == Code.CLOCK_BEHIND
    with pytest.raises(SignatureError):
        rewound.verify_token(activated.offline_token.token)

    # A second device: the key is full, and the refusal lists the device holding it.
    full = client().activate(key, fp + "-other")
    assert full.code == Code.DEVICE_LIMIT_REACHED and len(full.devices) == 1

    gone = licensing.deactivate(key, fp)
    assert (gone.valid, gone.code) == (False, Code.DEACTIVATED) and gone.slot_frees_at is not None
    assert licensing.check_offline(key, fp).code == Code.UNREACHABLE


def test_a_tampered_answer_is_refused_and_changes_nothing():
    key = KEYS["tampered"]
    fp = device_fingerprint(salt="python-tampered")
    store = MemoryStore()
    assert client(store).activate(key, fp).valid

    def tampering(url, body, headers, timeout):
        status, data, answer_headers = urllib_transport(url, body, headers, timeout)
        return status, data.replace(b'"valid":true', b'"valid":false'), answer_headers

    result = client(store, transport=tampering).validate(key, fp)
    assert (result.valid, result.code, result.source) == (False, Code.INVALID_SIGNATURE, "none")
    assert client(store).check_offline(key, fp).valid


def test_consume_reuses_its_idempotency_key_on_retry():
    key = KEYS["metered"]
    fp = device_fingerprint(salt="python-metered")
    assert client().activate(key, fp).valid
    sent = []

    def flaky(url, body, headers, timeout):
        # The first attempt never reaches the server; the retry does, with the same Idempotency-Key.
        sent.append(headers.get("Idempotency-Key"))
        if len(sent) == 1:
            raise ConnectionResetError("dropped")
        return urllib_transport(url, body, headers, timeout)

    debit = client(transport=flaky, sleep=lambda s: None).consume(key, fp, amount=3, idempotency_key="py-debit-1")
    assert (debit.valid, debit.code) == (True, Code.CONSUMED)
    assert sent == ["py-debit-1", "py-debit-1"]
    assert debit.license.usage.remaining == FIX["meteredAllowance"] - 3
    again = client().consume(key, fp, amount=3, idempotency_key="py-debit-1")
    assert again.code == Code.CONSUMED and again.license.usage.remaining == FIX["meteredAllowance"] - 3
    too_much = client().consume(key, fp, amount=1000)
    assert too_much.code == Code.USAGE_EXHAUSTED and not too_much.valid


def test_a_floating_seat_heartbeats_on_its_thread_and_borrows():
    key = KEYS["floating"]
    fp = device_fingerprint(salt="python-floating")
    licensing = client()
    taken = licensing.activate(key, fp)
    assert taken.valid and taken.lease_expires_at is not None
    assert client().activate(key, fp + "-other").code == Code.NO_SEAT_AVAILABLE
    beats = []
    done = threading.Event()
    heartbeat = licensing.start_heartbeat(key, fp, on_result=lambda r: (beats.append(r), done.set()))
    assert done.wait(30)
    heartbeat.stop()
    assert not heartbeat.running
    assert beats[0].valid and beats[0].code == Code.VALID and beats[0].lease_expires_at >= taken.lease_expires_at
    borrowed = licensing.borrow(key, fp, hours=2)
    assert borrowed.valid and borrowed.borrowed_until is not None
    assert borrowed.offline_token.expires_at >= borrowed.borrowed_until.replace(microsecond=0)
    released = licensing.deactivate(key, fp)
    assert released.code == Code.SEAT_RELEASED


def test_a_trial():
    fp = device_fingerprint(salt=f"python-trial-{time.time()}")
    started = client().start_trial(FIX["trialKeyTag"], fp)
    assert (started.valid, started.code) == (True, Code.TRIAL_STARTED) and started.license.trial
    assert client().start_trial(FIX["trialKeyTag"], fp).code == Code.TRIAL_ALREADY_USED


def test_air_gapped_activation_and_deactivation():
    key = KEYS["airGapped"]
    fp = device_fingerprint(salt="python-air-gapped")
    device = Licensing("http://offline.invalid", PEM, MemoryStore(), retry=Retry(retries=0))
    request = device.create_offline_request(key, fp, device_info=device_info())
    assert request["type"] == "keypanel.offline-activation-request" and request["key"] == key
    response = holder_call("/api/users/my-keys/offline-activations", request)
    applied = device.apply_offline_response(json.dumps(response), fp)
    assert (applied.valid, applied.code) == (True, Code.OFFLINE_ACTIVATED)
    assert device.check_offline(key, fp).valid
    assert device.apply_offline_response(response, fp).code == Code.NOT_THIS_REQUEST
    forged = dict(response, signature=base64.b64encode(b"\0" * 64).decode())
    assert device.apply_offline_response(forged, fp).code == Code.INVALID_SIGNATURE

    proof = device.create_deactivation_proof(key, fp)
    assert not device.check_offline(key, fp).valid
    receipt = holder_call("/api/users/my-keys/offline-deactivations", proof)
    assert json.loads(receipt["answer"])["code"] == "DEACTIVATED"
