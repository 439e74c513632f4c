import { useEffect, useState } from 'preact/hooks';
import { ApiError, gql, onLiveState, session, subscribe } from './api';
import { LiveEventsDocument, ViewerDocument, type Permission } from './generated/graphql';
import { permissionName, show } from './catalogue';
import { ErrorNote } from './ui';
import { publishLive, ViewerContext, type LiveEvent, type Viewer } from './viewer';
import { CompliancePage } from './pages/compliance';
import { SpeechPage } from './pages/speech';
import { AdminPage } from './pages/admin';

interface Page {
  id: 'compliance' | 'speech' | 'admin';
  title: string;
  visible: (v: Viewer) => boolean;
}

const has = (v: Viewer, ...ps: Permission[]) => v.isAdmin || ps.some((p) => v.permissions.includes(p));
const PAGES: Page[] = [
  {
    id: 'compliance',
    title: 'Compliance',
    visible: (v) => has(v, 'READ_COMPLIANCE', 'READ_REQUIREMENTS', 'READ_AUDITS', 'READ_DASHBOARD', 'WRITE_COMPLIANCE'),
  },
  { id: 'speech', title: 'Speech', visible: (v) => v.speechOpen || has(v, 'TTS_GENERATE', 'TTS_READ', 'TTS_ADMIN') },
  { id: 'admin', title: 'Administration', visible: (v) => has(v, 'MANAGE_API_KEYS', 'MANAGE_WEBHOOKS') },
];

function routeOf(hash: string): string {
  return hash.replace(/^#\/?/, '').split('/')[0];
}

function SignIn(props: { onSignedIn: (v: Viewer) => void; error: unknown }) {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(props.error);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { viewer } = await gql(ViewerDocument, undefined, key.trim());
      session.set(key.trim());
      props.onSignedIn(viewer);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin" id="main">
      <h1>Gateway console</h1>
      <p>Sign in with an API key. It is kept in this tab only and forgotten when the tab closes.</p>
      <form onSubmit={submit} aria-describedby="signin-help">
        <div class="field">
          <label for="api-key">API key</label>
          <input
            id="api-key"
            name="api-key"
            type="password"
            autoComplete="off"
            required
            value={key}
            onInput={(e) => setKey((e.target as HTMLInputElement).value)}
          />
        </div>
        <p id="signin-help" class="hint">
          The admin key is printed once on the gateway's first start (or set with <code>ADMIN_API_KEY</code>).
        </p>
        <button type="submit" class="primary" disabled={busy || !key.trim()}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <ErrorNote error={error} />
    </main>
  );
}

function KeyBadge({ viewer, onSignOut }: { viewer: Viewer; onSignOut: () => void }) {
  return (
    <div class="key-badge">
      <details>
        <summary>
          Signed in as <strong data-testid="viewer-name">{viewer.name}</strong>
          {viewer.isAdmin ? ' (admin)' : ''}
        </summary>
        <div class="key-details">
          <p>
            Key <code>{viewer.keyId}</code>, plan {show(viewer.plan)}. Speech{' '}
            {viewer.speechOpen ? 'is open on this gateway' : 'needs a key with tts permissions'}.
          </p>
          <p id="permissions-label">Permissions:</p>
          <ul class="permissions" aria-labelledby="permissions-label" data-testid="permissions">
            {viewer.permissions.map((p) => (
              <li key={p}>
                <code>{permissionName(p)}</code>
              </li>
            ))}
          </ul>
        </div>
      </details>
      <button type="button" onClick={onSignOut}>
        Sign out
      </button>
    </div>
  );
}

function LiveIndicator() {
  const [state, setState] = useState('closed');
  useEffect(() => onLiveState(setState), []);
  return (
    <span class={`live live-${state}`} role="status" aria-label={`Live updates: ${state}`} title={`Live updates: ${state}`}>
      {state === 'connected' ? 'Live' : state === 'connecting' ? 'Connecting…' : 'Offline'}
    </span>
  );
}

/** The one live subscription of the app: every compliance event the key may see. */
function useLiveFeed(viewer: Viewer | null): { events: LiveEvent[]; alerts: LiveEvent[]; error: unknown } {
  const [events, setEvents] = useState<LiveEvent[]>([]);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (!viewer || !has(viewer, 'READ_DASHBOARD')) return;
    setEvents([]);
    return subscribe(
      LiveEventsDocument,
      { types: null, wsTypes: null },
      {
        next: ({ complianceEvents: e }) => {
          setEvents((prev) => [e, ...prev].slice(0, 100));
          publishLive(e);
        },
        error: setError,
      },
    );
  }, [viewer?.keyId]);
  return { events, alerts: events.filter((e) => e.type === 'SYSTEM_ALERT'), error };
}

export function App() {
  const [viewer, setViewer] = useState<Viewer | null>(null);
  const [checking, setChecking] = useState(!!session.key());
  const [signInError, setSignInError] = useState<unknown>(null);
  const [route, setRoute] = useState(routeOf(location.hash));
  const feed = useLiveFeed(viewer);

  useEffect(() => {
    const onHash = () => setRoute(routeOf(location.hash));
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  useEffect(() => {
    if (!session.key()) return;
    gql(ViewerDocument)
      .then(
        ({ viewer }) => setViewer(viewer),
        (err) => {
          if (err instanceof ApiError && err.code === 'AUTHENTICATION_ERROR') session.clear();
          setSignInError(err);
        },
      )
      .finally(() => setChecking(false));
  }, []);

  const signOut = () => {
    session.clear();
    setViewer(null);
    location.hash = '';
  };

  const pages = viewer ? PAGES.filter((p) => p.visible(viewer)) : [];
  const current = pages.find((p) => p.id === route) ?? pages[0];
  useEffect(() => {
    document.title = current ? `${current.title} · Gateway console` : 'Gateway console';
  }, [current?.id]);

  if (checking)
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  if (!viewer) return <SignIn error={signInError} onSignedIn={setViewer} />;

  return (
    <ViewerContext.Provider value={viewer}>
      <a
        class="skip"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Gateway console</span>
        <nav aria-label="Pages">
          <ul>
            {pages.map((p) => (
              <li key={p.id}>
                <a href={`#/${p.id}`} aria-current={p.id === current?.id ? 'page' : undefined}>
                  {p.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <LiveIndicator />
        <KeyBadge viewer={viewer} onSignOut={signOut} />
      </header>
      {feed.alerts.length ? (
        <div class="alert-banner" role="alert">
          System alert: {String(feed.alerts[0].data.message ?? feed.alerts[0].data.status ?? feed.alerts[0].type)} (
          {new Date(feed.alerts[0].createdAt).toLocaleTimeString()})
        </div>
      ) : null}
      <main id="main" tabIndex={-1}>
        {!current ? (
          <p>This key holds no permission the console can use.</p>
        ) : current.id === 'compliance' ? (
          <CompliancePage feed={feed.events} feedError={feed.error} />
        ) : current.id === 'speech' ? (
          <SpeechPage />
        ) : (
          <AdminPage />
        )}
      </main>
    </ViewerContext.Provider>
  );
}
