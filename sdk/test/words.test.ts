// The SDK is published on its own, so it keeps its own copy of the licensing API's words; they must
// be the Worker's (worker/platform/vocabulary.ts), or an app would misread an answer.
import { describe, expect, it } from 'vitest';
import {
  EXPIRY_MODELS as WORKER_EXPIRY_MODELS,
  KEY_STATUSES as WORKER_KEY_STATUSES,
  LICENSE_CODES,
} from '../../worker/platform/vocabulary';
import {
  OFFLINE_PROOF_TYPE as WORKER_PROOF_TYPE,
  OFFLINE_REQUEST_TYPE as WORKER_REQUEST_TYPE,
  OFFLINE_RESPONSE_TYPE as WORKER_RESPONSE_TYPE,
} from '../../worker/modules/licensing/schemas';
import { EXPIRY_MODELS, KEY_STATUSES, OFFLINE_PROOF_TYPE, OFFLINE_REQUEST_TYPE, OFFLINE_RESPONSE_TYPE, SERVER_CODES } from '../src/index';

describe("the SDK's words", () => {
  it('are the licensing API result codes, exactly', () => {
    expect([...SERVER_CODES].sort()).toEqual([...LICENSE_CODES].sort());
  });

  it('name the air-gapped files as the server does', () => {
    expect([OFFLINE_REQUEST_TYPE, OFFLINE_RESPONSE_TYPE, OFFLINE_PROOF_TYPE]).toEqual([
      WORKER_REQUEST_TYPE,
      WORKER_RESPONSE_TYPE,
      WORKER_PROOF_TYPE,
    ]);
  });

  it('are the key statuses the API shows, exactly', () => {
    expect([...KEY_STATUSES].sort()).toEqual([...WORKER_KEY_STATUSES].sort());
  });

  it('are the licence models (how a key ends) the API names, exactly', () => {
    expect([...EXPIRY_MODELS].sort()).toEqual([...WORKER_EXPIRY_MODELS].sort());
  });
});
