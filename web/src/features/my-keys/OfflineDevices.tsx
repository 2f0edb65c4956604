// Air-gapped devices: a machine that never reaches the network writes an activation request file
// (the licensing SDK's createOfflineRequest); the customer uploads it here and downloads the signed
// response file to carry back. The device's deactivation proof comes back the same way and frees its
// slot. The server checks the key is this customer's and holds its device limit.
import { useId, useState, type FormEvent } from 'react';
import type { Schemas } from '../../../../worker/platform/api-client';
import { errorMessage } from '../../lib/api';
import { asyncHandler } from '../../lib/async-handler';
import { useOfflineActivation, useOfflineDeactivation } from './api';
import { translate, useT } from '../../lib/i18n';

type SignedFile = { type: string; answer: string; signature: string };
type Outcome = { tone: 'success' | 'error'; text: string; download?: { name: string; file: SignedFile } };

/** Up to here a request or a proof is; anything larger is not one. */
const MAX_FILE_BYTES = 16 * 1024;
export const RESPONSE_FILE_NAME = 'keypanel-offline-response.json';

/** What the signed answer says (the device verifies the signature; here it is only shown). */
const answerOf = (file: SignedFile) => JSON.parse(file.answer) as { code: string; detail: string; license: { key: string } | null };

/** What is wrong with the chosen file, said as it is (nothing was sent). */
class FileProblem extends Error {}

async function readJson(file: File | null): Promise<unknown> {
  if (!file) throw new FileProblem(translate('offline.chooseFile'));
  if (file.size > MAX_FILE_BYTES) throw new FileProblem(translate('offline.tooLarge', { name: file.name }));
  try {
    return JSON.parse(await file.text()) as unknown;
  } catch {
    throw new FileProblem(translate('offline.notJson', { name: file.name }));
  }
}

const problemText = (err: unknown, fallback: string) => (err instanceof FileProblem ? err.message : errorMessage(err, fallback));

function download(name: string, file: SignedFile) {
  const url = URL.createObjectURL(new Blob([`${JSON.stringify(file, null, 2)}\n`], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

export function OfflineDevices() {
  const t = useT();
  const requestId = useId();
  const proofId = useId();
  const [request, setRequest] = useState<File | null>(null);
  const [proof, setProof] = useState<File | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const activate = useOfflineActivation();
  const deactivate = useOfflineDeactivation();

  async function onActivate(e: FormEvent) {
    e.preventDefault();
    setOutcome(null);
    try {
      const body = (await readJson(request)) as Schemas['OfflineActivationRequest'];
      const file = await activate.mutateAsync(body);
      const answer = answerOf(file);
      if (answer.code !== 'OFFLINE_ACTIVATED')
        return setOutcome({ tone: 'error', text: t('offline.notActivated', { code: answer.code, detail: answer.detail }) });
      download(RESPONSE_FILE_NAME, file);
      setOutcome({
        tone: 'success',
        text: t('offline.activated', { key: answer.license?.key ?? t('offline.yourKey'), file: RESPONSE_FILE_NAME }),
        download: { name: RESPONSE_FILE_NAME, file },
      });
    } catch (err) {
      setOutcome({ tone: 'error', text: problemText(err, t('offline.activateFailed')) });
    }
  }

  async function onDeactivate(e: FormEvent) {
    e.preventDefault();
    setOutcome(null);
    try {
      const body = (await readJson(proof)) as Schemas['OfflineDeactivationProof'];
      const answer = answerOf(await deactivate.mutateAsync(body));
      setOutcome(
        answer.code === 'DEACTIVATED'
          ? { tone: 'success', text: t('offline.deactivated', { key: answer.license?.key ?? t('offline.yourKey') }) }
          : { tone: 'error', text: t('offline.nothingFreed', { code: answer.code, detail: answer.detail }) },
      );
    } catch (err) {
      setOutcome({ tone: 'error', text: problemText(err, t('offline.deactivateFailed')) });
    }
  }

  return (
    <section className="card offline-devices" aria-labelledby="offline-devices-heading">
      <h2 id="offline-devices-heading">{t('offline.title')}</h2>
      <p className="muted">{t('offline.intro')}</p>
      <form className="offline-form" onSubmit={asyncHandler(onActivate)}>
        <div className="field">
          <label htmlFor={requestId}>{t('offline.requestFile')}</label>
          <input id={requestId} type="file" accept=".json,application/json" onChange={(e) => setRequest(e.target.files?.[0] ?? null)} />
        </div>
        <button type="submit" className="btn btn-primary" disabled={!request || activate.isPending}>
          {activate.isPending ? t('offline.creating') : t('offline.create')}
        </button>
      </form>
      <form className="offline-form" onSubmit={asyncHandler(onDeactivate)}>
        <div className="field">
          <label htmlFor={proofId}>{t('offline.proofFile')}</label>
          <input id={proofId} type="file" accept=".json,application/json" onChange={(e) => setProof(e.target.files?.[0] ?? null)} />
        </div>
        <button type="submit" className="btn btn-secondary" disabled={!proof || deactivate.isPending}>
          {deactivate.isPending ? t('offline.freeing') : t('offline.free')}
        </button>
      </form>
      {outcome && (
        <div className={`notice notice-${outcome.tone}`} role={outcome.tone === 'error' ? 'alert' : 'status'}>
          {outcome.text}
          {outcome.download && (
            <>
              {' '}
              <button
                type="button"
                className="btn btn-secondary btn-sm"
                onClick={() => download(outcome.download!.name, outcome.download!.file)}
              >
                {t('offline.downloadAgain')}
              </button>
            </>
          )}
        </div>
      )}
    </section>
  );
}
