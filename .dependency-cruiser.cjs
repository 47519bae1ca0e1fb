// The layers of src/ (docs/how-it-is-built.md, Architecture: the layers), checked by `npm run check:layers` as part of `npm test`.
// Each layer may import only the layers listed under it; the top (files directly in src/) may
// import anything and is imported by nothing. Type-only imports count (the swc parser reads the
// TypeScript source as written): a layer's types are part of what it depends on.
//
//   src/*.ts                  main, app (composition root), runtime, cli, the registries
//   transports                http, mcp, oauth, dashboard, pages, cli  (none imports another)
//   ui                        the HTML renderer and components of every page (beside the layers below)
//   domain                    resources, events, webhooks, processor, agents
//   verbs                     what a verb is: its context, operations and actions
//   audit
//   auth
//   tenancy
//   db  net  jobs  mail       infrastructure (mail: the outbox and its SMTP sender)
//   core                      imports nothing of ours
//
// client/ is a package of its own (@payment-service/client): it imports nothing outside itself.

const TRANSPORTS = '(http|mcp|oauth|dashboard|pages|cli)';
const DOMAIN = '(resources|events|webhooks|processor|agents)';
const KNOWN_FOLDERS = `(core|ui|db|net|jobs|mail|tenancy|auth|audit|verbs|${DOMAIN.slice(1, -1)}|${TRANSPORTS.slice(1, -1)})`;

/** A layer may import only `allowed` (folders under src/, as a regex alternation) besides npm packages and Node. */
function layer(name, folders, allowed) {
  return {
    name: `${name}-imports-only-lower-layers`,
    comment: `${name} may import only ${allowed}`,
    severity: 'error',
    from: { path: `^src/${folders}/` },
    to: { path: '^src/', pathNot: `^src/${allowed}/` },
  };
}

module.exports = {
  forbidden: [
    layer('core', 'core', 'core'),
    layer('ui', 'ui', '(core|ui)'),
    layer('db', 'db', '(core|db)'),
    layer('net', 'net', '(core|net)'),
    layer('jobs', 'jobs', '(core|db|jobs)'),
    layer('mail', 'mail', '(core|db|jobs|mail)'),
    layer('tenancy', 'tenancy', '(core|db|tenancy)'),
    layer('auth', 'auth', '(core|db|net|mail|tenancy|auth)'),
    layer('audit', 'audit', '(core|db|tenancy|auth|audit)'),
    layer('verbs', 'verbs', '(core|db|net|jobs|mail|tenancy|auth|audit|verbs)'),
    layer('domain', DOMAIN, `(core|db|net|jobs|mail|tenancy|auth|audit|verbs|${DOMAIN})`),
    layer('transports', TRANSPORTS, `(core|db|net|jobs|mail|tenancy|auth|audit|verbs|ui|${DOMAIN}|${TRANSPORTS})`),
    {
      name: 'no-transport-imports-another',
      comment: 'A transport authenticates, validates, calls a verb and maps errors; what two share belongs lower down.',
      severity: 'error',
      from: { path: `^src/${TRANSPORTS}/` },
      to: { path: `^src/${TRANSPORTS}/`, pathNot: '^src/$1/' },
    },
    {
      name: 'nothing-imports-the-top',
      comment: 'Files directly in src/ compose the layers; no layer imports them.',
      severity: 'error',
      from: { path: '^src/.+/' },
      to: { path: '^src/[^/]+$' },
    },
    {
      name: 'no-two-way-folders',
      comment: 'Folders depend on each other one way only (resources/<name> counts as a folder of its own).',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'client-imports-only-itself',
      comment: 'The typed client is its own package, installed elsewhere by path or tarball: what it needs of the service comes through the OpenAPI document.',
      severity: 'error',
      from: { path: '^client/' },
      to: { pathNot: '^client/' },
    },
    {
      name: 'no-circular-modules',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'known-folders-only',
      comment: 'A new folder under src/ gets its place in the layers above before it is used.',
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/([^/]+\\.ts$|${KNOWN_FOLDERS}/)` },
      to: {},
    },
    {
      name: 'no-imports-of-unknown-folders',
      comment: 'The same seen from the importer: a new folder whose files import nothing of ours, imported only by the top, is placed in the layers too.',
      severity: 'error',
      from: {},
      to: { path: '^src/[^/]+/', pathNot: `^src/${KNOWN_FOLDERS}/` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The client's build output (npm pack, npm install) is not source.
    exclude: { path: '^client/dist/' },
    includeOnly: '^(src|client)/',
    parser: 'swc',
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6'],
  },
};
