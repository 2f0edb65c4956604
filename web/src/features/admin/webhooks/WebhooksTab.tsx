// The owner's Webhooks view: endpoints with their health; add (secret shown once), edit, enable or
// disable, rotate the secret, send a test; each endpoint's deliveries with a redeliver button.
import { useState, type FormEvent, type ReactNode } from 'react';
import type { Schemas } from '../../../../../worker/platform/api-client';
import { createWebhookSchema, WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../../../../worker/modules/webhooks/schemas';
import { useStepUpPrompt } from '../../../components/StepUp';
import { Badge } from '../../../components/ui/badge';
import { Card, EmptyState } from '../../../components/ui/card';
import { ConfirmModal } from '../../../components/ui/confirm-modal';
import { DataTable, type Column } from '../../../components/ui/data-table';
import { Field } from '../../../components/ui/field';
import { FormModal } from '../../../components/ui/form-modal';
import { Modal } from '../../../components/ui/modal';
import { Pagination } from '../../../components/ui/pagination';
import { QueryState } from '../../../components/ui/query-state';
import { ShownOnceSecret } from '../../../components/ui/shown-once-secret';
import { toast } from '../../../components/ui/toast';
import { errorMessage } from '../../../lib/api';
import { asyncHandler } from '../../../lib/async-handler';
import { formatDateTime, formatNumber } from '../../../lib/format';
import { useT, type MessageId } from '../../../lib/i18n';
import { DeliveryAttempts } from './DeliveryAttempts';
import { schemaMessage } from '../schema-messages';
import {
  useCreateWebhook,
  useDeleteWebhook,
  useDeliveries,
  useRedeliver,
  useRotateSecret,
  useSendTest,
  useUpdateWebhook,
  useWebhookEndpoints,
} from './api';

type WebhookEndpoint = Schemas['WebhookEndpoint'];

const when = (iso: string | null) => formatDateTime(iso);

type Dialog =
  | { kind: 'add' }
  | { kind: 'edit'; endpoint: WebhookEndpoint }
  | { kind: 'delete'; endpoint: WebhookEndpoint }
  | { kind: 'deliveries'; endpoint: WebhookEndpoint }
  | { kind: 'rotate'; endpoint: WebhookEndpoint }
  | { kind: 'secret'; url: string; secret: string };

export function WebhooksTab() {
  const endpoints = useWebhookEndpoints();
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const close = () => setDialog(null);
  const t = useT();

  return (
    <Card
      title={t('admin.webhooks.title')}
      actions={
        <button type="button" className="btn btn-primary btn-sm" onClick={() => setDialog({ kind: 'add' })}>
          {t('admin.webhooks.add')}
        </button>
      }
    >
      <p className="muted">{t('admin.webhooks.intro')}</p>
      <QueryState
        query={endpoints}
        loading={t('admin.webhooks.loading')}
        failed={errorMessage(endpoints.error, t('admin.webhooks.loadFailed'))}
        isEmpty={(list) => list.length === 0}
        empty={<EmptyState title={t('admin.webhooks.emptyTitle')}>{t('admin.webhooks.empty')}</EmptyState>}
      >
        {(list) => (
          <ul className="webhook-list" aria-label={t('admin.webhooks.list')}>
            {list.map((endpoint) => (
              <EndpointItem key={endpoint.id} endpoint={endpoint} open={setDialog} />
            ))}
          </ul>
        )}
      </QueryState>
      {dialog?.kind === 'add' && <EndpointForm onClose={close} onCreated={(url, secret) => setDialog({ kind: 'secret', url, secret })} />}
      {dialog?.kind === 'edit' && <EndpointForm endpoint={dialog.endpoint} onClose={close} />}
      {dialog?.kind === 'delete' && <DeleteModal endpoint={dialog.endpoint} onClose={close} />}
      {dialog?.kind === 'deliveries' && <DeliveriesModal endpoint={dialog.endpoint} onClose={close} />}
      {dialog?.kind === 'rotate' && (
        <RotateModal
          endpoint={dialog.endpoint}
          onClose={close}
          onRotated={(secret) => setDialog({ kind: 'secret', url: dialog.endpoint.url, secret })}
        />
      )}
      {dialog?.kind === 'secret' && <SecretModal url={dialog.url} secret={dialog.secret} onClose={close} />}
    </Card>
  );
}

function Health({ endpoint }: { endpoint: WebhookEndpoint }) {
  const t = useT();
  if (!endpoint.enabled) return <Badge tone="gray">{t('admin.webhooks.disabled')}</Badge>;
  if (endpoint.failingSince)
    return (
      <Badge tone="red" title={t('admin.webhooks.failingSince', { when: when(endpoint.failingSince) })}>
        {t('admin.webhooks.failing')}
      </Badge>
    );
  return <Badge tone="green">{t('admin.webhooks.healthy')}</Badge>;
}

/** One of an endpoint's actions: a small button whose work runs to its end (its errors are toasts). */
function ActionButton({ disabled, onClick, children }: { disabled: boolean; onClick: () => Promise<void>; children: ReactNode }) {
  return (
    <button type="button" className="btn btn-secondary btn-sm" disabled={disabled} onClick={() => void onClick()}>
      {children}
    </button>
  );
}

function EndpointItem({ endpoint, open }: { endpoint: WebhookEndpoint; open: (d: Dialog) => void }) {
  const update = useUpdateWebhook();
  const test = useSendTest();
  const busy = update.isPending || test.isPending;
  const { health } = endpoint;
  const t = useT();

  async function run<T>(work: () => Promise<T>, done: (result: T) => void, failure: string) {
    try {
      done(await work());
    } catch (err) {
      toast.error(errorMessage(err, failure));
    }
  }

  return (
    <li className="webhook-item">
      <div className="webhook-head">
        <span className="mono webhook-url">{endpoint.url}</span> <Health endpoint={endpoint} />
      </div>
      {endpoint.description && <p className="muted">{endpoint.description}</p>}
      <p className="muted small">{endpoint.events.join(', ')}</p>
      <p className="small">
        {t('admin.webhooks.health', {
          delivered: formatNumber(health.delivered24h),
          failed: formatNumber(health.failed24h),
          pending: formatNumber(health.pending),
          last: when(health.lastDeliveryAt),
        })}
        {health.lastStatus ? ` (${health.lastStatus})` : ''}
      </p>
      {endpoint.disabledReason && (
        <div className="notice notice-warning" role="status">
          {endpoint.disabledReason}
        </div>
      )}
      <div className="button-row">
        <button type="button" className="btn btn-secondary btn-sm" onClick={() => open({ kind: 'deliveries', endpoint })}>
          {t('admin.webhooks.deliveries')}
        </button>
        <button type="button" className="btn btn-secondary btn-sm" onClick={() => open({ kind: 'edit', endpoint })}>
          {t('admin.webhooks.edit')}
        </button>
        <ActionButton
          disabled={busy}
          onClick={() =>
            run(
              () => update.mutateAsync({ id: endpoint.id, body: { enabled: !endpoint.enabled } }),
              () => toast.success(endpoint.enabled ? t('admin.webhooks.disabledDone') : t('admin.webhooks.enabledDone')),
              t('admin.webhooks.changeFailed'),
            )
          }
        >
          {endpoint.enabled ? t('admin.webhooks.disable') : t('admin.webhooks.enable')}
        </ActionButton>
        <ActionButton
          disabled={busy || !endpoint.enabled}
          onClick={() =>
            run(
              () => test.mutateAsync(endpoint.id),
              () => toast.success(t('admin.webhooks.testQueued')),
              t('admin.webhooks.testFailed'),
            )
          }
        >
          {t('admin.webhooks.sendTest')}
        </ActionButton>
        <button type="button" className="btn btn-secondary btn-sm" disabled={busy} onClick={() => open({ kind: 'rotate', endpoint })}>
          {t('admin.webhooks.rotate')}
        </button>
        <button type="button" className="btn btn-danger btn-sm" onClick={() => open({ kind: 'delete', endpoint })}>
          {t('admin.webhooks.delete')}
        </button>
      </div>
    </li>
  );
}

function EndpointForm({
  endpoint,
  onClose,
  onCreated,
}: {
  endpoint?: WebhookEndpoint;
  onClose: () => void;
  onCreated?: (url: string, secret: string) => void;
}) {
  const [url, setUrl] = useState(endpoint?.url ?? 'https://');
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const [events, setEvents] = useState<WebhookEventType[]>(endpoint?.events ?? ['key.purchased']);
  const [error, setError] = useState<string | null>(null);
  const create = useCreateWebhook();
  const update = useUpdateWebhook();
  const stepUp = useStepUpPrompt();
  const t = useT();
  const busy = create.isPending || update.isPending;
  // Events go where the URL points: adding an endpoint or moving one needs proof beyond the session.
  const needsProof = !endpoint || url.trim() !== endpoint.url;

  const toggle = (type: WebhookEventType) => setEvents((list) => (list.includes(type) ? list.filter((t) => t !== type) : [...list, type]));

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const parsed = createWebhookSchema.safeParse({ url, events, description });
    if (!parsed.success) return setError(schemaMessage(parsed.error.issues[0].message));
    setError(null);
    const proof = needsProof ? stepUp.proof() : {};
    if (!proof) return;
    try {
      if (endpoint) {
        await update.mutateAsync({ id: endpoint.id, body: { ...parsed.data, ...proof } });
        toast.success(t('admin.webhooks.saved'));
        onClose();
      } else {
        const created = await create.mutateAsync({ ...parsed.data, ...proof });
        onCreated?.(created.url, created.secret);
      }
    } catch (err) {
      if (!stepUp.refusedBy(err)) setError(errorMessage(err, t('admin.webhooks.saveFailed')));
    }
  }

  return (
    <FormModal
      title={endpoint ? t('admin.webhooks.editTitle') : t('admin.webhooks.add')}
      formId="webhook-form"
      submitLabel={endpoint ? t('admin.webhooks.save') : t('admin.webhooks.add')}
      busyLabel={t('admin.webhooks.saving')}
      busy={busy}
      onClose={onClose}
    >
      <form id="webhook-form" onSubmit={asyncHandler(onSubmit)} noValidate>
        <Field
          label={t('admin.webhooks.url')}
          type="url"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          error={error}
          autoComplete="off"
          hint={t('admin.webhooks.urlHint')}
        />
        <Field
          label={t('admin.webhooks.description')}
          value={description}
          maxLength={200}
          onChange={(e) => setDescription(e.target.value)}
        />
        <fieldset className="field">
          <legend>{t('admin.webhooks.events')}</legend>
          {WEBHOOK_EVENT_TYPES.map((type) => (
            <label key={type} className="checkbox">
              <input type="checkbox" checked={events.includes(type)} onChange={() => toggle(type)} /> <span className="mono">{type}</span>
            </label>
          ))}
        </fieldset>
        {needsProof && stepUp.section(endpoint ? t('admin.webhooks.proofChange') : t('admin.webhooks.proofAdd'))}
      </form>
    </FormModal>
  );
}

/** A new signing secret takes the endpoint's deliveries over, so it needs proof beyond the session. */
function RotateModal({
  endpoint,
  onClose,
  onRotated,
}: {
  endpoint: WebhookEndpoint;
  onClose: () => void;
  onRotated: (secret: string) => void;
}) {
  const rotate = useRotateSecret();
  const stepUp = useStepUpPrompt();
  const [error, setError] = useState<string | null>(null);
  const t = useT();
  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const proof = stepUp.proof();
    if (!proof) return;
    try {
      const rotated = await rotate.mutateAsync({ id: endpoint.id, proof });
      onRotated(rotated.secret);
    } catch (err) {
      if (!stepUp.refusedBy(err)) setError(errorMessage(err, t('admin.webhooks.rotateFailed')));
    }
  }
  return (
    <FormModal
      title={t('admin.webhooks.rotateTitle')}
      formId="rotate-secret-form"
      submitLabel={t('admin.webhooks.rotate')}
      busyLabel={t('admin.webhooks.rotating')}
      busy={rotate.isPending}
      onClose={onClose}
    >
      <form id="rotate-secret-form" onSubmit={asyncHandler(onSubmit)} noValidate>
        <p>{t('admin.webhooks.rotateWarning', { url: endpoint.url })}</p>
        {error && (
          <div className="field-error" role="alert">
            {error}
          </div>
        )}
        {stepUp.section(t('admin.webhooks.proofRotate'))}
      </form>
    </FormModal>
  );
}

function SecretModal({ url, secret, onClose }: { url: string; secret: string; onClose: () => void }) {
  const t = useT();
  return (
    <Modal open title={t('admin.webhooks.secret')} onClose={onClose}>
      <ShownOnceSecret
        value={secret}
        label={t('admin.webhooks.secret')}
        copyLabel={t('admin.webhooks.copySecret')}
        copiedMessage={t('admin.webhooks.secretCopied')}
        onDone={onClose}
      >
        {t('admin.webhooks.secretOnce', { url })}
      </ShownOnceSecret>
    </Modal>
  );
}

function DeleteModal({ endpoint, onClose }: { endpoint: WebhookEndpoint; onClose: () => void }) {
  const remove = useDeleteWebhook();
  const t = useT();
  async function onConfirm() {
    try {
      await remove.mutateAsync(endpoint.id);
      toast.success(t('admin.webhooks.deleted'));
      onClose();
    } catch (err) {
      toast.error(errorMessage(err, t('admin.webhooks.deleteFailed')));
    }
  }
  return (
    <ConfirmModal
      title={t('admin.webhooks.deleteTitle')}
      confirmLabel={t('admin.webhooks.deleteSubmit')}
      busyLabel={t('admin.webhooks.deleting')}
      busy={remove.isPending}
      onConfirm={asyncHandler(onConfirm)}
      onClose={onClose}
    >
      <p>{t('admin.webhooks.deleteWarning', { url: endpoint.url })}</p>
    </ConfirmModal>
  );
}

const STATUS_TONE = { delivered: 'green', failed: 'red', pending: 'yellow' } as const;
const STATUS_WORDS: Record<keyof typeof STATUS_TONE, MessageId> = {
  delivered: 'admin.webhooks.status.delivered',
  failed: 'admin.webhooks.status.failed',
  pending: 'admin.webhooks.status.pending',
};

function DeliveriesModal({ endpoint, onClose }: { endpoint: WebhookEndpoint; onClose: () => void }) {
  const [page, setPage] = useState(1);
  const deliveries = useDeliveries(endpoint.id, page);
  const redeliver = useRedeliver();
  const t = useT();

  async function onRedeliver(id: string) {
    try {
      await redeliver.mutateAsync(id);
      toast.success(t('admin.webhooks.redelivered'));
    } catch (err) {
      toast.error(errorMessage(err, t('admin.webhooks.redeliverFailed')));
    }
  }

  const columns: Column<Schemas['WebhookDelivery']>[] = [
    { header: t('admin.webhooks.event'), className: 'mono', cell: (d) => d.event },
    { header: t('admin.webhooks.status'), cell: (d) => <Badge tone={STATUS_TONE[d.status]}>{t(STATUS_WORDS[d.status])}</Badge> },
    { header: t('admin.webhooks.attempts'), cell: (d) => <DeliveryAttempts delivery={d} /> },
    {
      header: t('admin.webhooks.response'),
      cell: (d) => (
        <>
          {d.responseStatus ?? d.error ?? '—'}
          {d.responseBody && (
            <details>
              <summary>{t('admin.webhooks.body')}</summary>
              <pre className="mono small">{d.responseBody}</pre>
            </details>
          )}
        </>
      ),
    },
    {
      header: t('admin.webhooks.time'),
      cell: (d) => (d.durationMs === null ? '—' : formatNumber(d.durationMs, { style: 'unit', unit: 'millisecond' })),
    },
    { header: t('admin.webhooks.when'), cell: (d) => when(d.lastAttemptAt ?? d.createdAt) },
    {
      header: <span className="visually-hidden">{t('admin.webhooks.actions')}</span>,
      cell: (d) => (
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          disabled={redeliver.isPending || !endpoint.enabled}
          onClick={() => void onRedeliver(d.id)}
          aria-label={t('admin.webhooks.redeliverNamed', { event: d.event, id: d.id })}
        >
          {t('admin.webhooks.redeliver')}
        </button>
      ),
    },
  ];

  return (
    <Modal open title={t('admin.webhooks.deliveriesTo', { url: endpoint.url })} size="lg" onClose={onClose}>
      <QueryState
        query={deliveries}
        loading={t('admin.webhooks.deliveriesLoading')}
        failed={errorMessage(deliveries.error, t('admin.webhooks.deliveriesFailed'))}
        isEmpty={(data) => data.deliveries.length === 0}
        empty={<EmptyState title={t('admin.webhooks.deliveriesEmptyTitle')}>{t('admin.webhooks.deliveriesEmpty')}</EmptyState>}
      >
        {(data) => (
          <>
            <DataTable label={t('admin.webhooks.deliveries')} rows={data.deliveries} rowKey={(d) => d.id} columns={columns} />
            <Pagination page={page} totalPages={data.totalPages} onChange={setPage} />
          </>
        )}
      </QueryState>
    </Modal>
  );
}
