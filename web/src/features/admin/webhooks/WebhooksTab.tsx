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
import { DeliveryAttempts } from './DeliveryAttempts';
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

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

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

  return (
    <Card
      title="Webhooks"
      actions={
        <button type="button" className="btn btn-primary btn-sm" onClick={() => setDialog({ kind: 'add' })}>
          Add endpoint
        </button>
      }
    >
      <p className="muted">
        Signed events (Standard Webhooks) sent to your systems when keys are bought, generated, revoked or activated, and more.
      </p>
      <QueryState
        query={endpoints}
        loading="Loading endpoints…"
        failed={errorMessage(endpoints.error, 'Could not load the webhook endpoints')}
        isEmpty={(list) => list.length === 0}
        empty={<EmptyState title="No endpoints yet">Add an endpoint to receive events.</EmptyState>}
      >
        {(list) => (
          <ul className="webhook-list" aria-label="Webhook endpoints">
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
  if (!endpoint.enabled) return <Badge tone="gray">Disabled</Badge>;
  if (endpoint.failingSince)
    return (
      <Badge tone="red" title={`Failing since ${when(endpoint.failingSince)}`}>
        Failing
      </Badge>
    );
  return <Badge tone="green">Healthy</Badge>;
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
        Last 24 h: {health.delivered24h} delivered, {health.failed24h} failed; {health.pending} pending. Last delivery:{' '}
        {when(health.lastDeliveryAt)}
        {health.lastStatus ? ` (${health.lastStatus})` : ''}
      </p>
      {endpoint.disabledReason && (
        <div className="notice notice-warning" role="status">
          {endpoint.disabledReason}
        </div>
      )}
      <div className="button-row">
        <button type="button" className="btn btn-secondary btn-sm" onClick={() => open({ kind: 'deliveries', endpoint })}>
          Deliveries
        </button>
        <button type="button" className="btn btn-secondary btn-sm" onClick={() => open({ kind: 'edit', endpoint })}>
          Edit
        </button>
        <ActionButton
          disabled={busy}
          onClick={() =>
            run(
              () => update.mutateAsync({ id: endpoint.id, body: { enabled: !endpoint.enabled } }),
              () => toast.success(endpoint.enabled ? 'Endpoint disabled' : 'Endpoint enabled'),
              'Could not change the endpoint',
            )
          }
        >
          {endpoint.enabled ? 'Disable' : 'Enable'}
        </ActionButton>
        <ActionButton
          disabled={busy || !endpoint.enabled}
          onClick={() =>
            run(
              () => test.mutateAsync(endpoint.id),
              () => toast.success('Test event queued'),
              'Could not send a test event',
            )
          }
        >
          Send test
        </ActionButton>
        <button type="button" className="btn btn-secondary btn-sm" disabled={busy} onClick={() => open({ kind: 'rotate', endpoint })}>
          Rotate secret
        </button>
        <button type="button" className="btn btn-danger btn-sm" onClick={() => open({ kind: 'delete', endpoint })}>
          Delete
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
  const busy = create.isPending || update.isPending;
  // Events go where the URL points: adding an endpoint or moving one needs proof beyond the session.
  const needsProof = !endpoint || url.trim() !== endpoint.url;

  const toggle = (type: WebhookEventType) => setEvents((list) => (list.includes(type) ? list.filter((t) => t !== type) : [...list, type]));

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const parsed = createWebhookSchema.safeParse({ url, events, description });
    if (!parsed.success) return setError(parsed.error.issues[0].message);
    setError(null);
    const proof = needsProof ? stepUp.proof() : {};
    if (!proof) return;
    try {
      if (endpoint) {
        await update.mutateAsync({ id: endpoint.id, body: { ...parsed.data, ...proof } });
        toast.success('Endpoint saved');
        onClose();
      } else {
        const created = await create.mutateAsync({ ...parsed.data, ...proof });
        onCreated?.(created.url, created.secret);
      }
    } catch (err) {
      if (!stepUp.refusedBy(err)) setError(errorMessage(err, 'Could not save the endpoint'));
    }
  }

  return (
    <FormModal
      title={endpoint ? 'Edit endpoint' : 'Add endpoint'}
      formId="webhook-form"
      submitLabel={endpoint ? 'Save' : 'Add endpoint'}
      busyLabel="Saving…"
      busy={busy}
      onClose={onClose}
    >
      <form id="webhook-form" onSubmit={asyncHandler(onSubmit)} noValidate>
        <Field
          label="URL"
          type="url"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          error={error}
          autoComplete="off"
          hint="https only"
        />
        <Field label="Description" value={description} maxLength={200} onChange={(e) => setDescription(e.target.value)} />
        <fieldset className="field">
          <legend>Events</legend>
          {WEBHOOK_EVENT_TYPES.map((type) => (
            <label key={type} className="checkbox">
              <input type="checkbox" checked={events.includes(type)} onChange={() => toggle(type)} /> <span className="mono">{type}</span>
            </label>
          ))}
        </fieldset>
        {needsProof &&
          stepUp.section(
            endpoint
              ? 'Events, with your customers’ details, go to the new URL, so changing it needs proof beyond your session.'
              : 'Events, with your customers’ details, go to this URL, so adding an endpoint needs proof beyond your session.',
          )}
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
  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const proof = stepUp.proof();
    if (!proof) return;
    try {
      const rotated = await rotate.mutateAsync({ id: endpoint.id, proof });
      onRotated(rotated.secret);
    } catch (err) {
      if (!stepUp.refusedBy(err)) setError(errorMessage(err, 'Could not rotate the secret'));
    }
  }
  return (
    <FormModal
      title="Rotate signing secret"
      formId="rotate-secret-form"
      submitLabel="Rotate secret"
      busyLabel="Rotating…"
      busy={rotate.isPending}
      onClose={onClose}
    >
      <form id="rotate-secret-form" onSubmit={asyncHandler(onSubmit)} noValidate>
        <p>
          Deliveries to {endpoint.url} are signed with a new secret from now on; the receiver must be given it before it can check them.
        </p>
        {error && (
          <div className="field-error" role="alert">
            {error}
          </div>
        )}
        {stepUp.section(
          'Whoever holds the signing secret can forge events to your endpoint, so a new one needs proof beyond your session.',
        )}
      </form>
    </FormModal>
  );
}

function SecretModal({ url, secret, onClose }: { url: string; secret: string; onClose: () => void }) {
  return (
    <Modal open title="Signing secret" onClose={onClose}>
      <ShownOnceSecret value={secret} label="Signing secret" copyLabel="Copy secret" copiedMessage="Signing secret copied" onDone={onClose}>
        Copy the signing secret for {url} now. It is shown only once; rotate it if you lose it.
      </ShownOnceSecret>
    </Modal>
  );
}

function DeleteModal({ endpoint, onClose }: { endpoint: WebhookEndpoint; onClose: () => void }) {
  const remove = useDeleteWebhook();
  async function onConfirm() {
    try {
      await remove.mutateAsync(endpoint.id);
      toast.success('Endpoint deleted');
      onClose();
    } catch (err) {
      toast.error(errorMessage(err, 'Could not delete the endpoint'));
    }
  }
  return (
    <ConfirmModal
      title="Delete this endpoint?"
      confirmLabel="Delete endpoint"
      busyLabel="Deleting…"
      busy={remove.isPending}
      onConfirm={asyncHandler(onConfirm)}
      onClose={onClose}
    >
      <p>{endpoint.url} stops receiving events and its delivery history is deleted. This cannot be undone.</p>
    </ConfirmModal>
  );
}

const STATUS_TONE = { delivered: 'green', failed: 'red', pending: 'yellow' } as const;

function DeliveriesModal({ endpoint, onClose }: { endpoint: WebhookEndpoint; onClose: () => void }) {
  const [page, setPage] = useState(1);
  const deliveries = useDeliveries(endpoint.id, page);
  const redeliver = useRedeliver();

  async function onRedeliver(id: string) {
    try {
      await redeliver.mutateAsync(id);
      toast.success('Delivery queued again');
    } catch (err) {
      toast.error(errorMessage(err, 'Could not redeliver'));
    }
  }

  const columns: Column<Schemas['WebhookDelivery']>[] = [
    { header: 'Event', className: 'mono', cell: (d) => d.event },
    { header: 'Status', cell: (d) => <Badge tone={STATUS_TONE[d.status]}>{d.status}</Badge> },
    { header: 'Attempts', cell: (d) => <DeliveryAttempts delivery={d} /> },
    {
      header: 'Response',
      cell: (d) => (
        <>
          {d.responseStatus ?? d.error ?? '—'}
          {d.responseBody && (
            <details>
              <summary>Body</summary>
              <pre className="mono small">{d.responseBody}</pre>
            </details>
          )}
        </>
      ),
    },
    { header: 'Time', cell: (d) => (d.durationMs === null ? '—' : `${d.durationMs} ms`) },
    { header: 'When', cell: (d) => when(d.lastAttemptAt ?? d.createdAt) },
    {
      header: <span className="visually-hidden">Actions</span>,
      cell: (d) => (
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          disabled={redeliver.isPending || !endpoint.enabled}
          onClick={() => void onRedeliver(d.id)}
          aria-label={`Redeliver ${d.event} ${d.id}`}
        >
          Redeliver
        </button>
      ),
    },
  ];

  return (
    <Modal open title={`Deliveries to ${endpoint.url}`} size="lg" onClose={onClose}>
      <QueryState
        query={deliveries}
        loading="Loading deliveries…"
        failed={errorMessage(deliveries.error, 'Could not load the deliveries')}
        isEmpty={(data) => data.deliveries.length === 0}
        empty={<EmptyState title="No deliveries yet">Send a test event to see one here.</EmptyState>}
      >
        {(data) => (
          <>
            <DataTable label="Deliveries" rows={data.deliveries} rowKey={(d) => d.id} columns={columns} />
            <Pagination page={page} totalPages={data.totalPages} onChange={setPage} />
          </>
        )}
      </QueryState>
    </Modal>
  );
}
