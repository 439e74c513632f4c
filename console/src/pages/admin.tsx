import { useEffect, useRef, useState } from 'preact/hooks';
import { gql } from '../api';
import {
  ApiKeyListDocument,
  DeliveriesOfDocument,
  IssueKeyDocument,
  RegisterWebhookDocument,
  RemoveWebhookDocument,
  RevokeKeyDocument,
  WebhookListDocument,
  type ApiKeyListQuery,
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

type KeyRow = ApiKeyListQuery['apiKeys'][number];

function keyState(k: KeyRow, now: number): 'active' | 'revoked' | 'expired' {
  if (k.revokedAt) return 'revoked';
  if (k.expiresAt && Date.parse(k.expiresAt) <= now) return 'expired';
  return 'active';
}

/**
 * Every key the signed-in key may see (`apiKeys`: the admin sees all, others the keys they issued),
 * issued here or anywhere else. Revoked and expired keys are kept out of the way behind a switch.
 */
function ApiKeys() {
  const viewer = useViewer();
  const keys = useLoad(() => gql(ApiKeyListDocument), []);
  const [name, setName] = useState('');
  const [expiresIn, setExpiresIn] = useState('');
  const [plan, setPlan] = useState<Plan>('STANDARD');
  const [picked, setPicked] = useState<Set<Permission>>(new Set());
  const [issued, setIssued] = useState<IssueKeyMutation['createApiKey'] | null>(null);
  const [showInactive, setShowInactive] = useState(false);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [revoked, setRevoked] = useState<string | null>(null);
  const issue = useAction(async () => {
    const { createApiKey } = await gql(IssueKeyDocument, { input: { name, permissions: [...picked], expiresIn: expiresIn.trim() || undefined, plan } });
    setIssued(createApiKey);
    setRevoked(null);
    setName('');
    setPicked(new Set());
    keys.reload();
  });
  const revoke = useAction(async (k: KeyRow) => {
    await gql(RevokeKeyDocument, { id: k.id });
    setConfirming(null);
    setRevoked(k.name);
    if (issued?.id === k.id) setIssued(null);
    keys.reload();
  });
  const toggle = (p: Permission) => {
    const next = new Set(picked);
    if (next.has(p)) next.delete(p);
    else next.add(p);
    setPicked(next);
  };
  const all = keys.data?.apiKeys ?? [];
  const now = Date.now();
  const inactive = all.filter((k) => keyState(k, now) !== 'active').length;
  const shown = showInactive ? all : all.filter((k) => keyState(k, now) === 'active');
  const names = new Map(all.map((k) => [k.id, k.name]));
  const issuer = (id: string | null | undefined) => {
    if (!id) return 'unknown';
    const who = names.get(id) ?? (id === 'admin' ? 'the admin key' : id);
    return id === viewer.keyId ? `${who} (you)` : who;
  };
  return (
    <Section
      title="API keys"
      id="api-keys"
      actions={
        <button type="button" onClick={keys.reload} disabled={keys.loading}>
          Refresh
        </button>
      }
    >
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
      {issued ? (
        <p class="secret" role="status">
          Issued <strong>{issued.name}</strong>. Its secret is shown only now: <code data-testid="issued-secret">{issued.key}</code>
        </p>
      ) : null}
      {revoked ? (
        <p role="status" class="hint">
          Revoked “{revoked}”, and every key it issued.
        </p>
      ) : null}
      <h3 id="keys-list-title">Keys{keys.data ? ` (${all.length - inactive} active)` : ''}</h3>
      <ErrorNote error={keys.error || revoke.error} />
      {inactive ? (
        <label class="check">
          <input type="checkbox" checked={showInactive} onChange={(e) => setShowInactive((e.target as HTMLInputElement).checked)} /> Show revoked and expired
          keys ({inactive})
        </label>
      ) : null}
      <ul class="keys" aria-labelledby="keys-list-title" data-testid="api-keys">
        {shown.map((k) => {
          const state = keyState(k, now);
          return (
            <li key={k.id} data-testid="api-key" data-key-id={k.id} data-state={state}>
              <p>
                <strong>{k.name}</strong> <code>{k.prefix}…</code> {state !== 'active' ? <span class="pill pill-failed">{state}</span> : null}
              </p>
              <p class="hint">
                Issued by {issuer(k.issuedBy)} on {formatTime(k.createdAt)} ·{' '}
                {state === 'revoked' ? `revoked ${formatTime(k.revokedAt)}` : k.expiresAt ? `expires ${formatTime(k.expiresAt)}` : 'never expires'} · last used{' '}
                {formatTime(k.lastUsedAt)} · plan {show(k.plan)}
              </p>
              <p class="key-permissions">
                {k.isAdmin ? <code>every permission (admin)</code> : k.permissions.map((p) => <code key={p}>{permissionName(p)}</code>)}
              </p>
              {state === 'active' ? (
                confirming === k.id ? (
                  <ConfirmRevoke name={k.name} busy={revoke.busy} onConfirm={() => revoke.run(k)} onCancel={() => setConfirming(null)} />
                ) : (
                  <button type="button" onClick={() => setConfirming(k.id)} aria-label={`Revoke ${k.name} (${k.prefix}…)`}>
                    Revoke
                  </button>
                )
              ) : null}
            </li>
          );
        })}
        {keys.data && shown.length === 0 ? <li class="hint">{all.length ? 'No active keys.' : 'No keys issued yet: issue one above.'}</li> : null}
      </ul>
    </Section>
  );
}

/** Revocation cannot be undone (and cascades): it asks once, with the confirming button focused. */
function ConfirmRevoke(props: { name: string; busy: boolean; onConfirm: () => void; onCancel: () => void }) {
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => confirm.current?.focus(), []);
  return (
    <div class="panel" role="group" aria-label={`Confirm revoking ${props.name}`}>
      <p>Revoke “{props.name}”? Whoever uses it is refused at once, and every key it issued is revoked with it.</p>
      <div class="buttons">
        <button type="button" class="danger" ref={confirm} onClick={props.onConfirm} disabled={props.busy}>
          Revoke key
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </div>
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
