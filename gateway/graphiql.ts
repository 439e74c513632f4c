import path from 'node:path';
import express, { type Router } from 'express';
import helmet from 'helmet';

/**
 * GraphiQL at `/graphql` for a browser, from packages installed with the gateway: no CDN, so it
 * works on a machine without the internet (Apollo's Sandbox loads from Apollo's servers). Queries
 * go over HTTP, subscriptions over graphql-ws on the same path; the key typed in the Headers tab
 * (`{"Authorization": "Bearer …"}`) is sent with both.
 */
const packageFile = (pkg: string, file: string) => path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file);

const ASSETS: Record<string, { file: string; type: string }> = {
  'react.js': { file: packageFile('react', 'umd/react.production.min.js'), type: 'application/javascript' },
  'react-dom.js': { file: packageFile('react-dom', 'umd/react-dom.production.min.js'), type: 'application/javascript' },
  'graphiql.js': { file: packageFile('graphiql', 'graphiql.min.js'), type: 'application/javascript' },
  'graphiql.css': { file: packageFile('graphiql', 'graphiql.min.css'), type: 'text/css' },
};

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>GraphiQL · speech & compliance gateway</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/graphql/ide/graphiql.css">
<style>html, body, #graphiql { height: 100%; margin: 0; }</style>
</head><body><div id="graphiql">Loading GraphiQL…</div>
<script src="/graphql/ide/react.js"></script>
<script src="/graphql/ide/react-dom.js"></script>
<script src="/graphql/ide/graphiql.js"></script>
<script src="/graphql/ide/init.js"></script>
</body></html>`;

/** The first tab of a fresh GraphiQL: closed sets are enums (GDPR, IN_PROGRESS), timestamps DateTime. */
const DEFAULT_QUERY = `# Press the run button (Ctrl-Enter) with your API key in the headers below.
# Closed sets are enums named after the REST strings: gdpr -> GDPR, in-progress -> IN_PROGRESS.
query LatestRequirements {
  requirements(filter: { framework: GDPR }, limit: 5) {
    data { id title status priority updatedAt }
    pagination { total }
  }
}
`;

// Runs in the browser. One graphql-ws client per Authorization value, so a changed key reconnects.
const INIT = `(function () {
  var url = location.origin + '/graphql';
  var wsUrl = url.replace(/^http/, 'ws');
  var fetchers = {};
  function fetcherFor(auth) {
    return fetchers[auth] || (fetchers[auth] = GraphiQL.createFetcher({ url: url, subscriptionUrl: wsUrl, wsConnectionParams: auth ? { authorization: auth } : {} }));
  }
  function fetcher(params, opts) {
    var headers = (opts && opts.headers) || {};
    var auth = headers.Authorization || headers.authorization || '';
    return fetcherFor(auth)(params, opts);
  }
  var search = new URLSearchParams(location.search);
  var DEFAULT_QUERY = ${JSON.stringify(DEFAULT_QUERY)};
  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      // A link with ?query= opens that query, not the tab restored from the last visit.
      query: search.get('query') || undefined,
      defaultQuery: search.get('query') || DEFAULT_QUERY,
      defaultHeaders: search.get('headers') || '{\\n  "Authorization": "Bearer <API key>"\\n}',
      shouldPersistHeaders: false,
      defaultEditorToolsVisibility: true
    })
  );
})();`;

/** Browsers asking for a page get GraphiQL; every other GET /graphql goes on to the GraphQL server. */
export function graphiqlRouter(): Router {
  const router = express.Router();
  const headers = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'self'"],
        'script-src': ["'self'"],
        // GraphiQL's editor and panes position themselves with inline styles.
        'style-src': ["'self'", "'unsafe-inline'"],
        'img-src': ["'self'", 'data:'],
        'font-src': ["'self'", 'data:'],
        'connect-src': ["'self'"],
        'object-src': ["'none'"],
        'frame-ancestors': ["'none'"],
      },
    },
  });
  router.get('/graphql', (req, res, next) => {
    if (req.accepts(['application/json', 'application/graphql-response+json', 'text/html']) !== 'text/html') return next();
    headers(req, res, () => res.type('html').send(PAGE));
  });
  router.get('/graphql/ide/init.js', headers, (_req, res) => res.type('application/javascript').send(INIT));
  router.get('/graphql/ide/:asset', headers, (req, res, next) => {
    const asset = ASSETS[req.params.asset];
    if (!asset) return next();
    res.type(asset.type).set('Cache-Control', 'public, max-age=86400').sendFile(asset.file);
  });
  return router;
}
