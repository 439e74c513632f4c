/**
 * The layering of the gateway (`npm run lint:layers`, run by CI):
 *
 *   domain/  ←  transport/  ←  schema/, resolvers/, rest-adapter/, trpc/  ←  gateway/ (composition root)
 *
 * The domain names no transport; transports share one kit (`transport/`: client errors, request
 * context, progress streams, credentials, budgets) and never import the gateway; the kit itself
 * depends on the domain only. No arrow runs back up, and no module takes part in an import circle.
 */
const TRANSPORTS = '^(schema|resolvers|rest-adapter|trpc)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-imports-no-transport',
      comment: 'domain/ holds every rule and knows nothing of the gateway, the kit or any transport.',
      severity: 'error',
      from: { path: '^domain/' },
      to: { path: '^(gateway|transport|schema|resolvers|rest-adapter|trpc)/' },
    },
    {
      name: 'transports-do-not-import-the-gateway',
      comment: 'Transports are declarations over the domain and the transport kit; the gateway composes them, not the other way round.',
      severity: 'error',
      from: { path: TRANSPORTS },
      to: { path: '^gateway/' },
    },
    {
      name: 'the-kit-depends-on-the-domain-only',
      comment: 'transport/ is shared by every transport, so it imports neither a transport nor the gateway.',
      severity: 'error',
      from: { path: '^transport/' },
      to: { path: '^(gateway|schema|resolvers|rest-adapter|trpc)/' },
    },
    {
      name: 'no-circular',
      comment: 'An import circle makes the start-up order depend on which module is loaded first.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|generated)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
