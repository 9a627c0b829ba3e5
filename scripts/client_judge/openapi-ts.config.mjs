// The client a TypeScript front end would generate from Plinth's document:
// fetch, types, and zod schemas of every request and response. The document
// is the served one, downloaded by scripts/judges.
export default {
  input: process.env.PLINTH_DOCUMENT,
  output: { path: process.env.PLINTH_CLIENT_OUT, postProcess: [] },
  plugins: ['@hey-api/client-fetch', 'zod', { name: '@hey-api/sdk', validator: { response: 'zod' } }],
};
