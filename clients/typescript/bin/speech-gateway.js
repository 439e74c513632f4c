#!/usr/bin/env node
// The `speech-gateway` command (see src/cli.ts); a committed file so npm can link it before the build.
require('../dist/cli.js')
  .main()
  .then((code) => {
    process.exitCode = code;
  });
