// The last step of `npm run build`: marks when dist/ was compiled, so `npm start` can tell a build
// older than its sources (gateway/build-freshness.ts) and say so instead of serving old code.
const fs = require('node:fs');
const path = require('node:path');
const dist = path.join(__dirname, '..', 'dist');
fs.mkdirSync(dist, { recursive: true });
fs.writeFileSync(path.join(dist, '.build-stamp'), `${new Date().toISOString()}\n`);

// The embedded database's migrated template, made once per set of migrations (scripts/migrated-template.ts).
require('node:child_process').spawnSync(process.execPath, [path.join(dist, 'scripts', 'migrated-template.js')], { stdio: 'inherit' });
