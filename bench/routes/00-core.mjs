/**
 * Core bench routes: the hello-world baseline and authenticated capabilities.
 * An entry: { name, seed?(tools) → state, prepare?(ctx) → state, request(ctx) → {method?, path, headers?, body?},
 * expectStatus? } — see bench/routes/README.md.
 */
export default [
  {
    name: 'hello',
    request: () => ({ path: '/hello' }),
  },
  {
    // A plain (non-admin) user with a stored preference, so the preference path is exercised.
    name: 'capabilities',
    async seed({ services }) {
      await services.directory.createUser({ id: 'bench-user', password: 'bench-user-password-1', displayName: 'Bench User' });
      await services.preferences.setUserSetting('bench-user', 'attachment_folder', '/Bench');
      return { user: 'bench-user', password: 'bench-user-password-1' };
    },
    request: ({ basic, ocs, state }) => ({
      path: '/ocs/v2.php/cloud/capabilities?format=json',
      headers: { ...ocs, Authorization: basic(state.user, state.password) },
    }),
  },
];
