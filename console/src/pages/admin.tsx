import { useState } from 'preact/hooks';
import { gql } from '../api';
import {
  DeliveriesOfDocument,
  IssueKeyDocument,
  RegisterWebhookDocument,
  RemoveWebhookDocument,
  RevokeKeyDocument,
  WebhookListDocument,
  type IssueKeyMutation,
  type Permission,
  type Plan,
  type WebhookEvent,
  type RegisterWebhookMutation,
} from '../generated/graphql';
import { eventName, permissionName, PLANS, show, WEBHOOK_EVENTS } from '../catalogue';
import { ErrorNote, formatTime, Section, Select, TextField, useAction, useLoad } from '../ui';
import { useCan, useViewer } from '../viewer';

export function AdminPage() {
  const can = useCan();
  return (
    <div class="page">
      <h1>Administration</h1>
      {can('MANAGE_API_KEYS') ? <ApiKeys /> : null}
      {can('MANAGE_WEBHOOKS') ? <Webhooks /> : null}
    </div>
  );
}

type Issued = IssueKeyMutation['createApiKey'] & { revoked?: boolean };

function ApiKeys() {
  const viewer = useViewer();
  const [name, setName] = useState('');
  const [expiresIn, setExpiresIn] = useState('');
  const [plan, setPlan] = useState<Plan>('STANDARD');
  const [picked, setPicked] = useState<Set<Permission>>(new Set());
  const [issued, setIssued] = useState<Issued[]>([]);
  const [revokeId, setRevokeId] = useState('');
  const issue = useAction(async () => {
    const { createApiKey } = await gql(IssueKeyDocument, { input: { name, permissions: [...picked], expiresIn: expiresIn.trim() || undefined, plan } });
    setIssued((prev) => [createApiKey, ...prev]);
    setName('');
    setPicked(new Set());
  });
  const revoke = useAction(async (id: string) => {
    await gql(RevokeKeyDocument, { id });
    setIssued((prev) => prev.map((k) => (k.id === id ? { ...k, revoked: true } : k)));
    setRevokeId('');
  });
  const toggle = (p: Permission) => {
    const next = new Set(picked);
    if (next.has(p)) next.delete(p);
    else next.add(p);
    setPicked(next);
  };
  return (
    <Section title="API keys" id="api-keys">
      <form
        class="form-grid"
        aria-label="Issue an API key"
        onSubmit={(e) => {
          e.preventDefault();
          void issue.run();
        }}
      >
        <TextField id="key-name" label="Name" value={name} onInput={setName} required />
        <TextField id="key-expires" label="Expires in (e.g. 30d; empty: never)" value={expiresIn} onInput={setExpiresIn} />
        {viewer.isAdmin ? <Select id="key-plan" label="Plan" value={plan} options={PLANS} onChange={(v) => setPlan(v as Plan)} /> : null}
        <fieldset class="wide permission-picker">
          <legend>Permissions (only those your key holds)</legend>
          {viewer.permissions.map((p) => (
            <label key={p} class="check">
              <input type="checkbox" name="permission" value={p} checked={picked.has(p)} onChange={() => toggle(p)} /> <code>{permissionName(p)}</code>
            </label>
          ))}
        </fieldset>
        <div class="buttons wide">
          <button type="submit" class="primary" disabled={issue.busy || !name.trim() || picked.size === 0}>
            Issue key
          </button>
        </div>
      </form>
      <ErrorNote error={issue.error} />
      {issued.length ? (
        <ul class="issued" aria-live="polite">
          {issued.map((k) => (
            <li key={k.id} data-testid="issued-key">
              <strong>{k.name}</strong> <code>{k.id}</code> · {k.permissions.map(permissionName).join(', ')} · expires {formatTime(k.expiresAt)}
              {k.revoked ? (
                <span class="pill pill-failed"> revoked</span>
              ) : (
                <>
                  <p class="secret">
                    Secret (shown once): <code data-testid="issued-secret">{k.key}</code>
                  </p>
                  <button type="button" onClick={() => revoke.run(k.id)} disabled={revoke.busy}>
                    Revoke {k.name}
                  </button>
                </>
              )}
            </li>
          ))}
        </ul>
      ) : null}
      <form
        class="filters"
        aria-label="Revoke a key by id"
        onSubmit={(e) => {
          e.preventDefault();
          void revoke.run(revokeId.trim());
        }}
      >
        <TextField id="revoke-id" label="Revoke a key by id" value={revokeId} onInput={setRevokeId} placeholder="key_…" />
        <button type="submit" disabled={revoke.busy || !revokeId.trim()}>
          Revoke
        </button>
      </form>
      <ErrorNote error={revoke.error} />
    </Section>
  );
}

function Webhooks() {
  const { data, error, reload } = useLoad(() => gql(WebhookListDocument), []);
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [events, setEvents] = useState<Set<WebhookEvent>>(new Set(['ALL']));
  const [created, setCreated] = useState<RegisterWebhookMutation['createWebhook'] | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const register = useAction(async () => {
    const { createWebhook } = await gql(RegisterWebhookDocument, { input: { url, events: [...events], secret: secret || undefined } });
    setCreated(createWebhook);
    setUrl('');
    setSecret('');
    reload();
  });
  const remove = useAction(async (id: string) => {
    await gql(RemoveWebhookDocument, { id });
    reload();
  });
  const toggle = (ev: WebhookEvent) => {
    const next = new Set(events);
    if (next.has(ev)) next.delete(ev);
    else next.add(ev);
    setEvents(next);
  };
  return (
    <Section title="Webhooks" id="webhooks">
      <form
        class="form-grid"
        aria-label="Register a webhook"
        onSubmit={(e) => {
          e.preventDefault();
          void register.run();
        }}
      >
        <div class="wide">
          <TextField id="webhook-url" label="Target URL" type="url" value={url} onInput={setUrl} required placeholder="https://example.com/hooks" />
        </div>
        <TextField id="webhook-secret" label="Secret (empty: generated)" value={secret} onInput={setSecret} />
        <fieldset class="wide permission-picker">
          <legend>Events</legend>
          {[['ALL', '* (all)'] as const, ...WEBHOOK_EVENTS].map(([ev, name]) => (
            <label key={ev} class="check">
              <input type="checkbox" name="event" value={ev} checked={events.has(ev)} onChange={() => toggle(ev)} /> <code>{name}</code>
            </label>
          ))}
        </fieldset>
        <div class="buttons wide">
          <button type="submit" class="primary" disabled={register.busy || !url.trim() || events.size === 0}>
            Register webhook
          </button>
        </div>
      </form>
      <ErrorNote error={register.error} />
      {created ? (
        <p class="secret" role="status">
          Registered <code>{created.id}</code>. Signing secret (shown once): <code>{created.secret}</code>
        </p>
      ) : null}
      <ErrorNote error={error || remove.error} />
      <ul class="webhooks">
        {(data?.webhooks ?? []).map((w) => (
          <li key={w.id}>
            <p>
              <strong>{w.url}</strong> · {w.events.map(eventName).join(', ')} · since {formatTime(w.createdAt)}
            </p>
            <div class="buttons">
              <button type="button" aria-expanded={open === w.id} onClick={() => setOpen(open === w.id ? null : w.id)}>
                {open === w.id ? 'Hide deliveries' : 'Deliveries'}
              </button>
              <button type="button" onClick={() => remove.run(w.id)} disabled={remove.busy}>
                Delete
              </button>
            </div>
            {open === w.id ? <Deliveries id={w.id} /> : null}
          </li>
        ))}
        {data && data.webhooks.length === 0 ? <li class="hint">No webhooks registered.</li> : null}
      </ul>
    </Section>
  );
}

function Deliveries({ id }: { id: string }) {
  const { data, error, reload, loading } = useLoad(() => gql(DeliveriesOfDocument, { id, limit: 50 }), [id]);
  return (
    <div class="panel">
      <ErrorNote error={error} />
      <button type="button" onClick={reload} disabled={loading}>
        Refresh
      </button>
      {data ? (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Deliveries</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">When</th>
              </tr>
            </thead>
            <tbody>
              {data.webhookDeliveries.map((d) => (
                <tr key={d.id}>
                  <th scope="row">
                    <code>{eventName(d.type)}</code>
                  </th>
                  <td>
                    <span class={`pill pill-${show(d.status)}`}>{show(d.status)}</span>
                  </td>
                  <td>{d.attempts}</td>
                  <td>{d.lastStatusCode ?? d.lastError ?? '—'}</td>
                  <td>{formatTime(d.deliveredAt ?? d.nextAttemptAt ?? d.createdAt)}</td>
                </tr>
              ))}
              {data.webhookDeliveries.length === 0 ? (
                <tr>
                  <td colSpan={5}>No deliveries yet.</td>
                </tr>
              ) : null}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}
